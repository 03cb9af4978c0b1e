#include "sycl.h"
// User functions whose names begin with __ are linked like any other: a C name and a
// namespace (_ZN7__mylib1fEi), both defined in dunder_lib.cpp.
extern "C" [[clang::sycl_external]] int __my_helper(int);
namespace __mylib {
[[clang::sycl_external]] int f(int);
}
struct KDunder;
int main() {
  int *p = nullptr;
  kernel_entry<KDunder>([=]() { p[0] = __my_helper(1) + __mylib::f(2); });
}
