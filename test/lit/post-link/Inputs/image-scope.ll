; A device_global with the device_image_scope property, used by kernels of two sources, and a
; host pipe (a unique id, but no device_global size).
target triple = "spir64-unknown-unknown"

@scoped = linkonce_odr addrspace(1) global i32 0, align 4 #0
@pipe = linkonce_odr addrspace(1) global i32 0, align 4 #3

define spir_kernel void @kWrite() #1 {
  store i32 1, ptr addrspace(1) @scoped
  ret void
}

define spir_kernel void @kRead() #2 {
  %v = load i32, ptr addrspace(1) @scoped
  %p = load i32, ptr addrspace(1) @pipe
  ret void
}

attributes #0 = { "sycl-unique-id"="uid_scoped" "sycl-device-image-scope" "sycl-device-global-size"="4" }
attributes #1 = { "sycl-module-id"="w.cpp" }
attributes #2 = { "sycl-module-id"="r.cpp" }
attributes #3 = { "sycl-unique-id"="uid_pipe" "sycl-host-pipe" }
