// Two kernels of one unqualified name in two namespaces, and one of a template type: what
// `inspect --resolve=` must tell apart by the names people write.
#include "../../link/Inputs/sycl.h"
namespace first { struct Twin; }
namespace second { struct Twin; }
template <typename T> struct Tmpl;
int main() {
  int *p = nullptr;
  kernel_entry<first::Twin>([=]() { p[0] = 1; });
  kernel_entry<second::Twin>([=]() { p[1] = 2; });
  kernel_entry<Tmpl<int>>([=]() { p[2] = 3; });
}
