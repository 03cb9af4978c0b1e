; Unit 1: a kernel calling a SYCL_EXTERNAL helper defined in unit 2.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

declare spir_func i32 @_Z6helperi(i32)

define spir_kernel void @_ZTS4Kern(ptr addrspace(1) %out) #0 {
  %v = call spir_func i32 @_Z6helperi(i32 3)
  store i32 %v, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS5Plain(ptr addrspace(1) %out) #0 {
  store i32 7, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "sycl-module-id"="asp1.cpp" }
