; A kernel marked as ESIMD code (!sycl_explicit_simd): the front has no ESIMD support.
target triple = "spir64-unknown-unknown"

define spir_kernel void @kEsimd() #0 !sycl_explicit_simd !0 {
  ret void
}

attributes #0 = { "sycl-module-id"="e.cpp" }

!0 = !{}
