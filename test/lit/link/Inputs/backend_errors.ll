; Kernels of three units (three images): one the SPIR-V backend stops with a fatal error
; (inline assembly needs SPV_INTEL_inline_assembly, which the link does not enable), one it
; rejects with an error diagnostic (SPIR-V has no variadic functions), and one it compiles.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

define spir_kernel void @_ZTS3Asm(ptr addrspace(1) %out) #0 {
  call void asm sideeffect "nop", ""()
  store i32 1, ptr addrspace(1) %out
  ret void
}

define internal spir_func i32 @sum(i32 %n, ...) #3 {
  ret i32 %n
}

define spir_kernel void @_ZTS8Variadic(ptr addrspace(1) %out) #1 {
  %v = call spir_func i32 (i32, ...) @sum(i32 1, i32 2)
  store i32 %v, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS4Good(ptr addrspace(1) %out) #2 {
  store i32 3, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "sycl-module-id"="asm.cpp" }
attributes #1 = { "sycl-module-id"="variadic.cpp" }
attributes #2 = { "sycl-module-id"="good.cpp" }
attributes #3 = { noinline optnone }
