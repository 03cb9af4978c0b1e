// Kernels whose helpers live in the two other translation units (SYCL_EXTERNAL calls and a
// constant table in device global memory), each over a range, each result checked.
#include "../check.hpp"

#include <cstdlib>

#include <math.h>

[[clang::sycl_external]] float saxpy(float a, float x, float y);
[[clang::sycl_external]] float polynomial(float x);
[[clang::sycl_external]] int fibonacci(int i);
[[clang::sycl_external]] int collatz_steps(int n);

struct Saxpy;
struct Polynomial;
struct Fibonacci;
struct Collatz;

static float host_polynomial(float x) {
  return 1.0f + x * (-2.0f + x * (0.5f + x * 3.0f));
}

int main() {
  const size_t n = 64;
  float *x = sycl_test::malloc_shared<float>(n), *y = sycl_test::malloc_shared<float>(n);
  int *fib = sycl_test::malloc_shared<int>(n), *steps = sycl_test::malloc_shared<int>(n);
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)i * 0.25f;
    y[i] = 1.0f;
  }

  bool ran = sycl_test::launch<Saxpy>(n, [=](size_t i) { y[i] = saxpy(2.0f, x[i], y[i]); });
  bool good = true;
  for (size_t i = 0; i < n; i++)
    good = good && y[i] == 2.0f * x[i] + 1.0f;
  report("Saxpy", ran, good);

  ran = sycl_test::launch<Polynomial>(n, [=](size_t i) { y[i] = polynomial(x[i]); });
  good = true;
  for (size_t i = 0; i < n; i++)
    good = good && fabsf(y[i] - host_polynomial(x[i])) <= 1e-3f * fabsf(host_polynomial(x[i]));
  report("Polynomial", ran, good);

  ran = sycl_test::launch<Fibonacci>(n, [=](size_t i) { fib[i] = fibonacci((int)i); });
  static const int table[12] = {0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89};
  good = true;
  for (size_t i = 0; i < n; i++)
    good = good && fib[i] == table[i % 12];
  report("Fibonacci", ran, good);

  ran = sycl_test::launch<Collatz>(n, [=](size_t i) { steps[i] = collatz_steps((int)i + 1); });
  good = true;
  for (size_t i = 0; i < n; i++) {
    int s = 0;
    for (long v = (long)i + 1; v != 1; v = v % 2 ? 3 * v + 1 : v / 2)
      s++;
    good = good && steps[i] == s;
  }
  report("Collatz", ran, good);

  // The four kernels live in one image: one program was built for all of them (after an
  // early per-kernel split, one per kernel: conformance.sh says how many to expect).
  const char *expected = getenv("SYCL_TEST_EXPECT_PROGRAMS");
  report("ProgramCache", true, sycl_test_programs_built() == (expected ? atoi(expected) : 1));
  return exit_status();
}
