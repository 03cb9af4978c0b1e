; Host module of seed 004's example, attributes written by hand as a DPC++ host compiler would:
;   sycl::device_global<int> FuBar;                  // @FuBar
;   namespace { sycl::device_global<int> FuBar; }    // @_ZN12_GLOBAL__N_15FuBarE, internal
;   namespace inner { sycl::device_global<double[2]> Bar; }
;   sycl::specialization_id<int> spec_const(38);
;   extern sycl::device_global<int> Elsewhere;       // defined (and registered) in another unit
; and a user constructor of its own at the lowest priority user code may ask for (101), which
; must run after the registration.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%"class.sycl::_V1::ext::oneapi::experimental::device_global" = type { ptr }
%"class.sycl::_V1::specialization_id" = type { i32 }

@FuBar = dso_local global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer, align 8 #0
@_ZN12_GLOBAL__N_15FuBarE = internal global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer, align 8 #1
@_ZN5inner3BarE = dso_local global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer, align 8 #2
@spec_const = dso_local global %"class.sycl::_V1::specialization_id" { i32 38 }, align 4 #3
@Elsewhere = external global %"class.sycl::_V1::ext::oneapi::experimental::device_global", align 8 #4
@plain = dso_local global i32 7, align 4
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @user_ctor, ptr null }]

define internal void @user_ctor() {
  call void @user_constructor_ran()
  ret void
}

declare void @user_constructor_ran()

; The anonymous-namespace variable's address, for the test program.
define dso_local ptr @anon_fubar() {
  ret ptr @_ZN12_GLOBAL__N_15FuBarE
}

define dso_local ptr @use_elsewhere() {
  ret ptr @Elsewhere
}

attributes #0 = { "sycl-unique-id"="_Z5FuBar" "sycl-uid-kind"="device_global" }
attributes #1 = { "sycl-unique-id"="THE_TU_HASH____ZN12_GLOBAL__N_15FuBarE" "sycl-uid-kind"="device_global" }
attributes #2 = { "sycl-unique-id"="_ZN5inner3BarE" "sycl-uid-kind"="device_global" }
attributes #3 = { "sycl-unique-id"="_Z10spec_const" "sycl-uid-kind"="specialization_id" }
attributes #4 = { "sycl-unique-id"="_Z9Elsewhere" "sycl-uid-kind"="device_global" }
