; A module whose own constructor already asks for priority 0: the registration takes 0 too,
; and comes first in the array, which the code generator keeps among equal priorities.
target triple = "x86_64-pc-linux-gnu"

@dg = dso_local global { ptr } zeroinitializer, align 8 #0
@llvm.global_ctors = appending global [2 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @later, ptr null }, { i32, ptr, ptr } { i32 0, ptr @earliest, ptr null }]

define internal void @later() {
  ret void
}

define internal void @earliest() {
  ret void
}

attributes #0 = { "sycl-unique-id"="_Z2dg" "sycl-uid-kind"="device_global" }
