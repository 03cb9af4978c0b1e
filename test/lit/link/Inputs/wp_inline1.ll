; Unit 1 of a program whose virtual functions are inline (defined in a header): each unit
; has its own linkonce_odr copy of Base::foo, Base::bar and the vtable.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

$_ZTV4Base = comdat any
@_ZTV4Base = linkonce_odr addrspace(1) constant [2 x ptr] [ptr @_ZN4Base3fooEi, ptr @_ZN4Base3barEi], comdat

define linkonce_odr spir_func i32 @_ZN4Base3fooEi(i32 %i) #0 {
  %r = add i32 %i, 100
  ret i32 %r
}

define linkonce_odr spir_func i32 @_ZN4Base3barEi(i32 %i) #1 {
  %d = sitofp i32 %i to double
  %m = fmul double %d, 1.5
  %r = fptosi double %m to i32
  ret i32 %r
}

define spir_kernel void @_ZTS5Use1(ptr addrspace(1) %obj, ptr addrspace(1) %out) #2 {
  store ptr addrspace(1) @_ZTV4Base, ptr addrspace(1) %obj
  %vtable = load volatile ptr addrspace(1), ptr addrspace(1) %obj
  %fn = load ptr, ptr addrspace(1) %vtable
  %a = call spir_func i32 %fn(i32 1)
  store i32 %a, ptr addrspace(1) %out
  ret void
}

attributes #0 = { "indirectly-callable"="set_default" }
attributes #1 = { "indirectly-callable"="set_fp64" }
attributes #2 = { "calls-indirectly"="set_default" "sycl-module-id"="inl1.cpp" }
