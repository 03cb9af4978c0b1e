; DPC++ IR (functions carry sycl-module-id): only the SYCL_EXTERNAL function is exported,
; not the constructor, destructor or helper the front end emitted because it uses them, and
; only the SYCL_EXTERNAL declaration is imported.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func i32 @_Z9from_elsei(i32) #0
declare spir_func i32 @_Z10not_markedi(i32)

define spir_func void @_ZN4PairC2Ei(ptr addrspace(4) %this, i32 %x) #1 {
  store i32 %x, ptr addrspace(4) %this
  ret void
}

define spir_func void @_ZN4PairD2Ev(ptr addrspace(4) %this) #1 {
  store i32 0, ptr addrspace(4) %this
  ret void
}

define spir_func i32 @_Z6helperi(i32 %x) #1 {
  %a = call spir_func i32 @_Z10not_markedi(i32 %x)
  ret i32 %a
}

define spir_func i32 @_Z8exportedi(i32 %x) #0 {
  %p = alloca i32
  %g = addrspacecast ptr %p to ptr addrspace(4)
  call spir_func void @_ZN4PairC2Ei(ptr addrspace(4) %g, i32 %x)
  %v = load i32, ptr addrspace(4) %g
  call spir_func void @_ZN4PairD2Ev(ptr addrspace(4) %g)
  %h = call spir_func i32 @_Z6helperi(i32 %v)
  %e = call spir_func i32 @_Z9from_elsei(i32 %h)
  ret i32 %e
}

define spir_kernel void @_ZTS7KExport(ptr addrspace(1) %out) #0 {
  %v = call spir_func i32 @_Z8exportedi(i32 1)
  store i32 %v, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "sycl-module-id"="lib.cpp" }
attributes #1 = { noinline }
