; Two kernels of two sources: KDouble uses double (aspect 6, fp64, by its metadata), KInt not.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

define spir_kernel void @_ZTS7KDouble(ptr addrspace(1) %o) #0 !sycl_used_aspects !0 {
  %v = load double, ptr addrspace(1) %o
  %w = fmul double %v, 2.5
  store double %w, ptr addrspace(1) %o
  ret void
}

define spir_kernel void @_ZTS4KInt(ptr addrspace(1) %o) #1 {
  %v = load i32, ptr addrspace(1) %o
  %w = mul i32 %v, 3
  store i32 %w, ptr addrspace(1) %o
  ret void
}

attributes #0 = { "sycl-module-id"="double.cpp" }
attributes #1 = { "sycl-module-id"="int.cpp" }
!0 = !{i32 6}
