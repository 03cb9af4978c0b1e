; A kernel calling mix(float, float, float) that no unit defines, as DPC++ emits it: the
; user's SYCL_EXTERNAL declaration carries sycl-module-id. Its name is also an OpenCL
; builtin's, which LLVM's SPIR-V backend would lower to OpenCL.std's mix without a word.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

define spir_kernel void @_ZTS4KMix(ptr addrspace(1) %o) #0 {
  %m = call spir_func float @_Z3mixfff(float 1.0, float 2.0, float 5.0e-01) #1
  %b = call spir_func float @_Z15__spirv_ocl_mixfff(float 1.0, float 2.0, float 5.0e-01)
  %s = fadd float %m, %b
  store float %s, ptr addrspace(1) %o
  ret void
}

declare spir_func float @_Z3mixfff(float, float, float) #0
declare spir_func float @_Z15__spirv_ocl_mixfff(float, float, float)

attributes #0 = { convergent "sycl-module-id"="mix.cpp" }
attributes #1 = { convergent }
