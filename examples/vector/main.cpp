// Three kernels whose helpers live in two other translation units.
#include "sycl_lite.h"

[[clang::sycl_external]] float saxpy(float a, float x, float y);
[[clang::sycl_external]] float polynomial(float x);
[[clang::sycl_external]] int fibonacci(int i);

struct Saxpy;
struct Polynomial;
struct Fibonacci;

int main(int argc, char **) {
  float *x = nullptr, *y = nullptr;
  int *fib = nullptr;
  // The host only names the kernels here; running them comes with the test runtime.
  if (argc > 99) {
    kernel_entry<Saxpy>([=]() { y[0] = saxpy(2.0f, x[0], y[0]); });
    kernel_entry<Polynomial>([=]() { y[1] = polynomial(x[1]); });
    kernel_entry<Fibonacci>([=]() { fib[0] = fibonacci(fib[1]); });
  }
  return 0;
}
