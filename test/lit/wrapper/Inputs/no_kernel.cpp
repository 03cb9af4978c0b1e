// A program built with -fsycl whose device code holds no kernel: a SYCL_EXTERNAL function
// only (clang++ -fsycl embeds device code for it all the same).
#include <stdio.h>

[[clang::sycl_external]] int unused_on_device(int x) { return x + 1; }

int main() {
  printf("host only\n");
  return 0;
}
