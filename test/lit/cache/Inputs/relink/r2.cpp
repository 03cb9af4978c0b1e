#include "shared.h"
// The test's unit edit changes the constant.
[[clang::sycl_external]] [[gnu::noinline]] int helper2(int x) { return x + 11; }
struct K2;
void r2(float *p) {
  kernel_entry<K2>([=]() { p[0] = scale(p[1]); });
}
