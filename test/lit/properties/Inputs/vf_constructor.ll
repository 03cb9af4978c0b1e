; Seed 002, as the split leaves it: the Constructor kernel's image. It creates a Base, whose
; vtable names foo (set_default) and bar (set_fp64); their bodies live in set images.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

@_ZTV4Base = linkonce_odr addrspace(1) constant { [4 x ptr addrspace(4)] } { [4 x ptr addrspace(4)] [ptr addrspace(4) null, ptr addrspace(4) null, ptr addrspace(4) addrspacecast (ptr @_ZN4Base3fooEv to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr @_ZN4Base3barEv to ptr addrspace(4))] }

declare spir_func void @_ZN4Base3fooEv() #0
declare spir_func void @_ZN4Base3barEv() #1

define spir_kernel void @_ZTS11Constructor(ptr addrspace(1) %obj) {
  store ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @_ZTV4Base, i64 16), ptr addrspace(1) %obj
  ret void
}

attributes #0 = { "indirectly-callable"="set_default" }
attributes #1 = { "indirectly-callable"="set_fp64" }

!sycl-split = !{!0}
!0 = !{!"kernel"}
