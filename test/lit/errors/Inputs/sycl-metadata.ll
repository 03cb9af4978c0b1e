; A kernel carrying one SYCL metadata node, whose kind and value sycl-metadata.test fills in.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @_ZTS2K1(ptr addrspace(1) %p) !KIND !0 {
  store i32 1, ptr addrspace(1) %p
  ret void
}

!0 = VALUE
