#include "sycl.h"
[[clang::sycl_external]] int chain2(int);
[[clang::sycl_external]] [[gnu::noinline]] int chain1(int x) { return chain2(x + 1) * 2 + twice(x); }
