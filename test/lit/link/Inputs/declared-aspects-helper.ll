; A SYCL_EXTERNAL function declaring fp64 and ext_intel_legacy_image (6, 9) with [[sycl::device_has()]]; it uses neither.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"
define spir_func i32 @helper() #0 !sycl_declared_aspects !0 {
  ret i32 5
}
attributes #0 = { "sycl-module-id"="b.cpp" }
!0 = !{i32 6, i32 9}
