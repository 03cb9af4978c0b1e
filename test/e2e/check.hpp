// What every end-to-end program reports: one "PASS <kernel>" or "FAIL <kernel>: why" line per
// kernel, counted by conformance.sh; the exit status is 1 if any kernel failed.
#pragma once
#include <stdio.h>

#include "sycl_test.hpp"

static int kernels_failed;

// RAN: the launch succeeded; GOOD: its results are the expected ones.
static inline void report(const char *kernel, bool ran, bool good) {
  if (ran && good)
    printf("PASS %s\n", kernel);
  else
    printf("FAIL %s: %s\n", kernel, ran ? "wrong results" : "launch failed");
  kernels_failed += !(ran && good);
}

static inline int exit_status() {
  return kernels_failed ? 1 : 0;
}
