; Compiled at -O0, as clang marks it: every definition optnone (and noinline), no
; "sycl-optlevel". Its image's optLevel is 0 whatever the link's -O.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_func void @_Z6storeOPi(ptr addrspace(1) %p) #0 {
  store i32 0, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @_ZTS3KO0(ptr addrspace(1) %p) #0 {
  call spir_func void @_Z6storeOPi(ptr addrspace(1) %p)
  ret void
}

attributes #0 = { noinline optnone }
