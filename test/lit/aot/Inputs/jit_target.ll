; The device code of one source compiled for spir64 (JIT): intel's -fsycl-targets=spir64,...
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"
define spir_kernel void @_ZTS4KJit(ptr addrspace(1) %o) #0 {
  store i32 7, ptr addrspace(1) %o
  ret void
}
attributes #0 = { "sycl-module-id"="gen.cpp" }
