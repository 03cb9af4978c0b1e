; kUser calls two SYCL_EXTERNAL functions of another source: ext, which another image can
; export, and __impl, which intel never imports ("__" name). Its work-group size differs
; from the one helper (not an entry point) requires.
target triple = "spir64-unknown-unknown"

define spir_func void @ext() #0 {
  ret void
}

define spir_func void @__impl() #0 {
  ret void
}

define spir_func void @helper() !reqd_work_group_size !1 {
  ret void
}

define spir_kernel void @kUser() #1 !reqd_work_group_size !2 {
  call spir_func void @ext()
  call spir_func void @__impl()
  call spir_func void @helper()
  ret void
}

attributes #0 = { "sycl-module-id"="lib.cpp" }
attributes #1 = { "sycl-module-id"="user.cpp" }

!1 = !{i32 64, i32 1, i32 1}
!2 = !{i32 32, i32 1, i32 1}
