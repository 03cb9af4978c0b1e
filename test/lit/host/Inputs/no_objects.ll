; A host module without uniquely identifiable variables: register-host leaves it as it is.
target triple = "x86_64-pc-linux-gnu"

@plain = dso_local global i32 7, align 4
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @user_ctor, ptr null }]

define internal void @user_ctor() {
  store i32 8, ptr @plain, align 4
  ret void
}
