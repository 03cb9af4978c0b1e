; Device globals the kernel never touches: only the host reaches them (by their unique id),
; so the link must keep them, external, in the image that defines them.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

%"class.sycl::_V1::ext::oneapi::experimental::device_global" = type { i32 }

@counter = addrspace(1) global %"class.sycl::_V1::ext::oneapi::experimental::device_global" zeroinitializer #0
@table = addrspace(1) global [4 x i32] [i32 1, i32 2, i32 3, i32 4]

define spir_kernel void @_ZTS8KNoTouch(ptr addrspace(1) %out) {
  store i32 7, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "sycl-unique-id"="uid_counter" "sycl-device-global-size"="4" }
