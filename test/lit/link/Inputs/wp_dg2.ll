; Unit 2: a kernel reading unit 1's device_image_scope global through a helper.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

@scoped = external addrspace(1) global i32 #0

define spir_kernel void @_ZTS6Reader(ptr addrspace(1) %out) #1 {
  %v = call spir_func i32 @_Z4readv()
  store i32 %v, ptr addrspace(1) %out
  ret void
}

define internal spir_func i32 @_Z4readv() {
  %v = load i32, ptr addrspace(1) @scoped
  ret i32 %v
}

attributes #0 = { "sycl-device-global-size"="4" "sycl-device-image-scope" "sycl-unique-id"="THE_SCOPED_ID" }
attributes #1 = { "sycl-module-id"="dg2.cpp" }
