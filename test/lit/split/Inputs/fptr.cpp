#include "../../link/Inputs/sycl.h"
// KCall calls through a function pointer it is given: the split cannot see which function
// it gets, so its image holds every address-taken function of that type (square, cube),
// but not halve, whose type differs. KTake takes the addresses.
using IntOp = int (*)(int);
using FloatOp = float (*)(float);
[[gnu::noinline]] static int square(int x) { return x * x; }
[[gnu::noinline]] static int cube(int x) { return x * x * x; }
[[gnu::noinline]] static float halve(float x) { return x / 2; }
[[gnu::noinline]] static int apply(IntOp op, int x) { return op(x); }
struct KCall; struct KTake; struct KPlain;
int main() {
  int *p = nullptr;
  IntOp *ops = nullptr;
  FloatOp *fops = nullptr;
  kernel_entry<KCall>([=]() { p[0] = apply(ops[0], p[1]); });
  kernel_entry<KTake>([=]() { ops[0] = square; ops[1] = cube; fops[0] = halve; });
  kernel_entry<KPlain>([=]() { p[2] = 7; });
}
