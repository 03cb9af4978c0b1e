; One unit with what each property set is computed from: kernel kAssert reaches
; __devicelib_assert_fail (assert used, devicelib mask 1), kWide needs fp64 and a work-group
; size, ext is a SYCL_EXTERNAL function, imported is defined in another unit, and @dg is a
; device_global the host reaches by its unique id.
target triple = "spir64-unknown-unknown"

@dg = addrspace(1) global i32 0, align 4 #3

declare spir_func void @__devicelib_assert_fail(ptr addrspace(4), ptr addrspace(4), i32, ptr addrspace(4), i64, i64, i64, i64, i64, i64)
declare spir_func i32 @imported(i32) #0
declare spir_func i32 @__private_helper(i32) #0

define spir_func void @check(i32 %x) {
  %bad = icmp eq i32 %x, 0
  br i1 %bad, label %fail, label %ok
fail:
  call spir_func void @__devicelib_assert_fail(ptr addrspace(4) null, ptr addrspace(4) null, i32 1, ptr addrspace(4) null, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0)
  br label %ok
ok:
  ret void
}

define spir_kernel void @kAssert() #1 {
  call spir_func void @check(i32 1)
  %v = load i32, ptr addrspace(1) @dg
  ret void
}

define spir_func i32 @ext(i32 %x) #0 {
  %a = call spir_func i32 @imported(i32 %x)
  %b = call spir_func i32 @__private_helper(i32 %a)
  ret i32 %b
}

define spir_kernel void @kWide() #2 !sycl_used_aspects !1 !reqd_work_group_size !2 !intel_reqd_sub_group_size !3 {
  %r = call spir_func i32 @ext(i32 2)
  ret void
}

attributes #0 = { "sycl-module-id"="p.cpp" }
attributes #1 = { "sycl-module-id"="p.cpp" "sycl-optlevel"="2" }
attributes #2 = { "sycl-module-id"="p.cpp" "sycl-optlevel"="3" }
attributes #3 = { "sycl-unique-id"="uid_dg" "sycl-device-global-size"="4" }

!1 = !{!4}
!2 = !{i32 64, i32 1, i32 1}
!3 = !{i32 16}
!4 = !{!"fp64", i32 6}
