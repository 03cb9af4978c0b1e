// Specialization constants set at run time (issue 25): the host sets two scalar constants and
// a composite one by their specialization_id's addresses; kernels read them (one through a
// SYCL_EXTERNAL function of ext.cpp), first with the defaults, then with the values set, then
// with one value set again. Built native or emulated (the link's --spec-const=).
#include "../check.hpp"
#include "spec_ids.hpp"

struct Scalars;
struct Composite;
struct External;

static bool check_scalars(const char *label, int *iv, float *fv, size_t n, int want_i,
                          float want_f) {
  bool ran = sycl_lite::launch<Scalars>(n, [=](size_t i, const sycl_lite::kernel_handler &kh) {
    iv[i] = kh.get_specialization_constant<int_id>() + (int)i;
    fv[i] = kh.get_specialization_constant<scale_id>() * (float)i;
  });
  bool good = true;
  for (size_t i = 0; i < n; i++)
    good = good && iv[i] == want_i + (int)i && fv[i] == want_f * (float)i;
  if (ran && !good) printf("  %s: got %d %g, want %d %g\n", label, iv[1], fv[1], want_i + 1, want_f);
  report(label, ran, good);
  return ran && good;
}

static void check_composite(const char *label, Params *out, const Params &want) {
  bool ran = sycl_lite::launch<Composite>(1, [=](size_t, const sycl_lite::kernel_handler &kh) {
    *out = kh.get_specialization_constant<params_id>();
  });
  bool good = out->count == want.count && out->weights[0] == want.weights[0] &&
              out->weights[1] == want.weights[1] && out->tag == want.tag;
  if (ran && !good)
    printf("  %s: got {%d, {%g, %g}, %d}\n", label, out->count, out->weights[0], out->weights[1],
           out->tag);
  report(label, ran, good);
}

static void check_external(const char *label, int *iv, size_t n, int want) {
  bool ran = sycl_lite::launch<External>(n, [=](size_t i, const sycl_lite::kernel_handler &kh) {
    iv[i] = offset_by_int_id((int)i, kh);
  });
  bool good = true;
  for (size_t i = 0; i < n; i++)
    good = good && iv[i] == want * 100 + (int)i;
  if (ran && !good) printf("  %s: got %d, want %d\n", label, iv[0], want * 100);
  report(label, ran, good);
}

int main() {
  const size_t n = 16;
  int *iv = sycl_test::malloc_shared<int>(n);
  float *fv = sycl_test::malloc_shared<float>(n);
  Params *p = sycl_test::malloc_shared<Params>(1);

  check_scalars("Scalars(defaults)", iv, fv, n, 42, 0.5f);
  check_composite("Composite(defaults)", p, Params{3, {1.5f, -2.0f}, 'p'});
  check_external("External(defaults)", iv, n, 42);

  bool set = sycl_lite::set_specialization_constant<int_id>(7) &&
             sycl_lite::set_specialization_constant<scale_id>(2.25f) &&
             sycl_lite::set_specialization_constant<params_id>(Params{-5, {0.75f, 8.0f}, 'z'});
  report("set", set, true);
  check_scalars("Scalars", iv, fv, n, 7, 2.25f);
  check_composite("Composite", p, Params{-5, {0.75f, 8.0f}, 'z'});
  check_external("External", iv, n, 7);

  // Refused, with the runtime's reason on stderr: an address that is no registered host
  // object, and fewer bytes than the composite's values take.
  short two_bytes = 1;
  report("refused",
         sycl_test_set_specialization_constant(iv, &two_bytes, sizeof two_bytes) != 0 &&
             sycl_test_set_specialization_constant(&params_id, &two_bytes, sizeof two_bytes) != 0,
         true);

  // Set again: the next launch sees the new value.
  report("set again", sycl_lite::set_specialization_constant<int_id>(-13), true);
  check_external("External(again)", iv, n, -13);
  check_scalars("Scalars(again)", iv, fv, n, -13, 2.25f);
  return exit_status();
}
