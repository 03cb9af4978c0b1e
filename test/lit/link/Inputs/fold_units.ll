; Finalization folds only where the inliner may have changed something. @untouched calls
; nothing it could inline: its "add 0" stays as the compile job left it. @caller calls
; @tiny, which is inlined, and the pair folds to one multiplication.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define internal spir_func i32 @tiny(i32 %x) {
  %r = mul i32 %x, 3
  ret i32 %r
}

define internal spir_func i32 @caller(i32 %x) noinline {
  %a = call spir_func i32 @tiny(i32 %x)
  %b = add i32 %a, 0
  ret i32 %b
}

define internal spir_func i32 @untouched(i32 %x) noinline {
  %b = add i32 %x, 0
  ret i32 %b
}

define spir_kernel void @_ZTS5KFold(ptr addrspace(1) %out, i32 %n) {
  %v = call spir_func i32 @caller(i32 %n)
  %w = call spir_func i32 @untouched(i32 %n)
  %s = add i32 %v, %w
  store i32 %s, ptr addrspace(1) %out
  ret void
}
