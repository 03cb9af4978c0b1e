; DPC++-style device module of one source (sycl-module-id on kernels and SYCL_EXTERNAL
; functions): two plain kernels sharing a SYCL_EXTERNAL function, one kernel with a
; required work-group size, one using fp64, and functions that are never entry points.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

@table = addrspace(1) global [2 x i32] [i32 3, i32 4]
@interface_only = addrspace(1) global i32 7

define spir_kernel void @_ZTS2K1(ptr addrspace(1) %out) #0 {
  %x = call spir_func i32 @_Z6helperi(i32 1)
  %y = call spir_func i32 @_Z3exti(i32 %x)
  %t = load i32, ptr addrspace(1) @table
  %s = add i32 %y, %t
  store i32 %s, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS2K2(ptr addrspace(1) %out) #0 {
  %y = call spir_func i32 @_Z3exti(i32 2)
  store i32 %y, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS2K3(ptr addrspace(1) %out) #0 !reqd_work_group_size !0 {
  %b = call spir_func i32 @_Z20__spirv_BuiltInValuev()
  store i32 %b, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS2K4(ptr addrspace(1) %out) #0 !sycl_used_aspects !1 {
  %d = sitofp i32 1 to double
  %i = fptosi double %d to i32
  store i32 %i, ptr addrspace(1) %out
  ret void
}

define spir_func i32 @_Z3exti(i32 %x) #0 {
  %y = call spir_func i32 @_Z5innerIiET_S0_(i32 %x)
  ret i32 %y
}

define internal spir_func i32 @_Z6helperi(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}

define linkonce_odr spir_func i32 @_Z5innerIiET_S0_(i32 %x) {
  %y = mul i32 %x, 2
  ret i32 %y
}

; Builtins carry the module id too but are never entry points.
define spir_func i32 @_Z20__spirv_BuiltInValuev() #0 {
  ret i32 0
}

define spir_func i32 @__sycl_internal_helper() #0 {
  ret i32 0
}

attributes #0 = { "sycl-module-id"="a.cpp" }

!0 = !{i32 16, i32 1, i32 1}
!1 = !{!2}
!2 = !{!"fp64", i32 6}
