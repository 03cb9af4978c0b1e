; The device_image_scope property on a global that is no device_global (no
; "sycl-device-global-size"), used by kernels of two sources.
target triple = "spir64-unknown-unknown"

@notdg = linkonce_odr addrspace(1) global i32 0, align 4 #0

define spir_kernel void @kWrite() #1 {
  store i32 1, ptr addrspace(1) @notdg
  ret void
}

define spir_kernel void @kRead() #2 {
  %v = load i32, ptr addrspace(1) @notdg
  ret void
}

attributes #0 = { "sycl-unique-id"="uid_notdg" "sycl-device-image-scope" }
attributes #1 = { "sycl-module-id"="w.cpp" }
attributes #2 = { "sycl-module-id"="r.cpp" }
