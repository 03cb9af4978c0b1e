// c5.cpp after an edit: chain5 multiplies by 6 instead of 5.
[[clang::sycl_external]] [[gnu::noinline]] int chain5(int x) { return x * 6; }
