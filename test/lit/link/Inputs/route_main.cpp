#include "sycl.h"
// The host never launches the kernel here: the test only looks at what got registered.
[[clang::sycl_external]] int chain1(int);
[[clang::sycl_external]] int lookup(int);
[[clang::sycl_external]] int maybe_weak(int);
struct KRoute;
int main(int argc, char **) {
  int *p = nullptr;
  if (argc > 99) kernel_entry<KRoute>([=]() { p[0] = chain1(1) + lookup(2) + maybe_weak(3); });
  return 0;
}
