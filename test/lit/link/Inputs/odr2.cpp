#include "sycl.h"
template <typename T> [[gnu::noinline]] T thrice(T x) { return x * 3; }
[[clang::sycl_external]] long odr_user1(long);
struct KOdr;
int main() {
  long *p = nullptr;
  kernel_entry<KOdr>([=]() { p[0] = odr_user1(2) + thrice(p[1]) + twice(p[2]); });
}
