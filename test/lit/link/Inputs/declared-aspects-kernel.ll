; A kernel calling the helper of declared-aspects-helper.ll, which ThinLTO imports and inlines.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"
define spir_kernel void @KUse(ptr addrspace(1) %o) #0 {
  %v = call spir_func i32 @helper()
  store i32 %v, ptr addrspace(1) %o
  ret void
}
declare spir_func i32 @helper()
attributes #0 = { "sycl-module-id"="a.cpp" }
