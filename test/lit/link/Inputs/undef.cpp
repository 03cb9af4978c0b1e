#include "sycl.h"
[[clang::sycl_external]] int nowhere(int);
struct KUndef;
int main() {
  int *p = nullptr;
  kernel_entry<KUndef>([=]() { p[0] = nowhere(1); });
}
