; Seed 002: the outlined image of set_default (no optional features, so no dummy).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_func void @_ZN4Base3fooEv() #0 {
  ret void
}

attributes #0 = { "indirectly-callable"="set_default" }

!sycl-split = !{!0}
!0 = !{!"kernel"}
