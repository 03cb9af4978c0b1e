; SYCL 2020 specialization constants as DPC++'s front end leaves them: a half, an int (read
; twice, in two kernels), a bool (i8 storage), a struct {i32, i8} returned through sret (tail
; padding), and a struct {float, [2 x i32]} returned by value.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

%"spec_id.half" = type { half }
%"spec_id.int" = type { i32 }
%"spec_id.bool" = type { i8 }
%struct.Pad = type { i32, i8 }
%"spec_id.Pad" = type { %struct.Pad }
%struct.Arr = type { float, [2 x i32] }
%"spec_id.Arr" = type { %struct.Arr }

@__usid_str = private unnamed_addr constant [12 x i8] c"uid____half\00", align 1
@__usid_str.1 = private unnamed_addr constant [11 x i8] c"uid____int\00", align 1
@__usid_str.2 = private unnamed_addr constant [12 x i8] c"uid____bool\00", align 1
@__usid_str.3 = private unnamed_addr constant [11 x i8] c"uid____pad\00", align 1
@__usid_str.4 = private unnamed_addr constant [11 x i8] c"uid____arr\00", align 1
@half_id = internal addrspace(1) constant %"spec_id.half" { half 0xH3C00 }, align 2
@int_id = internal addrspace(1) constant %"spec_id.int" { i32 42 }, align 4
@bool_id = internal addrspace(1) constant %"spec_id.bool" { i8 1 }, align 1
@pad_id = internal addrspace(1) constant %"spec_id.Pad" { %struct.Pad { i32 7, i8 99 } }, align 4
@arr_id = internal addrspace(1) constant %"spec_id.Arr" zeroinitializer, align 4

define spir_kernel void @K1(ptr addrspace(1) %out, ptr addrspace(1) %buf) #0 {
  %h = call spir_func half @_Z37__sycl_getScalar2020SpecConstantValueIDhET_PKcPKvS4_(ptr addrspace(4) addrspacecast (ptr @__usid_str to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @half_id to ptr addrspace(4)), ptr addrspace(4) null)
  %i = call spir_func i32 @_Z37__sycl_getScalar2020SpecConstantValueIiET_PKcPKvS4_(ptr addrspace(4) addrspacecast (ptr @__usid_str.1 to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @int_id to ptr addrspace(4)), ptr addrspace(4) null)
  %b = call spir_func zeroext i1 @_Z37__sycl_getScalar2020SpecConstantValueIbET_PKcPKvS4_(ptr addrspace(4) addrspacecast (ptr @__usid_str.2 to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @bool_id to ptr addrspace(4)), ptr addrspace(4) null)
  %tmp = alloca %struct.Pad, align 4
  %tmp.as = addrspacecast ptr %tmp to ptr addrspace(4)
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI3PadET_PKcPKvS4_(ptr addrspace(4) sret(%struct.Pad) align 4 %tmp.as, ptr addrspace(4) addrspacecast (ptr @__usid_str.3 to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @pad_id to ptr addrspace(4)), ptr addrspace(4) null)
  %a = call spir_func %struct.Arr @_Z40__sycl_getComposite2020SpecConstantValueI3ArrET_PKcPKvS4_(ptr addrspace(4) addrspacecast (ptr @__usid_str.4 to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @arr_id to ptr addrspace(4)), ptr addrspace(4) null)
  %hf = fpext half %h to float
  store float %hf, ptr addrspace(1) %out
  store i32 %i, ptr addrspace(1) %out
  %p = load i32, ptr %tmp
  store i32 %p, ptr addrspace(1) %out
  %bz = zext i1 %b to i32
  store i32 %bz, ptr addrspace(1) %out
  %af = extractvalue %struct.Arr %a, 0
  store float %af, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @K2(ptr addrspace(1) %out) #0 {
  %i = call spir_func i32 @_Z37__sycl_getScalar2020SpecConstantValueIiET_PKcPKvS4_(ptr addrspace(4) addrspacecast (ptr @__usid_str.1 to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @int_id to ptr addrspace(4)), ptr addrspace(4) null)
  store i32 %i, ptr addrspace(1) %out
  ret void
}

declare spir_func half @_Z37__sycl_getScalar2020SpecConstantValueIDhET_PKcPKvS4_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func i32 @_Z37__sycl_getScalar2020SpecConstantValueIiET_PKcPKvS4_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func zeroext i1 @_Z37__sycl_getScalar2020SpecConstantValueIbET_PKcPKvS4_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI3PadET_PKcPKvS4_(ptr addrspace(4) sret(%struct.Pad) align 4, ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func %struct.Arr @_Z40__sycl_getComposite2020SpecConstantValueI3ArrET_PKcPKvS4_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))

attributes #0 = { "sycl-module-id"="a.cpp" }
