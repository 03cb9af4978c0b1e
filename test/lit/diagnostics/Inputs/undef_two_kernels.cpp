// Two kernels calling the same SYCL_EXTERNAL function that no unit defines.
#include "../../link/Inputs/sycl.h"
[[clang::sycl_external]] float lerp3(float, float, float);
struct KA; struct KB;
int main() {
  float *p = nullptr;
  kernel_entry<KA>([=]() { p[0] = lerp3(1.0f, 2.0f, 0.5f); });
  kernel_entry<KB>([=]() { p[1] = lerp3(3.0f, 2.0f, 0.5f); });
}
