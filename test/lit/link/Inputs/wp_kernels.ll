; Unit 2: kernels calling the sets of unit 1 through the object's vtable, and a plain kernel.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func void @_Z4makePU3AS1Pv(ptr addrspace(1))

define spir_kernel void @_ZTS6UseFoo(ptr addrspace(1) %obj, ptr addrspace(1) %out) #0 {
  call spir_func void @_Z4makePU3AS1Pv(ptr addrspace(1) %obj)
  %vtable = load volatile ptr addrspace(1), ptr addrspace(1) %obj
  %fn = load ptr, ptr addrspace(1) %vtable
  %a = call spir_func i32 %fn(i32 1)
  store i32 %a, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS6UseBar(ptr addrspace(1) %obj, ptr addrspace(1) %out) #1 {
  call spir_func void @_Z4makePU3AS1Pv(ptr addrspace(1) %obj)
  %vtable = load volatile ptr addrspace(1), ptr addrspace(1) %obj
  %at = getelementptr ptr, ptr addrspace(1) %vtable, i64 1
  %fn = load ptr, ptr addrspace(1) %at
  %r = call spir_func i32 %fn(i32 3)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS5Plain(ptr addrspace(1) %out) #2 {
  store i32 7, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "calls-indirectly"="set_default" "sycl-module-id"="kernels.cpp" }
attributes #1 = { "calls-indirectly"="set_fp64" "sycl-module-id"="kernels.cpp" }
attributes #2 = { "sycl-module-id"="kernels.cpp" }
