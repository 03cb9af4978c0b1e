// A kernel calling triple(), which libhelpers.a defines; prints what it computed.
#include <stdio.h>

#include "sycl_test.hpp"

[[clang::sycl_external]] int triple(int x);
struct Scale;

int main() {
  const int n = 8;
  int *out = sycl_test::malloc_shared<int>(n);
  bool ran = sycl_test::launch<Scale>(n, [=](size_t i) { out[i] = triple((int)i); });
  bool good = ran;
  for (int i = 0; i < n; i++) {
    printf("%d ", out[i]);
    good = good && out[i] == 3 * i;
  }
  printf("\n%s Scale%s\n", good ? "PASS" : "FAIL", ran ? "" : ": launch failed");
  return good ? 0 : 1;
}
