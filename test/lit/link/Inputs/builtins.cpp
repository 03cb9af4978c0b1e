#include "sycl.h"
// OpenCL builtins the SPIR-V backend lowers (sin, fmax) and a __spirv_ builtin are not
// imports; a __devicelib_ function nobody defines stays an allowed import.
[[clang::sycl_external]] float sin(float);
[[clang::sycl_external]] float fmax(float, float);
extern "C" [[clang::sycl_external]] unsigned long __spirv_BuiltInGlobalLinearId();
extern "C" [[clang::sycl_external]] float __devicelib_fancy(float);
struct KBuiltins;
int main() {
  float *p = nullptr;
  kernel_entry<KBuiltins>([=]() {
    unsigned long i = __spirv_BuiltInGlobalLinearId();
    p[i] = sin(p[i]) + fmax(p[i], 1.0f) + __devicelib_fancy(p[i]);
  });
}
