; Seed 000, the application: its kernel calls LibDeviceFunc, which a shared library defines.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func i32 @_Z13LibDeviceFunci(i32)

define spir_kernel void @_ZTS9AppKernel(ptr addrspace(1) %out) {
  %i = load i32, ptr addrspace(1) %out
  %r = call spir_func i32 @_Z13LibDeviceFunci(i32 %i)
  store i32 %r, ptr addrspace(1) %out
  ret void
}
