#include "sycl.h"
// Two kernels, one source: one image (--split=auto), two with --split=kernel.
struct KAdd;
struct KMul;
int main(int argc, char **) {
  int *p = nullptr;
  if (argc > 99) {
    kernel_entry<KAdd>([=]() { p[0] += twice(p[1]); });
    kernel_entry<KMul>([=]() { p[0] *= p[1]; });
  }
  return 0;
}
