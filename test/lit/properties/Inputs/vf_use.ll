; Seed 002: the Use kernel calls through the vtable, functions of set_default only.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @_ZTS3Use(ptr addrspace(1) %obj) #0 {
  %vtable = load ptr addrspace(1), ptr addrspace(1) %obj
  %fn = load ptr, ptr addrspace(1) %vtable
  call spir_func void %fn()
  ret void
}

attributes #0 = { "calls-indirectly"="set_default" }

!sycl-split = !{!0}
!0 = !{!"kernel"}
