// Included by every unit of relink.test: the kernel entry and a template every unit uses.
// The test's header edit changes SCALE.
#define SCALE 3
template <typename Name, typename F>
[[clang::sycl_kernel_entry_point(Name)]] void kernel_entry(F f) { f(); }
template <typename T> [[gnu::noinline]] T scale(T x) { return x * SCALE; }
