; Unit 1 of a program whose virtual functions live apart from its kernels: Base::foo in
; set "set_default", Base::bar in "set_fp64" (it uses double), and a SYCL_EXTERNAL maker
; that stores the vtable into an object.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

@_ZTV4Base = linkonce_odr addrspace(1) constant [2 x ptr] [ptr @_ZN4Base3fooEi, ptr @_ZN4Base3barEi]

define spir_func i32 @_ZN4Base3fooEi(i32 %i) #0 {
  %r = add i32 %i, 100
  ret i32 %r
}

define spir_func i32 @_ZN4Base3barEi(i32 %i) #1 {
  %d = sitofp i32 %i to double
  %m = fmul double %d, 1.5
  %r = fptosi double %m to i32
  ret i32 %r
}

define spir_func void @_Z4makePU3AS1Pv(ptr addrspace(1) %obj) #2 {
  store ptr addrspace(1) @_ZTV4Base, ptr addrspace(1) %obj
  ret void
}

attributes #0 = { "indirectly-callable"="set_default" "sycl-module-id"="sets.cpp" }
attributes #1 = { "indirectly-callable"="set_fp64" "sycl-module-id"="sets.cpp" }
attributes #2 = { "sycl-module-id"="sets.cpp" }
