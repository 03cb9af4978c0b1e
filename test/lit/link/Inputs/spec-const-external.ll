; A SYCL_EXTERNAL function reading an int specialization constant (default 42).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

%"spec_id.int" = type { i32 }
@__usid_str = private unnamed_addr constant [11 x i8] c"uid____int\00", align 1
@int_id = internal addrspace(1) constant %"spec_id.int" { i32 42 }, align 4

define spir_func i32 @ext_read() #0 {
  %i = call spir_func i32 @_Z37__sycl_getScalar2020SpecConstantValueIiET_PKcPKvS4_(ptr addrspace(4) addrspacecast (ptr @__usid_str to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @int_id to ptr addrspace(4)), ptr addrspace(4) null)
  ret i32 %i
}

declare spir_func i32 @_Z37__sycl_getScalar2020SpecConstantValueIiET_PKcPKvS4_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))

attributes #0 = { "sycl-module-id"="e.cpp" }
