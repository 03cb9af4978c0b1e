// SYCL_EXTERNAL arithmetic used by main.cpp's kernels; horner is reached only through
// polynomial, collatz_steps has a loop.
[[clang::sycl_external]] float saxpy(float a, float x, float y) {
  return a * x + y;
}

[[clang::sycl_external]] [[gnu::noinline]] float horner(const float *c, int n, float x) {
  float r = 0;
  for (int i = n - 1; i >= 0; i--)
    r = r * x + c[i];
  return r;
}

[[clang::sycl_external]] float polynomial(float x) {
  const float coefficients[4] = {1.0f, -2.0f, 0.5f, 3.0f};
  return horner(coefficients, 4, x);
}

[[clang::sycl_external]] int collatz_steps(int n) {
  int steps = 0;
  for (long v = n; v != 1; v = v % 2 ? 3 * v + 1 : v / 2)
    steps++;
  return steps;
}
