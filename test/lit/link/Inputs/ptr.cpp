[[clang::sycl_external]] [[gnu::noinline]] int square(int x) { return x * x; }
[[clang::sycl_external]] [[gnu::noinline]] int apply(int (*f)(int), int x) { return f(x) + 1; }
