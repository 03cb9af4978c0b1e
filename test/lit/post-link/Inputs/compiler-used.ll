; No entry point, so the module is kept whole. llvm.used names a function; llvm.compiler.used
; keeps two weak_odr device_globals (one used by that function, one by nothing) and a plain
; variable alive.
target triple = "spir64-unknown-unknown"

@llvm.used = appending global [1 x ptr] [ptr @f], section "llvm.metadata"
@llvm.compiler.used = appending global [3 x ptr addrspace(4)] [ptr addrspace(4) addrspacecast (ptr addrspace(1) @dgUsed to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @dgUnused to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @other to ptr addrspace(4))], section "llvm.metadata"

@dgUsed = weak_odr addrspace(1) global i32 0, align 4 #0
@dgUnused = weak_odr addrspace(1) global i32 0, align 4 #1
@other = internal addrspace(1) global i8 0

define weak_odr spir_func void @f() {
  store i32 1, ptr addrspace(1) @dgUsed
  ret void
}

attributes #0 = { "sycl-unique-id"="uid_used" "sycl-device-global-size"="4" }
attributes #1 = { "sycl-unique-id"="uid_unused" "sycl-device-global-size"="4" }
