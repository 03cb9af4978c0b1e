; Seed 002: the UseFP64 kernel calls functions of set_fp64; the split propagated the set's
; aspect (fp64, 6) to it.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @_ZTS7UseFP64(ptr addrspace(1) %obj) #0 !sycl_used_aspects !1 {
  %vtable = load ptr addrspace(1), ptr addrspace(1) %obj
  %slot = getelementptr inbounds i8, ptr addrspace(1) %vtable, i64 8
  %fn = load ptr, ptr addrspace(1) %slot
  call spir_func void %fn()
  ret void
}

attributes #0 = { "calls-indirectly"="set_fp64" }

!sycl-split = !{!0}
!0 = !{!"kernel"}
!1 = !{i32 6}
