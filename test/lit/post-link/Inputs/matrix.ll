; Joint matrix requirements as DPC++ records them on kernels: kA uses a matrix and a
; multiply-add, kB's string is empty (no requirement), kC uses another matrix.
target triple = "spir64-unknown-unknown"

define spir_kernel void @kA() #0 !sycl_joint_matrix !1 !sycl_joint_matrix_mad !2 {
  ret void
}

define spir_kernel void @kB() #0 !sycl_joint_matrix !3 {
  ret void
}

define spir_kernel void @kC() #0 !sycl_joint_matrix !4 {
  ret void
}

attributes #0 = { "sycl-module-id"="m.cpp" }

!1 = !{!"matrix_type::fp32,use::a,8,16"}
!2 = !{!"matrix_type::fp32,8,16,16"}
!3 = !{!""}
!4 = !{!"matrix_type::fp64,use::b,16,16"}
