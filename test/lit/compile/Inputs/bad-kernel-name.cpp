// A kernel whose name holds a line break (an asm label): `sycl-thinlto split` refuses it, as
// kernels are listed one name a line.
#ifdef __SYCL_DEVICE_ONLY__
extern "C" [[clang::device_kernel]] void kernel(int *p) asm("bad\nkernel");
#endif
[[clang::sycl_external]] void call(int *p) {
#ifdef __SYCL_DEVICE_ONLY__
  kernel(p);
#endif
}
#ifdef __SYCL_DEVICE_ONLY__
extern "C" [[clang::device_kernel]] void kernel(int *p) { p[0] = 1; }
#endif
int main() { return 0; }
