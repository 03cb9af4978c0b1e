; Virtual functions of set "setA" (bar uses fp64), a kernel that calls through the set and
; creates objects (its vtable names foo and bar), a kernel that does neither, and a
; SYCL_EXTERNAL function. kUse carries the set's fp64 as DPC++'s compile-time aspect
; propagation leaves it (sycl-post-link propagates nothing).
target triple = "spir64-unknown-unknown"

@vtable = linkonce_odr addrspace(1) constant { [2 x ptr addrspace(4)] } { [2 x ptr addrspace(4)] [ptr addrspace(4) addrspacecast (ptr @foo to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr @bar to ptr addrspace(4))] }, align 8

define linkonce_odr spir_func void @foo() #0 {
  ret void
}

define linkonce_odr spir_func void @bar() #0 !sycl_used_aspects !1 {
  %x = alloca double
  ret void
}

define spir_kernel void @kUse(ptr addrspace(1) %out) #1 !sycl_used_aspects !1 {
  store ptr addrspace(1) @vtable, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @kPlain() #2 {
  ret void
}

define spir_func void @ext() #2 {
  ret void
}

attributes #0 = { "indirectly-callable"="setA" "sycl-module-id"="v.cpp" }
attributes #1 = { "calls-indirectly"="setA" "sycl-module-id"="v.cpp" }
attributes #2 = { "sycl-module-id"="v.cpp" }

!1 = !{!2}
!2 = !{!"fp64", i32 6}
