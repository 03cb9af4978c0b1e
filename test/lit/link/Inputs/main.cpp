#include "sycl.h"
// Kernels whose callees live in other translation units.
[[clang::sycl_external]] int chain1(int);
[[clang::sycl_external]] int lookup(int);
[[clang::sycl_external]] int maybe_weak(int);
struct KChain; struct KTable; struct KWeak;
int main() {
  int *p = nullptr;
  kernel_entry<KChain>([=]() { p[0] = chain1(1) + twice(2); });
  kernel_entry<KTable>([=]() { p[1] = lookup(3); });
  kernel_entry<KWeak>([=]() { p[2] = maybe_weak(4); });
}
