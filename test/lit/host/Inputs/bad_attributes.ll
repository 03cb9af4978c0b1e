; A variable with sycl-unique-id and no sycl-uid-kind: not what a DPC++ front end writes.
target triple = "x86_64-pc-linux-gnu"

@half = dso_local global i32 0, align 4 #0

attributes #0 = { "sycl-unique-id"="_Z4half" }
