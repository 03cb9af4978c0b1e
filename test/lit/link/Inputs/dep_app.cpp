#include "sycl.h"
[[clang::sycl_external]] int shared_helper(int);
[[clang::sycl_external]] int from_shared_library(int);
struct KDep;
int main() {
  int *p = nullptr;
  kernel_entry<KDep>([=]() { p[0] = shared_helper(p[1]) + from_shared_library(p[2]); });
}
