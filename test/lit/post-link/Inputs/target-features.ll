; Kernels that need optional features: fp64 (a named aspect), fp16 (an aspect by number),
; image (an aspect no Intel GPU target of intel's device configuration lists), sub-group sizes
; 8 and 64, fp64 declared with [[sycl::device_has()]], and one that needs nothing.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

define spir_kernel void @k_fp64(ptr addrspace(1) %p) #0 !sycl_used_aspects !1 {
  %v = load double, ptr addrspace(1) %p
  %w = fadd double %v, 1.0
  store double %w, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @k_fp16(ptr addrspace(1) %p) #0 !sycl_used_aspects !2 {
  %v = load half, ptr addrspace(1) %p
  %w = fadd half %v, 1.0
  store half %w, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @k_image() #0 !sycl_used_aspects !7 {
  ret void
}

define spir_kernel void @k_sg8() #0 !intel_reqd_sub_group_size !4 {
  ret void
}

define spir_kernel void @k_sg64() #0 !intel_reqd_sub_group_size !5 {
  ret void
}

define spir_kernel void @k_declared() #0 !sycl_declared_aspects !6 {
  ret void
}

define spir_kernel void @k_plain() #0 {
  ret void
}

attributes #0 = { "sycl-module-id"="features.cpp" }

!0 = !{!"fp64", i32 6}
!1 = !{!0}
!2 = !{i32 5}
!3 = !{!"image", i32 9}
!4 = !{i32 8}
!5 = !{i32 64}
!6 = !{i32 6}
!7 = !{!3}
