; Kernels of three calling conventions and a SYCL_EXTERNAL function, all with a module id.
target triple = "spir64-unknown-unknown"

define spir_kernel void @k_spir() #0 {
  ret void
}

define ptx_kernel void @k_ptx() #0 {
  ret void
}

define amdgpu_kernel void @k_amdgpu() #0 {
  ret void
}

define spir_func void @ext() #0 {
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }
