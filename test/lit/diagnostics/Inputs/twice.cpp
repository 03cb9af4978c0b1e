#include "../../link/Inputs/sycl.h"
[[clang::sycl_external]] int twice(int x) { return x + x; }
