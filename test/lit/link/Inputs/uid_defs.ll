; Unit 1 (no kernel): a device global, and an anonymous-namespace one (host access: read only)
; read by a SYCL_EXTERNAL function: ThinLTO promotes and renames it (.llvm.<hash>) when unit 2
; imports that function.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

%"class.sycl::_V1::ext::oneapi::experimental::device_global" = type { i32 }

@Counter = addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer #0
@_ZN12_GLOBAL__N_15FuBarE = internal addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer #1

define spir_func i32 @_Z9get_fubarv() #2 {
  %v = load i32, ptr addrspace(1) @_ZN12_GLOBAL__N_15FuBarE
  ret i32 %v
}

attributes #0 = { "sycl-unique-id"="uid_Counter" "sycl-uid-kind"="device_global" "sycl-device-global-size"="4" }
attributes #1 = { "sycl-unique-id"="uid_anon_FuBar" "sycl-uid-kind"="device_global" "sycl-device-global-size"="4" "sycl-host-access"="0" }
attributes #2 = { "sycl-module-id"="c.cpp" }
