; A kernel that converts with two of the device library's bfloat16 functions (declared, used),
; a third one declared but unused, a look-alike name and an ordinary undefined helper.
target triple = "spir64-unknown-unknown"

declare spir_func i16 @__devicelib_ConvertFToBF16INTEL(ptr addrspace(4))
declare spir_func void @__devicelib_ConvertBF16ToFINTELVec8(ptr addrspace(4), ptr addrspace(4))
declare spir_func void @__devicelib_ConvertBF16ToFINTELVec5(ptr addrspace(4), ptr addrspace(4))
declare spir_func void @__devicelib_ConvertFToBF16INTELVec4(ptr addrspace(4), ptr addrspace(4))
declare spir_func void @helper(ptr addrspace(4)) #0

define spir_kernel void @k(ptr addrspace(4) %p) #0 {
  %a = call spir_func i16 @__devicelib_ConvertFToBF16INTEL(ptr addrspace(4) %p)
  call spir_func void @__devicelib_ConvertBF16ToFINTELVec8(ptr addrspace(4) %p, ptr addrspace(4) %p)
  call spir_func void @__devicelib_ConvertBF16ToFINTELVec5(ptr addrspace(4) %p, ptr addrspace(4) %p)
  call spir_func void @helper(ptr addrspace(4) %p)
  ret void
}

attributes #0 = { "sycl-module-id"="bf16.cpp" }
