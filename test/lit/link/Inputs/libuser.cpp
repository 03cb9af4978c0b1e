#include "sycl.h"
// Kernels calling functions that only a --device-libs library defines.
[[clang::sycl_external]] int lib_double(int);
extern "C" [[clang::sycl_external]] int __devicelib_clamp(int);
struct KLib;
int main() {
  int *p = nullptr;
  kernel_entry<KLib>([=]() { p[0] = lib_double(p[1]) + __devicelib_clamp(p[2]); });
}
