// Three kernels whose helpers live in two other translation units; each runs over a range
// and the program prints its results beside what the host computes.
#include <stdio.h>

#include "sycl_lite.h"

[[clang::sycl_external]] float saxpy(float a, float x, float y);
[[clang::sycl_external]] float polynomial(float x);
[[clang::sycl_external]] int fibonacci(int i);

struct Saxpy;
struct Polynomial;
struct Fibonacci;

int main() {
  const int n = 8;
  float *x = malloc_shared<float>(n), *y = malloc_shared<float>(n), *p = malloc_shared<float>(n);
  int *fib = malloc_shared<int>(n);
  for (int i = 0; i < n; i++) {
    x[i] = (float)i;
    y[i] = 10.0f;
  }
  bool ok = launch<Saxpy>(n, [=](size_t i) { y[i] = saxpy(2.0f, x[i], y[i]); }) &&
            launch<Polynomial>(n, [=](size_t i) { p[i] = polynomial(x[i]); }) &&
            launch<Fibonacci>(n, [=](size_t i) { fib[i] = fibonacci((int)i + 4); });
  if (!ok) return 1;

  printf("   %-26s", "saxpy 2x+10:");
  for (int i = 0; i < n; i++)
    printf(" %g", y[i]);
  printf("   (expected 10 12 14 ... 24)\n");
  printf("   %-26s", "polynomial 1-2x+x2/2+3x3:");
  for (int i = 0; i < n; i++)
    printf(" %g", p[i]);
  printf("   (expected 1 2.5 23 ...)\n");
  printf("   %-26s", "fibonacci(4..11):");
  for (int i = 0; i < n; i++)
    printf(" %d", fib[i]);
  printf("   (expected 3 5 8 13 21 34 55 89)\n");
  return 0;
}
