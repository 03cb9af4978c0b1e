// What DPC++'s SYCL headers and front end give a program with specialization constants, faked
// for upstream clang 22 (there is no SYCL header here): specialization_id<T>, a kernel_handler
// whose get_specialization_constant<ID>() calls __sycl_getScalar2020SpecConstantValue<T> or
// __sycl_getComposite2020SpecConstantValue<T> with the arguments intel's headers pass (the
// constant's unique ID string, the specialization_id's address, the runtime's buffer), and a
// kernel that takes the buffer as its second argument, as DPC++ builds kernels whose constants
// are emulated. Upstream clang has no __builtin_sycl_unique_stable_id: SPEC_ID names each
// constant's unique ID itself, and the host unit that DPC++'s host compiler would mark with
// "sycl-unique-id" is the IR fixture spec_ids.ll.
#pragma once
#include <stddef.h>
#include <type_traits>

#include "sycl_test.hpp"

namespace sycl_lite {

template <typename T> struct specialization_id {
  using value_type = T;
  constexpr explicit specialization_id(const T &v) : default_value(v) {}
  T default_value;
};

// The unique ID of each specialization_id (DPC++: __builtin_sycl_unique_stable_id(S)).
template <auto &S> inline constexpr const char *unique_id = nullptr;

} // namespace sycl_lite

// DPC++'s device-side declarations (sycl/detail/spec_constant_impl.hpp).
template <typename T>
[[clang::sycl_external]] T __sycl_getScalar2020SpecConstantValue(const char *SymbolicID,
                                                                 const void *DefaultValue,
                                                                 const void *RTBuffer);
template <typename T>
[[clang::sycl_external]] T __sycl_getComposite2020SpecConstantValue(const char *SymbolicID,
                                                                    const void *DefaultValue,
                                                                    const void *RTBuffer);

namespace sycl_lite {

class kernel_handler {
public:
  explicit kernel_handler(const void *buffer) : buffer_(buffer) {}
  template <auto &S>
  typename std::remove_reference_t<decltype(S)>::value_type get_specialization_constant() const {
    using T = typename std::remove_reference_t<decltype(S)>::value_type;
#ifdef __SYCL_DEVICE_ONLY__
    if constexpr (std::is_fundamental_v<T>)
      return __sycl_getScalar2020SpecConstantValue<T>(unique_id<S>, &S, buffer_);
    else
      return __sycl_getComposite2020SpecConstantValue<T>(unique_id<S>, &S, buffer_);
#else
    return S.default_value; // host code of a kernel is never run
#endif
  }

private:
  const void *buffer_; // the specialization-constants buffer (emulation); unused when native
};

// A pointer to global memory.
typedef const char __attribute__((opencl_global)) *global_bytes;

// The device kernel _ZTS<Name>: the lambda by value, then the runtime's buffer.
template <typename Name, typename F>
[[clang::sycl_kernel_entry_point(Name)]] void range_kernel_with_handler(F f,
                                                                       global_bytes spec_buffer) {
  // No local variable: clang 22 at -O0 turns the parameter a local initialized from it reads
  // into a global variable of its own (null), as if the parameter were a static local.
  f(static_cast<size_t>(__spirv_BuiltInGlobalInvocationId(0)),
    kernel_handler((const char *)spec_buffer));
}

// launch<Name>(n, [=](size_t i, const kernel_handler &kh) {...}): the runtime passes the buffer.
template <typename Name, typename F> bool launch(size_t n, F f) {
  range_kernel_with_handler<Name>(f, nullptr);
  return sycl_test_launch(__builtin_sycl_unique_stable_name(Name), n, &f, sizeof f) == 0;
}

// The host sets a constant through the test runtime, by its specialization_id's address.
template <auto &S> bool set_specialization_constant(const typename std::remove_reference_t<decltype(S)>::value_type &v) {
  return sycl_test_set_specialization_constant(&S, &v, sizeof v) == 0;
}

} // namespace sycl_lite

// A constant the device code reads: defined there (its default value), and on the host an
// external object of spec_ids.ll, which registers its address under the same unique ID.
#ifdef __SYCL_DEVICE_ONLY__
#define SPEC_ID(T, NAME, ID, ...)                                                               \
  static constexpr sycl_lite::specialization_id<T> NAME(__VA_ARGS__);                          \
  template <> inline constexpr const char *sycl_lite::unique_id<NAME> = ID
#else
#define SPEC_ID(T, NAME, ID, ...)                                                               \
  extern const sycl_lite::specialization_id<T> NAME;                                           \
  template <> inline constexpr const char *sycl_lite::unique_id<NAME> = ID
#endif
