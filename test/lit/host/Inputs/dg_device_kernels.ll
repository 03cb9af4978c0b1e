; Device unit 2 of the device-globals program: a kernel that adds its argument to unit 1's
; Counter and writes the new value out.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

%"class.sycl::_V1::ext::oneapi::experimental::device_global" = type { i32 }

@Counter = external addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global" #0

; [=] { *out = Counter += step; } with captures { int *out; int step; }.
define spir_kernel void @_ZTS4Bump(ptr byval({ ptr addrspace(4), i32 }) align 8 %c) #1 {
  %out = load ptr addrspace(4), ptr %c
  %step.p = getelementptr inbounds { ptr addrspace(4), i32 }, ptr %c, i64 0, i32 1
  %step = load i32, ptr %step.p
  %v = load i32, ptr addrspace(1) @Counter
  %n = add i32 %v, %step
  store i32 %n, ptr addrspace(1) @Counter
  store i32 %n, ptr addrspace(4) %out
  ret void
}

attributes #0 = { "sycl-unique-id"="Counter" "sycl-uid-kind"="device_global" "sycl-device-global-size"="4" }
attributes #1 = { "sycl-module-id"="kernels.cpp" }
