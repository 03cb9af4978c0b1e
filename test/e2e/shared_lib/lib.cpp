// libhelpers.so: exports LibDeviceFunc to the device code of whoever loads it, and has a
// kernel of its own. Linked with --allow-device-image-dependencies.
#include "../check.hpp"

[[clang::sycl_external]] int LibDeviceFunc(int i) {
  return i * 2;
}

struct LibraryKernel;

int library_kernel_twice(int *out, int n) {
  bool ok = sycl_test::launch<LibraryKernel>(
      (size_t)n, [=](size_t i) { out[i] = LibDeviceFunc(LibDeviceFunc((int)i)); });
  return ok ? 0 : -1;
}
