#include "../../link/Inputs/sycl.h"
// Two kernels of one source calling one SYCL_EXTERNAL function, and a third that calls
// only a static helper.
[[clang::sycl_external]] [[gnu::noinline]] int scale(int x) { return x * 3; }
[[gnu::noinline]] static int bump(int x) { return x + 1; }
struct KScaleA; struct KScaleB; struct KBump;
int main() {
  int *p = nullptr;
  kernel_entry<KScaleA>([=]() { p[0] = scale(p[1]); });
  kernel_entry<KScaleB>([=]() { p[2] = scale(p[3]) + 1; });
  kernel_entry<KBump>([=]() { p[4] = bump(p[5]); });
}
