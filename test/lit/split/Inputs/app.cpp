#include "../../link/Inputs/sycl.h"
// Three kernels; two call SYCL_EXTERNAL functions of lib.cpp, one calls a local one.
[[clang::sycl_external]] int lib_scale(int);
[[clang::sycl_external]] int lib_offset(int);
[[clang::sycl_external]] [[gnu::noinline]] int local_twice(int x) { return 2 * x; }
struct KAppScale; struct KAppOffset; struct KAppLocal;
int main(int argc, char **) {
  int *p = nullptr;
  if (argc > 99) {
    kernel_entry<KAppScale>([=]() { p[0] = lib_scale(p[1]); });
    kernel_entry<KAppOffset>([=]() { p[2] = lib_offset(p[3]) + local_twice(1); });
    kernel_entry<KAppLocal>([=]() { p[4] = local_twice(p[5]); });
  }
  return 0;
}
