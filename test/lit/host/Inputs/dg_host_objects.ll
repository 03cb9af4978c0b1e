; Host unit of the device-globals program, as a DPC++ host compiler would emit it (host
; -flto: this is bitcode the linker-wrapper rewrites): Counter and the anonymous-namespace
; FuBar with the IDs the device compiler gave them, a specialization_id, and a constructor of
; its own (priority 101) that looks Counter up through the runtime, which it can only find if
; the registration ran before it.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%"class.sycl::_V1::ext::oneapi::experimental::device_global" = type { ptr }
%"class.sycl::_V1::specialization_id" = type { i32 }

@Counter = dso_local global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer, align 8 #0
@_ZN12_GLOBAL__N_15FuBarE = internal global [2 x double] zeroinitializer, align 8 #1
@spec_const = dso_local global %"class.sycl::_V1::specialization_id" { i32 38 }, align 4 #2
@counter_found_in_user_ctor = dso_local global i32 -2, align 4
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @user_ctor, ptr null }]

declare i32 @sycl_test_lookup_host_object(ptr, ptr, ptr, ptr, ptr)

define internal void @user_ctor() {
  %r = call i32 @sycl_test_lookup_host_object(ptr @Counter, ptr null, ptr null, ptr null, ptr null)
  store i32 %r, ptr @counter_found_in_user_ctor, align 4
  ret void
}

; The anonymous-namespace variable's address, for main.c, which cannot name it.
define dso_local ptr @anon_fubar() {
  ret ptr @_ZN12_GLOBAL__N_15FuBarE
}

attributes #0 = { "sycl-unique-id"="Counter" "sycl-uid-kind"="device_global" }
attributes #1 = { "sycl-unique-id"="3f1c9a2b5d7e8f60____ZN12_GLOBAL__N_15FuBarE" "sycl-uid-kind"="device_global" }
attributes #2 = { "sycl-unique-id"="_Z10spec_const" "sycl-uid-kind"="specialization_id" }
