; Seed 000: a kernel importing two functions nobody exports.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func i32 @_Z7missingi(i32)
declare spir_func i32 @_Z12also_missingi(i32)

define spir_kernel void @_ZTS7Missing(ptr addrspace(1) %out) {
  %a = call spir_func i32 @_Z7missingi(i32 1)
  %b = call spir_func i32 @_Z12also_missingi(i32 %a)
  store i32 %b, ptr addrspace(1) %out
  ret void
}
