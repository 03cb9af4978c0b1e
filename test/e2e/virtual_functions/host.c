// The host of device.ll (seed 002): runs UseFoo on a device without fp64 (the runtime links
// set_fp64's dummy image) and with it (the real one), then UseBar, which needs fp64.
#include <stdio.h>
#include <string.h>

#include "../vf_check.h"
#include "sycl_test_runtime.h"

struct captures {
  int *out;
  void **object;
};

// Runs KERNEL; each work-item i calls foo (i + 100) or bar ((int)(i * 1.5)) through the vtable.
static void run_and_check(const char *name, const char *kernel, int expect_bar, int fp64_dummy) {
  enum { n = 16 };
  struct captures c = {sycl_test_malloc(n * sizeof(int)), sycl_test_malloc(sizeof(void *))};
  int ran = sycl_test_launch(kernel, n, &c, sizeof c) == 0, good = 1;
  for (int i = 0; i < n; i++)
    good = good && c.out[i] == (expect_bar ? (int)(i * 1.5) : i + 100);
  report(name, ran, good, "wrong results");
  sycl_test_free(c.out);
  sycl_test_free(c.object);
  report_image_set(name, kernel, ran, fp64_dummy);
}

int main(void) {
  sycl_test_set_device_aspects("");
  run_and_check("UseFoo(no fp64)", "_ZTS6UseFoo", 0, 1);
  sycl_test_set_device_aspects("fp64");
  run_and_check("UseFoo(fp64)", "_ZTS6UseFoo", 0, 0);
  run_and_check("UseBar(fp64)", "_ZTS6UseBar", 1, 0);
  run_and_check("UseFoo(fp64) again", "_ZTS6UseFoo", 0, 0);
  // Three image sets, each built once: UseFoo with set_fp64's dummy, UseFoo with the real
  // set_fp64, UseBar (its own image: it needs fp64) with the real one.
  report("ImageSets", 1, sycl_test_programs_built() == 3, "not built once per image set");
  return kernels_failed ? 1 : 0;
}
