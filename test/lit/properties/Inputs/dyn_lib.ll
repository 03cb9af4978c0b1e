; Seed 000, the shared library: LibDeviceFunc (SYCL_EXTERNAL) in an image of its own, which
; itself imports LibHelper from another image of the library.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func i32 @_Z9LibHelperi(i32)

define spir_func i32 @_Z13LibDeviceFunci(i32 %i) {
  %h = call spir_func i32 @_Z9LibHelperi(i32 %i)
  %r = mul i32 %h, 2
  ret i32 %r
}
