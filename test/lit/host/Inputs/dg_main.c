// Host code of the device-globals program (issue 16): looks the host variables of
// dg_host_objects.ll up by address through the test runtime, writes and reads their device
// globals by that address and runs the kernels using them.
#include <stdint.h>
#include <stdio.h>

#include "sycl_test_runtime.h"

extern char Counter[], spec_const[]; // dg_host_objects.ll
extern int counter_found_in_user_ctor;
void *anon_fubar(void); // the anonymous-namespace FuBar, which C cannot name
static char unrelated;

static void lookup(const char *label, const void *address) {
  const char *id, *kind;
  size_t size;
  uint32_t flags;
  int rc = sycl_test_lookup_host_object(address, &id, &kind, &size, &flags);
  if (rc < 0)
    printf("%s: not registered\n", label);
  else
    printf("%s: id %s, kind %s, size %zu, flags %u%s\n", label, id, kind, size, flags,
           rc ? " (no image describes it)" : "");
}

int main(void) {
  printf("found by the module's own constructor: %s\n",
         counter_found_in_user_ctor >= 0 ? "yes" : "no");
  lookup("Counter", Counter);
  lookup("(anonymous)::FuBar", anon_fubar());
  lookup("spec_const", spec_const);
  lookup("unrelated", &unrelated);

  // Counter: written from the host before any program holds it, bumped by a kernel, read
  // back by the host address; written again once the program exists.
  int value = 40;
  if (sycl_test_copy_to_device_global(Counter, &value, sizeof value, 0)) return 1;
  struct {
    int *out;
    int step;
  } bump = {sycl_test_malloc(sizeof(int)), 5};
  for (int i = 0; i < 2; i++)
    if (sycl_test_launch("_ZTS4Bump", 1, &bump, sizeof bump) == 0) printf("Bump: %d\n", *bump.out);
  if (sycl_test_copy_from_device_global(Counter, &value, sizeof value, 0)) return 1;
  printf("Counter read back: %d\n", value);
  value = 100;
  if (sycl_test_copy_to_device_global(Counter, &value, sizeof value, 0)) return 1;
  if (sycl_test_launch("_ZTS4Bump", 1, &bump, sizeof bump) == 0) printf("Bump: %d\n", *bump.out);
  if (sycl_test_copy_from_device_global(Counter, &value, sizeof value, 0)) return 1;
  printf("Counter read back: %d\n", value);

  // The anonymous FuBar, written through its address only, at an offset: its second double.
  double second = 2.5;
  if (sycl_test_copy_to_device_global(anon_fubar(), &second, sizeof second, sizeof(double)))
    return 1;
  struct {
    double *out;
  } pair = {sycl_test_malloc(sizeof(double))};
  if (sycl_test_launch("_ZTS8ReadPair", 1, &pair, sizeof pair) == 0)
    printf("ReadPair: %g\n", *pair.out);
  double both[2];
  if (sycl_test_copy_from_device_global(anon_fubar(), both, sizeof both, 0)) return 1;
  printf("FuBar read back: %g %g\n", both[0], both[1]);

  // Out of range, and an address that is no device global: refused, said why.
  printf("beyond Counter: %d\n", sycl_test_copy_to_device_global(Counter, &value, 8, 0));
  printf("spec_const: %d\n", sycl_test_copy_from_device_global(spec_const, &value, 4, 0));
  return 0;
}
