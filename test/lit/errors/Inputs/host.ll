; Host bitcode: given to a link or a split as a file of its own, it is an error.
target triple = "x86_64-unknown-linux-gnu"

define i32 @main() {
  ret i32 0
}
