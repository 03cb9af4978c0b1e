; Seed 002: the outlined image of set_fp64; bar uses double.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

@result = addrspace(1) global double 0.0

define spir_func void @_ZN4Base3barEv() #0 {
  store volatile double 3.14, ptr addrspace(1) @result
  ret void
}

attributes #0 = { "indirectly-callable"="set_fp64" }

!sycl-split = !{!0}
!0 = !{!"kernel"}
