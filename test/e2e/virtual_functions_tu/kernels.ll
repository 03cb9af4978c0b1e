; Unit 2 (issue 14): kernels using the classes of sets.ll, which they only declare. UseFoo
; and UseBar build an object with make() and call through its vtable (set_default and
; set_fp64); Plain uses neither. The host is host.c.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

%Captures = type { ptr addrspace(4), ptr addrspace(4) } ; int *out; void **object

declare spir_func i64 @__spirv_BuiltInGlobalInvocationId(i32)
declare spir_func void @_Z4makeP4Base(ptr addrspace(4))

; Builds the object, reads its vtable back (volatile: no devirtualization) and calls entry
; SLOT for every work-item.
define internal spir_func void @call_virtual(ptr byval(%Captures) %c, i64 %slot) {
  %out.p = getelementptr %Captures, ptr %c, i32 0, i32 0
  %out = load ptr addrspace(4), ptr %out.p
  %obj.p = getelementptr %Captures, ptr %c, i32 0, i32 1
  %obj = load ptr addrspace(4), ptr %obj.p
  call spir_func void @_Z4makeP4Base(ptr addrspace(4) %obj)
  %vptr = load volatile ptr addrspace(4), ptr addrspace(4) %obj
  %slot.p = getelementptr ptr, ptr addrspace(4) %vptr, i64 %slot
  %fn = load ptr, ptr addrspace(4) %slot.p
  %id = call spir_func i64 @__spirv_BuiltInGlobalInvocationId(i32 0)
  %i = trunc i64 %id to i32
  %r = call spir_func i32 %fn(i32 %i)
  %dst = getelementptr i32, ptr addrspace(4) %out, i64 %id
  store i32 %r, ptr addrspace(4) %dst
  ret void
}

define spir_kernel void @_ZTS6UseFoo(ptr byval(%Captures) align 8 %c) #0 {
  call spir_func void @call_virtual(ptr byval(%Captures) %c, i64 0)
  ret void
}

define spir_kernel void @_ZTS6UseBar(ptr byval(%Captures) align 8 %c) #1 {
  call spir_func void @call_virtual(ptr byval(%Captures) %c, i64 1)
  ret void
}

; out[i] = i + 7, without objects.
define spir_kernel void @_ZTS5Plain(ptr byval(%Captures) align 8 %c) #2 {
  %out.p = getelementptr %Captures, ptr %c, i32 0, i32 0
  %out = load ptr addrspace(4), ptr %out.p
  %id = call spir_func i64 @__spirv_BuiltInGlobalInvocationId(i32 0)
  %i = trunc i64 %id to i32
  %r = add i32 %i, 7
  %dst = getelementptr i32, ptr addrspace(4) %out, i64 %id
  store i32 %r, ptr addrspace(4) %dst
  ret void
}

attributes #0 = { "calls-indirectly"="set_default" "sycl-module-id"="kernels.cpp" }
attributes #1 = { "calls-indirectly"="set_fp64" "sycl-module-id"="kernels.cpp" }
attributes #2 = { "sycl-module-id"="kernels.cpp" }
