; Seed 002's example after the compile-time split would have outlined nothing yet: Base::foo
; in set "set_default" (with a helper), Base::bar in "set_fp64" (it uses double). UseFoo
; calls foo through the vtable and also directly (a devirtualized call); UseBar calls bar.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

@_ZTV4Base = linkonce_odr addrspace(1) constant [2 x ptr] [ptr @_ZN4Base3fooEi, ptr @_ZN4Base3barEi]

define spir_func i32 @_ZN4Base3fooEi(i32 %i) #0 {
  %h = call spir_func i32 @_Z10foo_helperi(i32 %i)
  ret i32 %h
}

define internal spir_func i32 @_Z10foo_helperi(i32 %i) {
  %r = add i32 %i, 100
  ret i32 %r
}

define spir_func i32 @_ZN4Base3barEi(i32 %i) #1 {
  %d = sitofp i32 %i to double
  %m = fmul double %d, 1.5
  %r = fptosi double %m to i32
  ret i32 %r
}

define spir_kernel void @_ZTS6UseFoo(ptr addrspace(1) %obj, ptr addrspace(1) %out) #2 {
  store ptr addrspace(1) @_ZTV4Base, ptr addrspace(1) %obj
  %vtable = load volatile ptr addrspace(1), ptr addrspace(1) %obj
  %fn = load ptr, ptr addrspace(1) %vtable
  %a = call spir_func i32 %fn(i32 1)
  %b = call spir_func i32 @_ZN4Base3fooEi(i32 2)
  %s = add i32 %a, %b
  store i32 %s, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @_ZTS6UseBar(ptr addrspace(1) %obj, ptr addrspace(1) %out) #3 {
  store ptr addrspace(1) @_ZTV4Base, ptr addrspace(1) %obj
  %vtable = load volatile ptr addrspace(1), ptr addrspace(1) %obj
  %at = getelementptr ptr, ptr addrspace(1) %vtable, i64 1
  %fn = load ptr, ptr addrspace(1) %at
  %r = call spir_func i32 %fn(i32 3)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "indirectly-callable"="set_default" }
attributes #1 = { "indirectly-callable"="set_fp64" }
attributes #2 = { "calls-indirectly"="set_default" }
attributes #3 = { "calls-indirectly"="set_fp64" }
