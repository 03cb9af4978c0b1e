#include "sycl.h"
// Five kernels, one source: five images with --split=kernel (ocloc's batches, batch.test).
struct K1;
struct K2;
struct K3;
struct K4;
struct K5;
int main(int argc, char **) {
  int *p = nullptr;
  if (argc > 99) {
    kernel_entry<K1>([=]() { p[0] += twice(p[1]); });
    kernel_entry<K2>([=]() { p[0] *= p[1]; });
    kernel_entry<K3>([=]() { p[0] -= p[2]; });
    kernel_entry<K4>([=]() { p[1] += twice(p[2]); });
    kernel_entry<K5>([=]() { p[2] ^= p[0]; });
  }
  return 0;
}
