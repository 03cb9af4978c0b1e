[[clang::sycl_external]] [[gnu::noinline]] int chain5(int x) { return x * 5; }
