[[clang::sycl_external]] int square(int x) { return x * x + 1; }
