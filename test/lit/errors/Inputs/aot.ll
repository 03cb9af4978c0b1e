; Device code for an ahead-of-time target (spir64_gen): not linkable with spirv64 code.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64_gen-unknown-unknown"

define spir_kernel void @_ZTS2KG(ptr addrspace(1) %p) {
  store i32 3, ptr addrspace(1) %p
  ret void
}
