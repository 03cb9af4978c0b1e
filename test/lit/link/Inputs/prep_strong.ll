; The strong definition of maybe_weak, and a kernel of its own (spir64's triple).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

define spir_func i32 @maybe_weak(i32 %x) {
  %r = mul i32 %x, 100
  ret i32 %r
}

define spir_kernel void @_ZTS7KStrong(ptr addrspace(1) %out) {
  %v = call spir_func i32 @maybe_weak(i32 4)
  store i32 %v, ptr addrspace(1) %out
  ret void
}
