; Two kernels of one unit: KDecl declares aspects 6 and 9, KPlain none.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"
define spir_kernel void @KDecl(ptr addrspace(1) %o) #0 !sycl_declared_aspects !0 {
  store i32 1, ptr addrspace(1) %o
  ret void
}
define spir_kernel void @KPlain(ptr addrspace(1) %o) #0 {
  store i32 2, ptr addrspace(1) %o
  ret void
}
attributes #0 = { "sycl-module-id"="a.cpp" }
!0 = !{i32 6, i32 9}
