// The program's three specialization constants: two scalars and a composite with a nested
// array and tail padding (16 bytes, 13 of them values).
#pragma once
#include "sycl_spec.hpp"

struct Params {
  int count;
  float weights[2];
  char tag;
};

SPEC_ID(int, int_id, "9b2e4c1a7d3f5e60____ZL6int_id", 42);
SPEC_ID(float, scale_id, "9b2e4c1a7d3f5e60____ZL8scale_id", 0.5f);
SPEC_ID(Params, params_id, "9b2e4c1a7d3f5e60____ZL9params_id", Params{3, {1.5f, -2.0f}, 'p'});

// ext.cpp: reads int_id in another unit (a SYCL_EXTERNAL function given the kernel_handler).
[[clang::sycl_external]] int offset_by_int_id(int i, const sycl_lite::kernel_handler &kh);
