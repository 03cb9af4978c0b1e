; A kernel that reads an int specialization constant through a SYCL_EXTERNAL function of
; another unit (spec-const-external.ll), and a second kernel with a constant of its own.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

%struct.P = type { i32, float }
%"spec_id.P" = type { %struct.P }
@__usid_str = private unnamed_addr constant [9 x i8] c"uid____p\00", align 1
@p_id = internal addrspace(1) constant %"spec_id.P" { %struct.P { i32 3, float 2.5 } }, align 4

define spir_kernel void @KExt(ptr addrspace(1) %out) #0 {
  %v = call spir_func i32 @ext_read()
  store i32 %v, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @KOwn(ptr addrspace(1) %out) #1 {
  %p = call spir_func %struct.P @_Z40__sycl_getComposite2020SpecConstantValueI1PET_PKcPKvS4_(ptr addrspace(4) addrspacecast (ptr @__usid_str to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @p_id to ptr addrspace(4)), ptr addrspace(4) null)
  %f = extractvalue %struct.P %p, 1
  store float %f, ptr addrspace(1) %out
  ret void
}

declare spir_func i32 @ext_read()
declare spir_func %struct.P @_Z40__sycl_getComposite2020SpecConstantValueI1PET_PKcPKvS4_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))

attributes #0 = { "sycl-module-id"="k.cpp" }
attributes #1 = { "sycl-module-id"="own.cpp" }
