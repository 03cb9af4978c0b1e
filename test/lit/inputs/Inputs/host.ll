; Host bitcode: not a SPIR-V module, so never a device image.
target triple = "x86_64-unknown-linux-gnu"

define i32 @main() {
  ret i32 0
}
