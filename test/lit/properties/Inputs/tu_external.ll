; The other translation unit: the SYCL_EXTERNAL function, calling the math and assert
; fallback libraries.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func float @__devicelib_expf(float)
declare spir_func void @__devicelib_assert_fail(ptr addrspace(4), ptr addrspace(4), i32, ptr addrspace(4), i64, i64, i64, i64, i64, i64)

define spir_func float @_Z8externalf(float %x) {
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %fail, label %ok
fail:
  call spir_func void @__devicelib_assert_fail(ptr addrspace(4) null, ptr addrspace(4) null, i32 0, ptr addrspace(4) null, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0)
  br label %ok
ok:
  %e = call spir_func float @__devicelib_expf(float %x)
  ret float %e
}
