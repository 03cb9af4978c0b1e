#include "sycl.h"
[[clang::sycl_external]] int chain5(int);
[[clang::sycl_external]] [[gnu::noinline]] int chain4(int x) { return chain5(x + 4) * 2 + twice(x); }
