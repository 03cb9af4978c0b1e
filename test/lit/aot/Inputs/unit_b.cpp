#include "sycl.h"
// EDIT changes the kernel's body: the unit edited between two links.
#ifndef EDIT
#define EDIT 1
#endif
struct KB;
void run_b(int *p) { kernel_entry<KB>([=]() { p[0] *= p[1] + EDIT; }); }
