; Device unit 1 of the device-globals program: defines the device global Counter (shared, 4
; bytes) and an anonymous-namespace one (device_image_scope, two doubles) its kernel reads.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

%"class.sycl::_V1::ext::oneapi::experimental::device_global" = type { i32 }
%"class.sycl::_V1::ext::oneapi::experimental::device_global.1" = type { [2 x double] }

@Counter = addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer #0
@_ZN12_GLOBAL__N_15FuBarE = internal addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global.1" zeroinitializer #1

; [=] { *out = FuBar[1]; } with captures { double *out }.
define spir_kernel void @_ZTS8ReadPair(ptr byval({ ptr addrspace(4) }) align 8 %c) #2 {
  %out = load ptr addrspace(4), ptr %c
  %second = getelementptr inbounds [2 x double], ptr addrspace(1) @_ZN12_GLOBAL__N_15FuBarE, i64 0, i64 1
  %v = load double, ptr addrspace(1) %second
  store double %v, ptr addrspace(4) %out
  ret void
}

attributes #0 = { "sycl-unique-id"="Counter" "sycl-uid-kind"="device_global" "sycl-device-global-size"="4" }
attributes #1 = { "sycl-unique-id"="3f1c9a2b5d7e8f60____ZN12_GLOBAL__N_15FuBarE" "sycl-uid-kind"="device_global" "sycl-device-global-size"="16" "sycl-device-image-scope" }
attributes #2 = { "sycl-module-id"="defs.cpp" }
