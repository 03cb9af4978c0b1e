[[clang::sycl_external]] int maybe_weak(int x) { return x * 100; }
