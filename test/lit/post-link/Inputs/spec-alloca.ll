; sycl_ext_oneapi_private_alloca as DPC++'s front end leaves it: llvm.sycl.alloca.*(symbolic
; ID, specialization_id, buffer, a value of the element type, alignment), a private array whose
; length is a specialization constant. An i16 length for a struct array, then an i32 one.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

%"spec_id.short" = type { i16 }
%"spec_id.int" = type { i32 }
%pair = type { i32, float }

@__usid_str = private unnamed_addr constant [13 x i8] c"uid____count\00", align 1
@__usid_str.1 = private unnamed_addr constant [11 x i8] c"uid____len\00", align 1
@count_id = internal addrspace(1) constant %"spec_id.short" { i16 3 }, align 2
@len_id = internal addrspace(1) constant %"spec_id.int" { i32 16 }, align 4

define spir_kernel void @K(ptr addrspace(1) %out) #0 {
  %pairs = call ptr @llvm.sycl.alloca.p0.p4.p4.p4.s_pair(ptr addrspace(4) addrspacecast (ptr @__usid_str to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @count_id to ptr addrspace(4)), ptr addrspace(4) null, %pair zeroinitializer, i64 16)
  %floats = call ptr @llvm.sycl.alloca.p0.p4.p4.p4.f32(ptr addrspace(4) addrspacecast (ptr @__usid_str.1 to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @len_id to ptr addrspace(4)), ptr addrspace(4) null, float 0.000000e+00, i64 4)
  %f = load float, ptr %floats
  store float %f, ptr addrspace(1) %out
  %p = load i32, ptr %pairs
  store i32 %p, ptr addrspace(1) %out
  ret void
}

declare ptr @llvm.sycl.alloca.p0.p4.p4.p4.f32(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4), float, i64)
declare ptr @llvm.sycl.alloca.p0.p4.p4.p4.s_pair(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4), %pair, i64)

attributes #0 = { "sycl-module-id"="a.cpp" }
