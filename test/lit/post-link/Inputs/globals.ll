; Variables no kernel uses, of each kind of linkage: an external one, a weak table that
; names a function, a linkonce_odr one and an internal one; two kernels of two sources.
target triple = "spir64-unknown-unknown"

@ext_g = addrspace(1) global i32 1
@weak_table = weak addrspace(1) global [1 x ptr] [ptr @named]
@odr_g = linkonce_odr addrspace(1) global i32 2
@int_g = internal addrspace(1) global i32 3

define spir_func void @named() {
  ret void
}

define spir_kernel void @kA() #0 {
  ret void
}

define spir_kernel void @kB() #1 {
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }
attributes #1 = { "sycl-module-id"="b.cpp" }
