; Device requirements and misc properties. The kernel uses aspect 28 (atomic64) through a
; noinline callee, fp16 as a named pair, an internal aspect (-1, never written), and doubles (fp64).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_func void @_Z6atomicPi(ptr addrspace(1) %p) noinline !sycl_used_aspects !1 {
  store i32 1, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @_ZTS4KReq(ptr addrspace(1) %out, double %d) #0 !sycl_used_aspects !2 !reqd_work_group_size !3 !intel_reqd_sub_group_size !4 !work_group_num_dim !5 {
  call spir_func void @_Z6atomicPi(ptr addrspace(1) %out)
  %t = fptrunc double %d to float
  store float %t, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "sycl-optlevel"="3" }

!0 = !{!"fp16", i32 5}
!1 = !{i32 28}
!2 = !{!0, i32 -1}
!3 = !{i32 32, i32 4, i32 1}
!4 = !{i32 16}
!5 = !{i32 3}
