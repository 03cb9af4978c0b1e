// Stands in for the runtime: prints each registration, then which host variable each
// registered address is, so a test sees the order and that every address is the right one.
#include <stdio.h>

static struct {
  void *address;
  const char *id, *kind;
} objects[16];
static int count;

void __register_uniquely_identifiable_object(void *address, const char *id, const char *kind) {
  printf("register %s (%s)\n", id, kind);
  if (count < 16) objects[count++] = (typeof(objects[0])){address, id, kind};
}

void user_constructor_ran(void) {
  printf("user constructor, after %d registration(s)\n", count);
}

// Defined by host_objects.ll (FuBar is the global one; the anonymous one has no C name).
extern char FuBar[], _ZN5inner3BarE[], spec_const[];
void *anon_fubar(void);
char Elsewhere[8]; // host_objects.ll only declares it

int main(void) {
  for (int i = 0; i < count; i++) {
    void *a = objects[i].address;
    const char *which = a == FuBar            ? "::FuBar"
                        : a == anon_fubar()   ? "(anonymous)::FuBar"
                        : a == _ZN5inner3BarE ? "inner::Bar"
                        : a == spec_const     ? "spec_const"
                        : a == Elsewhere      ? "Elsewhere"
                                              : "an unknown address";
    printf("%s is %s\n", objects[i].id, which);
  }
  return 0;
}
