// A real SYCL program for clang++ -fsycl: a kernel using double, and one calling a
// SYCL_EXTERNAL function another translation unit defines.
#include "../../link/Inputs/sycl.h"
[[clang::sycl_external]] int shared_helper(int);
struct KDouble;
struct KExternal;
int main() {
  double *d = nullptr;
  int *p = nullptr;
  kernel_entry<KDouble>([=]() { d[0] = d[1] * 2.5; });
  kernel_entry<KExternal>([=]() { p[0] = shared_helper(p[1]); });
}
