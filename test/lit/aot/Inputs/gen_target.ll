; The device code of one source compiled for spir64_gen (AOT): ...,intel_gpu_pvc
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64_gen-unknown-unknown"
define spir_kernel void @_ZTS4KGen(ptr addrspace(1) %o) #0 {
  store i32 7, ptr addrspace(1) %o
  ret void
}
attributes #0 = { "sycl-module-id"="gen.cpp" }
