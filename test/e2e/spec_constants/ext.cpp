// A SYCL_EXTERNAL function of its own unit that reads a specialization constant: the link
// gives the constant its ID in the image of the kernel that calls it.
#include "spec_ids.hpp"

[[clang::sycl_external]] int offset_by_int_id(int i, const sycl_lite::kernel_handler &kh) {
  return kh.get_specialization_constant<int_id>() * 100 + i;
}
