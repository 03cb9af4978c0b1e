; Seed 002: the dummy of set_fp64: the same function with an empty body, marked as a dummy.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_func void @_ZN4Base3barEv() #0 {
  ret void
}

attributes #0 = { "indirectly-callable"="set_fp64" }

!sycl-split = !{!0}
!sycl-dummy-image = !{!1}
!0 = !{!"kernel"}
!1 = !{!"set_fp64"}
