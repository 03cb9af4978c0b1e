; Unit 1 of seed 002's example spread over two translation units (issue 14): the classes'
; virtual functions and the function building an object. Base::foo is in virtual-function
; set "set_default", Base::bar in "set_fp64" (it uses double: aspect fp64, number 6, from
; its type alone here: no !sycl_used_aspects). The kernels are in kernels.ll.
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

; SYCL_EXTERNAL void make(Base *obj): constructs the object (stores its vtable).
define spir_func void @_Z4makeP4Base(ptr addrspace(4) %obj) #2 {
  store ptr addrspace(4) addrspacecast (ptr addrspace(1) @_ZTV4Base to ptr addrspace(4)), ptr addrspace(4) %obj
  ret void
}

attributes #0 = { "indirectly-callable"="set_default" "sycl-module-id"="sets.cpp" }
attributes #1 = { "indirectly-callable"="set_fp64" "sycl-module-id"="sets.cpp" }
attributes #2 = { "sycl-module-id"="sets.cpp" }
