// Specification of base/names.c's is_builtin_name: the names resolution lets stay undefined.
// Builtins also when mangled as free functions; every other name, __-prefixed or not, is a
// user's and must be defined by some unit of the link.
#include "base/base.h"

#include "check.h"

#include <stdio.h>

int main(void) {
  static const struct {
    const char *name;
    bool builtin;
  } cases[] = {
      {"llvm.umax.i32", true},
      {"__spirv_BuiltInGlobalInvocationId", true},
      {"_Z28__spirv_GlobalInvocationId_xv", true},
      {"_Z18__spirv_ocl_printfPU3AS2Kcz", true},
      {"__sycl_getScalarSpecConstantValue", true},
      {"_Z20__sycl_getSpecConstv", true},
      {"__esimd_oword_ld", true},
      {"_Z16__esimd_oword_ldv", true},
      {"__builtin_IB_get_local_id_x", true},
      {"__devicelib_assert_fail", true},
      {"__devicelib_imf_llmax", true},
      {"__clc_sqrt", true},
      // A user's: linked from the unit that defines it, or an undefined symbol.
      {"__my_helper", false},
      {"_ZN7__mylib1fEi", false},
      {"_Z8__insidev", false},
      {"_ZN7__spirv8internalEv", false},
      {"__assert_fail", false},
      {"_Z6squarei", false},
      {"_Z3sinf", false},
      {"spirv_like", false},
      {"_Z", false},
      {"", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char what[160];
    snprintf(what, sizeof what, "%s is %sa builtin", cases[i].name, cases[i].builtin ? "" : "not ");
    check(is_builtin_name(cases[i].name) == cases[i].builtin, what);
  }
  return failures != 0;
}
