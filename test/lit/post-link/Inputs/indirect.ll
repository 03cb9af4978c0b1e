; kI makes an indirect call of type void(); cand has that type and is "referenced-indirectly"
; (never address-taken here); other has it too but is only called directly, by kO.
target triple = "spir64-unknown-unknown"

define spir_func void @cand() #2 {
  ret void
}

define spir_func void @other() {
  ret void
}

define spir_kernel void @kI(ptr %fp) #0 {
  call spir_func void %fp()
  ret void
}

define spir_kernel void @kO() #1 {
  call spir_func void @other()
  ret void
}

attributes #0 = { "sycl-module-id"="i.cpp" }
attributes #1 = { "sycl-module-id"="o.cpp" }
attributes #2 = { "referenced-indirectly" }
