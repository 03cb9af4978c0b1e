; A __devicelib_ function defined in the image: nothing for the runtime to add.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define weak spir_func float @__devicelib_sinf(float %x) {
  ret float %x
}

define spir_kernel void @_ZTS8KDefined(ptr addrspace(1) %out) {
  %s = call spir_func float @__devicelib_sinf(float 1.0)
  store float %s, ptr addrspace(1) %out
  ret void
}
