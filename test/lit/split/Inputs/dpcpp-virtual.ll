; DPC++-style virtual functions (seed 002): Base::foo in set "set_a", Base::bar in set
; "set_fp64" (it computes with double). Construct only builds the object (vtable); UseA and
; UseFP64 call through it, declaring the sets they call with "calls-indirectly".
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

@_ZTV4Base = linkonce_odr addrspace(1) constant { [4 x ptr addrspace(4)] } { [4 x ptr addrspace(4)] [ptr addrspace(4) null, ptr addrspace(4) null, ptr addrspace(4) addrspacecast (ptr @_ZN4Base3fooEv to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr @_ZN4Base3barEv to ptr addrspace(4))] }

define spir_kernel void @_ZTS9Construct(ptr addrspace(1) %obj) #0 {
  store ptr addrspace(1) getelementptr inbounds (i8, ptr addrspace(1) @_ZTV4Base, i64 16), ptr addrspace(1) %obj
  ret void
}

define spir_kernel void @_ZTS4UseA(ptr addrspace(1) %obj) #1 {
  %vtable = load ptr addrspace(1), ptr addrspace(1) %obj
  %slot = load ptr, ptr addrspace(1) %vtable
  %this = addrspacecast ptr addrspace(1) %obj to ptr addrspace(4)
  call spir_func void %slot(ptr addrspace(4) %this)
  ret void
}

define spir_kernel void @_ZTS7UseFP64(ptr addrspace(1) %obj) #2 {
  %vtable = load ptr addrspace(1), ptr addrspace(1) %obj
  %at = getelementptr inbounds i8, ptr addrspace(1) %vtable, i64 8
  %slot = load ptr, ptr addrspace(1) %at
  %this = addrspacecast ptr addrspace(1) %obj to ptr addrspace(4)
  call spir_func void %slot(ptr addrspace(4) %this)
  ret void
}

define linkonce_odr spir_func void @_ZN4Base3fooEv(ptr addrspace(4) %this) #3 {
  %v = call spir_func i32 @_Z11foo_helperv()
  store i32 %v, ptr addrspace(4) %this
  ret void
}

define linkonce_odr spir_func void @_ZN4Base3barEv(ptr addrspace(4) %this) #4 {
  %d = load double, ptr addrspace(4) %this
  %e = fmul double %d, 3.140000e+00
  store double %e, ptr addrspace(4) %this
  ret void
}

define internal spir_func i32 @_Z11foo_helperv() {
  ret i32 42
}

attributes #0 = { "sycl-module-id"="vf.cpp" }
attributes #1 = { "sycl-module-id"="vf.cpp" "calls-indirectly"="set_a" }
attributes #2 = { "sycl-module-id"="vf.cpp" "calls-indirectly"="set_fp64" }
attributes #3 = { "sycl-module-id"="vf.cpp" "indirectly-callable"="set_a" }
attributes #4 = { "sycl-module-id"="vf.cpp" "indirectly-callable"="set_fp64" }
