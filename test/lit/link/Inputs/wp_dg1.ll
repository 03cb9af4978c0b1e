; Unit 1: defines a device_global with device_image_scope and a kernel writing it.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

@scoped = addrspace(1) global i32 0 #0

define spir_kernel void @_ZTS6Writer(i32 %v) #1 {
  store i32 %v, ptr addrspace(1) @scoped
  ret void
}

attributes #0 = { "sycl-device-global-size"="4" "sycl-device-image-scope" "sycl-unique-id"="THE_SCOPED_ID" }
attributes #1 = { "sycl-module-id"="dg1.cpp" }
