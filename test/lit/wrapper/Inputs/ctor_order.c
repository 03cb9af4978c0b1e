// A host program with its own constructor and destructor: the wrapper's registration must
// run before the one and its unregistration after the other, whichever linker links them.
#include <stdio.h>

__attribute__((constructor)) static void user_constructor(void) {
  puts("user constructor");
}
__attribute__((destructor)) static void user_destructor(void) {
  puts("user destructor");
}

int main(void) {
  puts("main");
  return 0;
}
