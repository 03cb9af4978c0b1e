// Seed 000's example: the kernel calls LibDeviceFunc, whose device code lives in the shared
// library libhelpers.so; the runtime links the two images. Prints 0 2 4 6 ...
#include "../check.hpp"

[[clang::sycl_external]] int LibDeviceFunc(int i);
int library_kernel_twice(int *out, int n); // host code of libhelpers.so, launching its kernel

struct AppKernel;

int main() {
  const int n = 16;
  int *out = sycl_test::malloc_shared<int>(n);
  bool ran = sycl_test::launch<AppKernel>(n, [=](size_t i) { out[i] = LibDeviceFunc((int)i); });
  bool good = true;
  for (int i = 0; i < n; i++) {
    printf("%d ", out[i]);
    good = good && out[i] == 2 * i;
  }
  printf("\n");
  report("AppKernel", ran, good);

  // The library's own kernel, launched from the library's host code.
  int *lib_out = sycl_test::malloc_shared<int>(n);
  ran = library_kernel_twice(lib_out, n) == 0;
  good = true;
  for (int i = 0; i < n; i++)
    good = good && lib_out[i] == 4 * i;
  report("LibraryKernel", ran, good);
  return exit_status();
}
