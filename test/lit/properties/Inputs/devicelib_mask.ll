; One declared __devicelib_ function of every fallback library, the group-sort prefix, a
; name in no library, and a defined __devicelib_ function (never counted).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func void @__devicelib_assert_fail(ptr addrspace(4), ptr addrspace(4), i32, ptr addrspace(4), i64, i64, i64, i64, i64, i64)
declare spir_func float @__devicelib_cosf(float)
declare spir_func double @__devicelib_cos(double)
declare spir_func float @__devicelib_cabsf(ptr)
declare spir_func void @__devicelib___muldc3(ptr, double, double, double, double)
declare spir_func ptr @__devicelib_memcpy(ptr, ptr, i64)
declare spir_func i32 @__devicelib_imf_brev(i32)
declare spir_func double @__devicelib_imf_fma(double, double, double)
declare spir_func float @__devicelib_imf_bfloat162float(i16)
declare spir_func i16 @__devicelib_ConvertFToBF16INTEL(ptr)
declare spir_func void @__devicelib_default_work_group_joint_sort_ascending_p1i32_u32_p1i8(ptr, i32, ptr)
declare spir_func i32 @__devicelib_not_a_library_function(i32)

define spir_kernel void @_ZTS7KAllLibs(ptr addrspace(1) %out) {
  call spir_func void @__devicelib_assert_fail(ptr addrspace(4) null, ptr addrspace(4) null, i32 0, ptr addrspace(4) null, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0)
  %a = call spir_func float @__devicelib_cosf(float 1.0)
  %b = call spir_func double @__devicelib_cos(double 1.0)
  %c = call spir_func float @__devicelib_cabsf(ptr null)
  call spir_func void @__devicelib___muldc3(ptr null, double 1.0, double 1.0, double 1.0, double 1.0)
  %d = call spir_func ptr @__devicelib_memcpy(ptr null, ptr null, i64 0)
  %e = call spir_func i32 @__devicelib_imf_brev(i32 1)
  %f = call spir_func double @__devicelib_imf_fma(double 1.0, double 1.0, double 1.0)
  %g = call spir_func float @__devicelib_imf_bfloat162float(i16 1)
  %h = call spir_func i16 @__devicelib_ConvertFToBF16INTEL(ptr null)
  call spir_func void @__devicelib_default_work_group_joint_sort_ascending_p1i32_u32_p1i8(ptr null, i32 0, ptr null)
  %i = call spir_func i32 @__devicelib_not_a_library_function(i32 %e)
  store i32 %i, ptr addrspace(1) %out
  ret void
}
