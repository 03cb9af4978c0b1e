; Host unit of the specialization-constants program, as DPC++'s host compiler would emit it
; (bitcode the linker-wrapper rewrites): the three specialization_id objects main.cpp and
; ext.cpp declare, marked with the unique IDs their device code uses (spec_ids.hpp). The host
; registration (sycl-thinlto register-host) registers their addresses under those IDs.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%"struct.sycl_lite::specialization_id.int" = type { i32 }
%"struct.sycl_lite::specialization_id.float" = type { float }
%struct.Params = type { i32, [2 x float], i8 }
%"struct.sycl_lite::specialization_id.Params" = type { %struct.Params }

@int_id = dso_local constant %"struct.sycl_lite::specialization_id.int" { i32 42 }, align 4 #0
@scale_id = dso_local constant %"struct.sycl_lite::specialization_id.float" { float 5.000000e-01 }, align 4 #1
@params_id = dso_local constant %"struct.sycl_lite::specialization_id.Params" { %struct.Params { i32 3, [2 x float] [float 1.500000e+00, float -2.000000e+00], i8 112 } }, align 4 #2

attributes #0 = { "sycl-unique-id"="9b2e4c1a7d3f5e60____ZL6int_id" "sycl-uid-kind"="specialization_id" }
attributes #1 = { "sycl-unique-id"="9b2e4c1a7d3f5e60____ZL8scale_id" "sycl-uid-kind"="specialization_id" }
attributes #2 = { "sycl-unique-id"="9b2e4c1a7d3f5e60____ZL9params_id" "sycl-uid-kind"="specialization_id" }
