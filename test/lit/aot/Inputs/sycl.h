// The two things a SYCL program needs from a header here: a kernel entry and a template.
template <typename Name, typename F>
[[clang::sycl_kernel_entry_point(Name)]] void kernel_entry(F f) { f(); }
template <typename T> T twice(T x) { return x + x; }
