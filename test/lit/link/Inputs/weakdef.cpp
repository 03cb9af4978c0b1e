[[clang::sycl_external]] [[gnu::weak]] int maybe_weak(int x) { return -x; }
