#include "sycl.h"
// twice<long> is instantiated here and in odr2.cpp: linkonce_odr in both.
template <typename T> [[gnu::noinline]] T thrice(T x) { return x * 3; }
[[clang::sycl_external]] long odr_user1(long x) { return thrice(x) + twice(x); }
