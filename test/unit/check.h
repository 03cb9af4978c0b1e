// The unit tests' check: each result printed, failures counted for main's exit status.
#ifndef SYCL_THINLTO_TEST_CHECK_H
#define SYCL_THINLTO_TEST_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int failures;

static inline void check(bool ok, const char *what) {
  printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) failures++;
}

// The last line of a test's output and main's exit status: 0 when every check passed.
static inline int checks_result(void) {
  printf("%s\n", failures ? "FAILED" : "all passed");
  return failures != 0;
}

#endif
