; Two device globals (sycl-unique-id): one with device_image_scope, one without. Volatile
; loads keep them: the runtime reaches them through the host, which the IR does not show.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

%"class.sycl::_V1::ext::oneapi::experimental::device_global" = type { i32 }
%"class.sycl::_V1::ext::oneapi::experimental::device_global.0" = type { ptr addrspace(1) }

@scoped = addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer #0
@shared = addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global.0" zeroinitializer #1
@plain = addrspace(1) global i32 0

define spir_kernel void @_ZTS8KGlobals(ptr addrspace(1) %out) {
  %a = load volatile i32, ptr addrspace(1) @scoped
  %p = load volatile ptr addrspace(1), ptr addrspace(1) @shared
  %b = load i32, ptr addrspace(1) %p
  %c = load volatile i32, ptr addrspace(1) @plain
  %s = add i32 %a, %b
  %t = add i32 %s, %c
  store i32 %t, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "sycl-unique-id"="uid_scoped" "sycl-device-global-size"="4" "sycl-device-image-scope" }
attributes #1 = { "sycl-unique-id"="uid_shared" "sycl-device-global-size"="64" }
