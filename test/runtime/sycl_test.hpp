// Kernels for test programs: launch<Name>(n, [=](size_t i) {...}) runs the lambda on n
// work-items through the test runtime; single_task<Name>(f) on one. Not a SYCL header.
#pragma once
#include <stddef.h>

#include "sycl_test_runtime.h"

// The SPIR-V builtin the backend turns into the GlobalInvocationId input variable.
extern "C" [[clang::sycl_external]] unsigned long __spirv_BuiltInGlobalInvocationId(int);

namespace sycl_test {

// The device kernel _ZTS<Name>: its one argument is the lambda, by value. On the host
// the body is never emitted; the runtime runs the device code instead.
template <typename Name, typename F>
[[clang::sycl_kernel_entry_point(Name)]] void range_kernel(F f) {
  f(static_cast<size_t>(__spirv_BuiltInGlobalInvocationId(0)));
}

template <typename Name, typename F>
[[clang::sycl_kernel_entry_point(Name)]] void single_task_kernel(F f) {
  f();
}

// True when the kernel ran; the runtime has printed why when it did not.
template <typename Name, typename F> bool launch(size_t n, F f) {
  range_kernel<Name>(f);
  return sycl_test_launch(__builtin_sycl_unique_stable_name(Name), n, &f, sizeof f) == 0;
}

template <typename Name, typename F> bool single_task(F f) {
  single_task_kernel<Name>(f);
  return sycl_test_launch(__builtin_sycl_unique_stable_name(Name), 1, &f, sizeof f) == 0;
}

template <typename T> T *malloc_shared(size_t count) {
  return static_cast<T *>(sycl_test_malloc(count * sizeof(T)));
}

} // namespace sycl_test
