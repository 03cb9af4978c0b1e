; A device_global with the device_image_scope property, used by two kernels (one of them
; through a helper): they must share an image. A plain device global may be anywhere.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

@_ZL6scoped = internal addrspace(1) global i32 0 #0
@_ZL6shared = internal addrspace(1) global i32 0 #1

define spir_kernel void @_ZTS6Writer(i32 %v) #2 {
  store i32 %v, ptr addrspace(1) @_ZL6scoped
  store i32 %v, ptr addrspace(1) @_ZL6shared
  ret void
}

define spir_kernel void @_ZTS6Reader(ptr addrspace(1) %out) #2 {
  %v = call spir_func i32 @_Z4readv()
  store i32 %v, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS5Other(ptr addrspace(1) %out) #2 {
  %v = load i32, ptr addrspace(1) @_ZL6shared
  store i32 %v, ptr addrspace(1) %out
  ret void
}

define internal spir_func i32 @_Z4readv() {
  %v = load i32, ptr addrspace(1) @_ZL6scoped
  ret i32 %v
}

attributes #0 = { "sycl-device-global-size"="4" "sycl-device-image-scope" "sycl-unique-id"="THE_SCOPED_ID" }
attributes #1 = { "sycl-device-global-size"="4" "sycl-unique-id"="THE_SHARED_ID" }
attributes #2 = { "sycl-module-id"="dg.cpp" }
