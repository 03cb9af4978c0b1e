; A kernel calling libm-style functions no input defines, as clang emits sqrtf/expf/cabsf
; calls in device code (lgamma and cbrt are OpenCL builtins to the SPIR-V backend, so no
; import), beside a user function no input defines.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func float @sqrtf(float)
declare spir_func float @expf(float)
declare spir_func double @lgamma(double)
declare spir_func double @cbrt(double)
declare spir_func float @cabsf(<2 x float>)
declare spir_func i32 @_Z7nowherei(i32)

define spir_kernel void @_ZTS5KMath(ptr addrspace(1) %f, ptr addrspace(1) %d, ptr addrspace(1) %i) {
  %x = load float, ptr addrspace(1) %f
  %a = call spir_func float @sqrtf(float %x)
  %b = call spir_func float @expf(float %a)
  %y = load double, ptr addrspace(1) %d
  %c = call spir_func double @lgamma(double %y)
  %e = call spir_func double @cbrt(double %c)
  %v = insertelement <2 x float> zeroinitializer, float %b, i32 0
  %g = call spir_func float @cabsf(<2 x float> %v)
  store float %g, ptr addrspace(1) %f
  store double %e, ptr addrspace(1) %d
  %n = call spir_func i32 @_Z7nowherei(i32 1)
  store i32 %n, ptr addrspace(1) %i
  ret void
}
