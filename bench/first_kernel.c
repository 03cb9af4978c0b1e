// sycl-bench-first: the host side of the benchmark's "time to the first kernel" figure.
// Linked with a wrapper object (`sycl-thinlto wrap`) of some link's output, it opens the
// OpenCL device, then times KERNEL's first launch up to its result: the test runtime
// resolves its image set, links and builds it (ARCHITECTURE fact 7), pocl compiles the
// kernel, and it runs on one work-item. It prints the seconds on stdout, then the build
// alone (a second launch finds the program built: the difference is pocl's per-kernel
// compilation and the run).
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include <stdio.h>
#include <time.h>

#include "sycl_test_runtime.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// A kernel of bench/gen.c captures [=] n, p and a Stencil<float, 4>, in that order: with
// n = 0 it only stores its result in p[0..7].
struct captures {
  int n;
  float *p;
  float w[4];
};

int main(int argc, char **argv) {
  if (argc != 2) {
    fputs("usage: sycl-bench-first KERNEL (linked with a wrapper object)\n", stderr);
    return 2;
  }
  if (sycl_test_open_device()) return 1;
  struct captures c = {0, sycl_test_malloc(16 * sizeof(float)), {0.25f, 0.5f, 0.125f, 0.125f}};
  if (!c.p) return 1;
  double start = now();
  if (sycl_test_build_kernel(argv[1])) return 1;
  double built = now();
  if (sycl_test_launch(argv[1], 1, &c, sizeof c)) return 1;
  printf("%.3f %.3f\n", now() - start, built - start);
  sycl_test_free(c.p);
  return 0;
}
