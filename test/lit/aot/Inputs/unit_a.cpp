#include "sycl.h"
struct KA;
void run_a(int *p) { kernel_entry<KA>([=]() { p[0] += twice(p[1]); }); }
