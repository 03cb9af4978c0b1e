; A kernel calling an available_externally function (a declaration with a body) and a plain
; external function that is no entry point.
target triple = "spir64-unknown-unknown"

define available_externally spir_func void @ae() {
  ret void
}

define spir_func void @h() {
  ret void
}

define spir_kernel void @k() #0 {
  call spir_func void @ae()
  call spir_func void @h()
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }
