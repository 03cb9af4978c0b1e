; A device library: definitions taken on demand, a weak one like intel's libdevice.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

define spir_func i32 @_Z10lib_doublei(i32 %x) {
  %r = shl i32 %x, 1
  ret i32 %r
}

define weak spir_func i32 @__devicelib_clamp(i32 %x) {
  %c = icmp slt i32 %x, 0
  %r = select i1 %c, i32 0, i32 %x
  ret i32 %r
}

define spir_func i32 @_Z10lib_unusedi(i32 %x) {
  ret i32 %x
}

define spir_kernel void @_ZTS15KLibraryOwn() {
  ret void
}
