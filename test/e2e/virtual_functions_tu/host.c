// The host of sets.ll and kernels.ll (issue 14: seed 002 across translation units). The
// result must be the single-unit one (../virtual_functions): UseFoo gets set_fp64's dummy on
// a device without fp64 and the real image with it; UseBar needs fp64; Plain, which needs no
// aspect, never shares an image with UseBar.
#include <stdio.h>
#include <string.h>

#include "../vf_check.h"
#include "sycl_test_runtime.h"

struct captures {
  int *out;
  void **object;
};

// The first image of a set: the kernel's own ("app[3]").
static void kernel_image(const char *kernel, char *out, size_t size) {
  const char *images = sycl_test_image_set(kernel);
  snprintf(out, size, "%.*s", images ? (int)strcspn(images, " ") : 0, images ? images : "");
}

// Runs KERNEL; work-item i gets foo (i + 100), bar ((int)(i * 1.5)) or Plain's i + 7.
static void run_and_check(const char *name, const char *kernel, char expect, int fp64_dummy) {
  enum { n = 16 };
  struct captures c = {sycl_test_malloc(n * sizeof(int)), sycl_test_malloc(sizeof(void *))};
  int ran = sycl_test_launch(kernel, n, &c, sizeof c) == 0, good = 1;
  for (int i = 0; i < n; i++)
    good = good && c.out[i] == (expect == 'b' ? (int)(i * 1.5) : expect == 'f' ? i + 100 : i + 7);
  report(name, ran, good, "wrong results");
  sycl_test_free(c.out);
  sycl_test_free(c.object);
  if (expect == 'p') return;
  report_image_set(name, kernel, ran, fp64_dummy);
}

int main(void) {
  sycl_test_set_device_aspects("");
  run_and_check("Plain(no fp64)", "_ZTS5Plain", 'p', 0);
  run_and_check("UseFoo(no fp64)", "_ZTS6UseFoo", 'f', 1);
  sycl_test_set_device_aspects("fp64");
  run_and_check("UseFoo(fp64)", "_ZTS6UseFoo", 'f', 0);
  run_and_check("UseBar(fp64)", "_ZTS6UseBar", 'b', 0);
  run_and_check("Plain(fp64)", "_ZTS5Plain", 'p', 0);
  char plain[64], bar[64];
  kernel_image("_ZTS5Plain", plain, sizeof plain);
  kernel_image("_ZTS6UseBar", bar, sizeof bar);
  report("Plain apart from UseBar", 1, plain[0] && bar[0] && strcmp(plain, bar) != 0,
         "one image for a kernel without aspects and one needing fp64");
  // Three image sets, each built once: Plain's and UseFoo's image with set_fp64's dummy, the
  // same with the real set_fp64, UseBar's (it needs fp64) with the real one.
  report("ImageSets", 1, sycl_test_programs_built() == 3, "not built once per image set");
  return kernels_failed ? 1 : 0;
}
