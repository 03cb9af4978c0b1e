; Kernels with what DPC++'s runtime reads besides the split: removed arguments
; (!sycl_kernel_omit_args), required sizes, a GRF size, declared aspects, a device global
; and a host pipe.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

@dg = addrspace(1) global i32 0, align 4 #2
@pipe = addrspace(1) constant i8 0, align 1 #3

define spir_kernel void @SpirKernel1(float %arg1) #0 !sycl_kernel_omit_args !0 !reqd_work_group_size !2 {
  call spir_func void @foo(float %arg1)
  store i32 1, ptr addrspace(1) @dg
  ret void
}

define spir_kernel void @SpirKernel2(i8 %arg1, i8 %arg2, i8 %arg3) #1 !sycl_kernel_omit_args !1 !intel_reqd_sub_group_size !3 {
  call spir_func void @decl()
  %v = load i8, ptr addrspace(1) @pipe
  ret void
}

define spir_func void @foo(float %f) #0 {
  ret void
}

define spir_func void @decl() #1 !sycl_declared_aspects !4 {
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" "sycl-optlevel"="2" }
attributes #1 = { "sycl-module-id"="b.cpp" "sycl-grf-size"="256" }
attributes #2 = { "sycl-unique-id"="uid_dg" "sycl-device-global-size"="4" }
attributes #3 = { "sycl-unique-id"="uid_pipe" "sycl-host-pipe-size"="4" }

!0 = !{i1 true, i1 false}
!1 = !{i1 false, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 false, i1 false, i1 true, i1 true}
!2 = !{i32 1, i32 2, i32 4}
!3 = !{i32 16}
!4 = !{i32 5, i32 6, i32 9}
