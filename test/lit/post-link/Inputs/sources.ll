; Two translation units linked: a.cpp has kernels kA and kZ and the SYCL_EXTERNAL function
; ext, b.cpp has kernel kB. helper has no sycl-module-id: it is no entry point anywhere.
target triple = "spir64-unknown-unknown"

@table = internal addrspace(1) constant [2 x i32] [i32 1, i32 2]
@llvm.used = appending global [3 x ptr] [ptr @kZ, ptr @kA, ptr @kB], section "llvm.metadata"

define spir_func i32 @helper(i32 %x) {
  %p = getelementptr [2 x i32], ptr addrspace(1) @table, i64 0, i64 1
  %v = load i32, ptr addrspace(1) %p
  %r = add i32 %x, %v
  ret i32 %r
}

define spir_kernel void @kZ() #0 {
  %r = call spir_func i32 @helper(i32 1)
  ret void
}

define spir_func i32 @ext(i32 %x) #0 {
  %r = call spir_func i32 @helper(i32 %x)
  ret i32 %r
}

define spir_kernel void @kB() #1 {
  %r = call spir_func i32 @ext(i32 2)
  ret void
}

define spir_kernel void @kA() #0 {
  %r = call spir_func i32 @ext(i32 3)
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }
attributes #1 = { "sycl-module-id"="b.cpp" }
