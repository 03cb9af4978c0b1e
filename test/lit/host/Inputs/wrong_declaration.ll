; The module declares the registration function with another type.
target triple = "x86_64-pc-linux-gnu"

@dg = dso_local global { ptr } zeroinitializer, align 8 #0

declare i32 @__register_uniquely_identifiable_object(ptr)

attributes #0 = { "sycl-unique-id"="_Z2dg" "sycl-uid-kind"="device_global" }
