// Functions from a devicelib-style bitcode library (devicelib.ll, passed with --device-libs):
// a strong definition and a weak __devicelib_ one, linked into the image on demand.
#include "../check.hpp"

[[clang::sycl_external]] int lib_triple(int x);
extern "C" [[clang::sycl_external]] int __devicelib_clamp_to_byte(int x);

struct TripleKernel;
struct ClampKernel;

int main() {
  const int n = 32;
  int *out = sycl_test::malloc_shared<int>(n);
  bool ran = sycl_test::launch<TripleKernel>(n, [=](size_t i) { out[i] = lib_triple((int)i); });
  bool good = true;
  for (int i = 0; i < n; i++)
    good = good && out[i] == 3 * i;
  report("TripleKernel", ran, good);

  ran = sycl_test::launch<ClampKernel>(
      n, [=](size_t i) { out[i] = __devicelib_clamp_to_byte(((int)i - 16) * 20); });
  good = true;
  for (int i = 0; i < n; i++) {
    int v = (i - 16) * 20;
    good = good && out[i] == (v < 0 ? 0 : v > 255 ? 255 : v);
  }
  report("ClampKernel", ran, good);
  return exit_status();
}
