#include "shared.h"
[[clang::sycl_external]] int helper2(int);
struct K1;
void r1(int *p) {
  kernel_entry<K1>([=]() { p[0] = helper2(p[1]) + scale(p[2]); });
}
