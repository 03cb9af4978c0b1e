#include "sycl.h"
extern "C" [[clang::sycl_external]] [[gnu::noinline]] int __my_helper(int x) { return x * 7; }
namespace __mylib {
[[clang::sycl_external]] [[gnu::noinline]] int f(int x) { return x + 40; }
}
