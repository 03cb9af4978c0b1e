; Every SYCL metadata node the tool reads as integers, in each form DPC++ (and upstream clang,
; for OpenCL's attributes) writes it: i32 and i64 sizes, i1 flags, an empty target list,
; aspects as !{!"name", i32 N} pairs, bare and negative (DPC++'s internal aspects).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @_ZTS2K1(ptr addrspace(1) %p, i32 %unused) !reqd_work_group_size !0 !intel_reqd_sub_group_size !1 !work_group_num_dim !2 !sycl_used_aspects !3 !sycl_declared_aspects !5 !sycl_fixed_targets !6 !sycl_kernel_omit_args !7 {
  store i32 1, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @_ZTS2K2(ptr addrspace(1) %p) !reqd_work_group_size !8 !max_work_group_size !9 !max_linear_work_group_size !10 {
  store i32 2, ptr addrspace(1) %p
  ret void
}

!0 = !{i32 2, i32 4, i32 8}
!1 = !{i32 16}
!2 = !{i32 3}
!3 = !{!4, i32 -1}
!4 = !{!"fp16", i32 5}
!5 = !{i32 5, i32 9}
!6 = !{}
!7 = !{i1 false, i1 true}
!8 = !{i64 64}
!9 = !{i64 8, i64 4, i64 2}
!10 = !{i64 64}
