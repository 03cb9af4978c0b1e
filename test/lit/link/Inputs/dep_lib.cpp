// Only SYCL_EXTERNAL functions: an image of its own under --allow-device-image-dependencies.
[[clang::sycl_external]] int shared_helper(int x) { return x * 2; }
