#include "sycl.h"
[[clang::sycl_external]] int chain3(int);
[[clang::sycl_external]] [[gnu::noinline]] int chain2(int x) { return chain3(x + 2) * 2 + twice(x); }
