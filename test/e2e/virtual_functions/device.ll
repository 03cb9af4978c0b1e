; Seed 002's example as the IR DPC++ would emit: Base::foo in virtual-function set
; "set_default", Base::bar in "set_fp64" (it uses double: aspect fp64, number 6). Both
; kernels build the object (store the vtable) and call through it: UseFoo calls set_default,
; UseBar calls set_fp64. The host is host.c.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

%Captures = type { ptr addrspace(4), ptr addrspace(4) } ; int *out; void **object

@_ZTV4Base = linkonce_odr addrspace(1) constant [2 x ptr] [ptr @_ZN4Base3fooEi, ptr @_ZN4Base3barEi]

declare spir_func i64 @__spirv_BuiltInGlobalInvocationId(i32)

define spir_func i32 @_ZN4Base3fooEi(i32 %i) #0 {
  %r = add i32 %i, 100
  ret i32 %r
}

define spir_func i32 @_ZN4Base3barEi(i32 %i) #1 !sycl_used_aspects !0 {
  %d = sitofp i32 %i to double
  %m = fmul double %d, 1.5
  %r = fptosi double %m to i32
  ret i32 %r
}

; Stores the vtable into the object, reads it back (volatile: no devirtualization) and calls
; entry SLOT for every work-item.
define internal spir_func void @call_virtual(ptr byval(%Captures) %c, i64 %slot) {
  %out.p = getelementptr %Captures, ptr %c, i32 0, i32 0
  %out = load ptr addrspace(4), ptr %out.p
  %obj.p = getelementptr %Captures, ptr %c, i32 0, i32 1
  %obj = load ptr addrspace(4), ptr %obj.p
  store ptr addrspace(4) addrspacecast (ptr addrspace(1) @_ZTV4Base to ptr addrspace(4)), ptr addrspace(4) %obj
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

define spir_kernel void @_ZTS6UseFoo(ptr byval(%Captures) align 8 %c) #2 {
  call spir_func void @call_virtual(ptr byval(%Captures) %c, i64 0)
  ret void
}

define spir_kernel void @_ZTS6UseBar(ptr byval(%Captures) align 8 %c) #3 {
  call spir_func void @call_virtual(ptr byval(%Captures) %c, i64 1)
  ret void
}

attributes #0 = { "indirectly-callable"="set_default" }
attributes #1 = { "indirectly-callable"="set_fp64" }
attributes #2 = { "calls-indirectly"="set_default" }
attributes #3 = { "calls-indirectly"="set_fp64" }

!0 = !{i32 6}
