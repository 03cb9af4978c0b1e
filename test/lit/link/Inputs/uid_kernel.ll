; Unit 2: a kernel reading unit 1's device global and, through get_fubar, its anonymous one.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

%"class.sycl::_V1::ext::oneapi::experimental::device_global" = type { i32 }

@Counter = external addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global"

declare spir_func i32 @_Z9get_fubarv()

define spir_kernel void @_ZTS4Bump(ptr addrspace(1) %out) #1 {
  %f = call spir_func i32 @_Z9get_fubarv()
  %v = load i32, ptr addrspace(1) @Counter
  %n = add i32 %v, %f
  store i32 %n, ptr addrspace(1) %out
  ret void
}

attributes #1 = { "sycl-module-id"="d.cpp" }
