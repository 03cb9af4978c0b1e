// The kernel launcher the example uses: launch<Name>(n, [=](size_t i) {...}) from the test
// runtime's header (test/runtime/sycl_test.hpp), which runs kernels on OpenCL (pocl).
#pragma once
#include "sycl_test.hpp"

using sycl_test::launch;
using sycl_test::malloc_shared;
