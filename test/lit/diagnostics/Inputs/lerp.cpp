// A kernel in a namespace whose SYCL_EXTERNAL callee no unit defines, and one a second unit
// defines again: messages name them as written here.
// (Not mix(float, float, float), issue 27's example: an OpenCL builtin, which the SPIR-V
// backend provides.)
#include "../../link/Inputs/sycl.h"
[[clang::sycl_external]] float lerp3(float, float, float);
[[clang::sycl_external]] int twice(int x) { return 2 * x; }
namespace shapes {
template <int N> struct Blend;
}
int main() {
  float *p = nullptr;
  kernel_entry<shapes::Blend<3>>([=]() { p[0] = lerp3(1.0f, 2.0f, 0.5f) + twice(1); });
}
