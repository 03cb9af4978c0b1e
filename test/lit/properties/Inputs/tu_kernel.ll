; Seed 003: the kernel calls a SYCL_EXTERNAL function of another translation unit, and only
; that function calls the device library.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func float @_Z8externalf(float)

define spir_kernel void @_ZTS7KCaller(ptr addrspace(1) %out) {
  %x = load float, ptr addrspace(1) %out
  %r = call spir_func float @_Z8externalf(float %x)
  store float %r, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS8KNoAsserts(ptr addrspace(1) %out) {
  store float 0.0, ptr addrspace(1) %out
  ret void
}
