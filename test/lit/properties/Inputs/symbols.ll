; Exports and imports of one image. Exported: the SYCL_EXTERNAL definition. Not exported:
; the kernel, an indirectly-callable definition. Imported: the plain declaration only.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func i32 @_Z9from_elsei(i32)
declare spir_func i32 @_Z8__insidev()
declare spir_func i32 @_ZN7__spirv8internalEv()
declare spir_func i32 @__spirv_BuiltInSubgroupId()
declare spir_func i32 @_Z25__spirv_BuiltInSubgroupIdv()
declare spir_func i32 @__sycl_builtin(i32)
declare spir_func i32 @__anything_reserved(i32)
declare spir_func void @_Z7virtualv() #0
declare i32 @llvm.umax.i32(i32, i32)

define spir_func i32 @_Z8exportedi(i32 %x) {
  %a = call spir_func i32 @_Z9from_elsei(i32 %x)
  %b = call spir_func i32 @_Z8__insidev()
  %c = call spir_func i32 @_ZN7__spirv8internalEv()
  %d = call spir_func i32 @__spirv_BuiltInSubgroupId()
  %e = call spir_func i32 @_Z25__spirv_BuiltInSubgroupIdv()
  %f = call spir_func i32 @__sycl_builtin(i32 %a)
  %g = call spir_func i32 @__anything_reserved(i32 %b)
  call spir_func void @_Z7virtualv()
  %s1 = add i32 %a, %b
  %s2 = add i32 %s1, %c
  %s3 = add i32 %s2, %d
  %s4 = add i32 %s3, %e
  %s5 = add i32 %s4, %f
  %s6 = call i32 @llvm.umax.i32(i32 %s5, i32 %g)
  ret i32 %s6
}

define spir_func void @_Z11vf_definedv() #0 {
  ret void
}

@table = addrspace(1) constant [1 x ptr] [ptr @_Z11vf_definedv]

define spir_kernel void @_ZTS7KSymbol(ptr addrspace(1) %out) {
  %v = call spir_func i32 @_Z8exportedi(i32 1)
  store i32 %v, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "indirectly-callable"="set_a" }
