; Aspects as a module reaches sycl-post-link when DPC++'s compile-time propagation did not
; run: kA calls helper, which uses fp64, but kA carries no !sycl_used_aspects of its own; kB
; uses double without any metadata; kC uses nothing; kD declares fp16 itself.
target triple = "spir64-unknown-unknown"

define spir_func void @helper() !sycl_used_aspects !1 {
  ret void
}

define spir_kernel void @kA() #0 {
  call spir_func void @helper()
  ret void
}

define spir_kernel void @kB() #0 {
  %x = alloca double
  ret void
}

define spir_kernel void @kC() #0 {
  ret void
}

define spir_kernel void @kD() #0 !sycl_used_aspects !3 {
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }

!1 = !{!2}
!2 = !{!"fp64", i32 6}
!3 = !{!4}
!4 = !{!"fp16", i32 5}
