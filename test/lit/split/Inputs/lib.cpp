#include "../../link/Inputs/sycl.h"
// SYCL_EXTERNAL functions only: no kernel.
[[gnu::noinline]] static int base(int x) { return x + 40; }
[[clang::sycl_external]] [[gnu::noinline]] int lib_scale(int x) { return base(x) * 3; }
[[clang::sycl_external]] [[gnu::noinline]] int lib_offset(int x) { return base(x) + 2; }
