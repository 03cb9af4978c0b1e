#include "sycl.h"
// A kernel passing the address of a function defined in another unit.
[[clang::sycl_external]] int apply(int (*f)(int), int);
[[clang::sycl_external]] int square(int);
struct KPtr;
int main() {
  int *p = nullptr;
  kernel_entry<KPtr>([=]() { p[3] = apply(square, 5); });
}
