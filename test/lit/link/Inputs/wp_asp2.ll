; Unit 2: the helper, small enough to inline, uses aspect 8 (atomic64) by its metadata.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

define spir_func i32 @_Z6helperi(i32 %i) #0 !sycl_used_aspects !0 {
  %r = add i32 %i, 1
  ret i32 %r
}

attributes #0 = { "sycl-module-id"="asp2.cpp" }
!0 = !{i32 8}
