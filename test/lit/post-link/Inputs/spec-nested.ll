; A specialization constant whose struct holds a struct: Outer {i32, Inner {i8, float}, i16},
; padding inside the inner struct (3 bytes after the i8) and at the outer struct's tail (2).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

%struct.Inner = type { i8, float }
%struct.Outer = type { i32, %struct.Inner, i16 }
%"spec_id.Outer" = type { %struct.Outer }

@__usid_str = private unnamed_addr constant [13 x i8] c"uid____outer\00", align 1
@outer_id = internal addrspace(1) constant %"spec_id.Outer" { %struct.Outer { i32 1, %struct.Inner { i8 2, float 3.0 }, i16 4 } }, align 4

define spir_kernel void @KN(ptr addrspace(1) %out) #0 {
  %o = call spir_func %struct.Outer @_Z40__sycl_getComposite2020SpecConstantValueI5OuterET_PKcPKvS4_(ptr addrspace(4) addrspacecast (ptr @__usid_str to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @outer_id to ptr addrspace(4)), ptr addrspace(4) null)
  store %struct.Outer %o, ptr addrspace(1) %out, align 4
  ret void
}

declare spir_func %struct.Outer @_Z40__sycl_getComposite2020SpecConstantValueI5OuterET_PKcPKvS4_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))

attributes #0 = { "sycl-module-id"="n.cpp" }
