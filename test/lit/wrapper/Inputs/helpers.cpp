// Device code in a static archive member: found through -Llibs -lhelpers.
[[clang::sycl_external]] int triple(int x) {
  return 3 * x;
}
