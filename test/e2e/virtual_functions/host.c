// The host of device.ll (seed 002): runs UseFoo on a device without fp64 (the runtime links
// set_fp64's dummy image) and with it (the real one), then UseBar, which needs fp64.
#include <stdio.h>

#include "sycl_test_runtime.h"

struct captures {
  int *out;
  void **object;
};

static int kernels_failed;

static void report(const char *kernel, int ran, int good) {
  if (ran && good)
    printf("PASS %s\n", kernel);
  else
    printf("FAIL %s: %s\n", kernel, ran ? "wrong results" : "launch failed");
  kernels_failed += !(ran && good);
}

static void run_and_check(const char *name, const char *kernel, int expect_bar) {
  enum { n = 16 };
  struct captures c = {sycl_test_malloc(n * sizeof(int)), sycl_test_malloc(sizeof(void *))};
  int ran = sycl_test_launch(kernel, n, &c, sizeof c) == 0, good = 1;
  for (int i = 0; i < n; i++)
    good = good && c.out[i] == (expect_bar ? (int)(i * 1.5) : i + 100);
  report(name, ran, good);
  sycl_test_free(c.out);
  sycl_test_free(c.object);
}

int main(void) {
  sycl_test_set_device_aspects("");
  run_and_check("UseFoo(no fp64)", "_ZTS6UseFoo", 0);
  sycl_test_set_device_aspects("fp64");
  run_and_check("UseFoo(fp64)", "_ZTS6UseFoo", 0);
  run_and_check("UseBar(fp64)", "_ZTS6UseBar", 1);
  // Without fp64 the set is the dummy image, with it the real one: two image sets, two
  // programs; UseBar's set is UseFoo(fp64)'s, so it is built once.
  report("ImageSets", 1, sycl_test_programs_built() == 2);
  return kernels_failed ? 1 : 0;
}
