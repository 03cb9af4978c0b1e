; Two kernels whose arguments DPC++ removed (!sycl_kernel_omit_args): a mask of 2 bits and
; one of 11, the runtime takes the bit count for the kernel's number of arguments.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"
define spir_kernel void @K2(i32 %a, i32 %b) #0 !sycl_kernel_omit_args !0 {
  ret void
}
define spir_kernel void @K11(i32 %a) #0 !sycl_kernel_omit_args !1 {
  ret void
}
attributes #0 = { "sycl-module-id"="a.cpp" }
!0 = !{i1 false, i1 true}
!1 = !{i1 true, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 false, i1 true}
