// The smallest SYCL program upstream clang++ -fsycl compiles: one kernel named K1.
template <typename Name, typename F>
[[clang::sycl_kernel_entry_point(Name)]] void kernel_entry(F f) { f(); }
struct K1;
int main() { int *p = nullptr; kernel_entry<K1>([=]() { p[0] = 1; }); }
