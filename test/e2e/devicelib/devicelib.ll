; A device library like intel's libdevice: definitions taken on demand, a weak __devicelib_
; one among them, and a function nobody uses (never linked into an image).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_func i32 @_Z10lib_triplei(i32 %x) {
  %r = mul i32 %x, 3
  ret i32 %r
}

define weak spir_func i32 @__devicelib_clamp_to_byte(i32 %x) {
  %neg = icmp slt i32 %x, 0
  %big = icmp sgt i32 %x, 255
  %low = select i1 %neg, i32 0, i32 %x
  %r = select i1 %big, i32 255, i32 %low
  ret i32 %r
}

define spir_func i32 @_Z10lib_unusedi(i32 %x) {
  ret i32 %x
}
