// Host code of the device-globals program (issue 16): looks the host variables of
// dg_host_objects.ll up by address through the test runtime and runs the kernels using them.
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

  struct {
    int *out;
    int step;
  } bump = {sycl_test_malloc(sizeof(int)), 5};
  for (int i = 0; i < 2; i++)
    if (sycl_test_launch("_ZTS4Bump", 1, &bump, sizeof bump) == 0)
      printf("Bump: %d\n", *bump.out);
  struct {
    double *out;
  } pair = {sycl_test_malloc(sizeof(double))};
  if (sycl_test_launch("_ZTS8ReadPair", 1, &pair, sizeof pair) == 0)
    printf("ReadPair: %g\n", *pair.out);
  return 0;
}
