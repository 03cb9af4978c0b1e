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

#endif
