// What the C hosts of the virtual-function programs share: one "PASS <name>" or
// "FAIL <name>: why" line per check (counted by conformance.sh), and reading the image set
// the test runtime linked for a kernel.
#pragma once
#include <stdio.h>
#include <string.h>

#include "sycl_test_runtime.h"

static int kernels_failed;

static void report(const char *kernel, int ran, int good, const char *why) {
  if (ran && good)
    printf("PASS %s\n", kernel);
  else
    printf("FAIL %s: %s\n", kernel, ran ? why : "launch failed");
  kernels_failed += !(ran && good);
}

// Whether the image set IMAGES ("app[3] app[0]:set_default app[2]:set_fp64:dummy") holds the
// image of SET, its dummy if DUMMY.
static int links(const char *images, const char *set, int dummy) {
  char wanted[64];
  snprintf(wanted, sizeof wanted, ":%s%s", set, dummy ? ":dummy" : "");
  for (const char *p = images ? strstr(images, wanted) : NULL; p; p = strstr(p + 1, wanted)) {
    char end = p[strlen(wanted)];
    if (end == ' ' || end == 0) return 1;
  }
  return 0;
}

// KERNEL (checked as NAME) calls one set and creates objects of both: both sets' images are
// linked, set_fp64's dummy (FP64_DUMMY) on a device without fp64.
static void report_image_set(const char *name, const char *kernel, int ran, int fp64_dummy) {
  const char *images = sycl_test_image_set(kernel);
  char label[80];
  snprintf(label, sizeof label, "%s images", name);
  report(label, ran,
         links(images, "set_default", 0) && links(images, "set_fp64", fp64_dummy) &&
             !links(images, "set_fp64", !fp64_dummy),
         images ? images : "no image set");
}
