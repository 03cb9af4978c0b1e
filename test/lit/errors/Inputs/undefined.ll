; Two kernels using functions no input defines: every name is reported, with its kernels.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func i32 @missing_one(i32)
declare spir_func i32 @missing_two(i32)

define spir_kernel void @_ZTS2KU(ptr addrspace(1) %p) {
  %a = call spir_func i32 @missing_one(i32 1)
  %b = call spir_func i32 @missing_two(i32 %a)
  store i32 %b, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @_ZTS2KV(ptr addrspace(1) %p) {
  %a = call spir_func i32 @missing_two(i32 1)
  store i32 %a, ptr addrspace(1) %p
  ret void
}
