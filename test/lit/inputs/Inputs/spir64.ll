; A device module with the older spir64 triple: linked as spirv64-unknown-unknown.
target triple = "spir64-unknown-unknown"

define spir_kernel void @_ZTS2K2() {
  ret void
}
