#include "sycl.h"
[[clang::sycl_external]] int chain4(int);
[[clang::sycl_external]] [[gnu::noinline]] int chain3(int x) { return chain4(x + 3) * 2 + twice(x); }
