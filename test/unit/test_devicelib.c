// Specification of properties/devicelib.c: each __devicelib_ name maps to the bit of its
// fallback library (intel's SYCLDeviceLibReqMask table, exact names), group sort by prefix;
// a libm-style name to the DPC++ wrapper library defining it.
#include "properties/properties.h"

#include "check.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  static const struct {
    const char *name;
    uint32_t bit;
  } cases[] = {
      {"__devicelib_assert_fail", 0x1},
      {"__devicelib_assert_read", 0x1},
      {"__devicelib_abs", 0x2},
      {"__devicelib_tgammaf", 0x2},
      {"__devicelib_acos", 0x4},
      {"__devicelib_tgamma", 0x4},
      {"__devicelib___divsc3", 0x8},
      {"__devicelib_ctanhf", 0x8},
      {"__devicelib___muldc3", 0x10},
      {"__devicelib_ctanh", 0x10},
      {"__devicelib_memcmp", 0x20},
      {"__devicelib_memset", 0x20},
      {"__devicelib_imf_llmax", 0x40},
      {"__devicelib_imf_vsadu4", 0x40},
      {"__devicelib_imf_double2half", 0x80},
      {"__devicelib_imf_sqrt_rz", 0x80},
      {"__devicelib_imf_bfloat162float", 0x100},
      {"__devicelib_imf_truncbf16", 0x100},
      {"__devicelib_ConvertFToBF16INTEL", 0x200},
      {"__devicelib_ConvertBF16ToFINTELVec16", 0x200},
  };
  bool all = true;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    if (devicelib_bit(cases[i].name) != cases[i].bit) {
      printf("  %s: 0x%x, expected 0x%x\n", cases[i].name, devicelib_bit(cases[i].name),
             cases[i].bit);
      all = false;
    }
  check(all, "the first and last name of each of the ten libraries map to its bit");
  check(devicelib_table_size() == 561,
        "the table holds 561 names (transcribed from intel's SDLMap)");
  check(devicelib_bit("__devicelib_default_work_group_joint_sort_p1i32") == 0x400 &&
            devicelib_bit("__devicelib_default_sub_group_private_sort_i32") == 0x400,
        "group sort: by prefix, 0x400");
  check(devicelib_bit("__devicelib_cosff") == 0 && devicelib_bit("__devicelib_") == 0 &&
            devicelib_bit("cosf") == 0 && devicelib_bit("__devicelib_COSF") == 0,
        "names match exactly: no prefixes, suffixes or case folding");
  check(!strcmp(devicelib_wrapper_library("sqrtf"), "libsycl-cmath.bc") &&
            !strcmp(devicelib_wrapper_library("sqrt"), "libsycl-cmath-fp64.bc") &&
            !strcmp(devicelib_wrapper_library("cabsf"), "libsycl-complex.bc") &&
            !strcmp(devicelib_wrapper_library("cabs"), "libsycl-complex-fp64.bc"),
        "a libm-style name: the wrapper library defining it on top of __devicelib_NAME");
  check(!devicelib_wrapper_library("__devicelib_sqrtf") && !devicelib_wrapper_library("memcpy") &&
            !devicelib_wrapper_library("__divsc3") && !devicelib_wrapper_library("nowhere") &&
            !devicelib_wrapper_library("imf_llmax"),
        "no library for the fallback names themselves, cstring, __ names, others");
  return checks_result();
}
