// Specification of spirv/fixup.c: OpConstantNull of a scalar integer becomes OpConstant 0
// (one literal word up to 32 bits, two for 64); every other instruction is kept as it is.
#include "spirv/spirv.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

// %1 = OpTypeInt 32 0; %2 = OpTypeInt 64 0; %3 = OpTypeFloat 32
// %4 = OpConstantNull %1; %5 = OpConstantNull %2; %6 = OpConstantNull %3
// clang-format off
static const uint32_t before[] = {
    0x07230203, 0x00010000, 0, 7, 0,
    4 << 16 | 21, 1, 32, 0,
    4 << 16 | 21, 2, 64, 0,
    3 << 16 | 22, 3, 32,
    3 << 16 | 46, 1, 4,
    3 << 16 | 46, 2, 5,
    3 << 16 | 46, 3, 6,
};
static const uint32_t after[] = {
    0x07230203, 0x00010000, 0, 7, 0,
    4 << 16 | 21, 1, 32, 0,
    4 << 16 | 21, 2, 64, 0,
    3 << 16 | 22, 3, 32,
    4 << 16 | 43, 1, 4, 0,
    5 << 16 | 43, 2, 5, 0, 0,
    3 << 16 | 46, 3, 6,
};
// clang-format on

int main(void) {
  Buffer b = {.data = xmalloc(sizeof before), .size = sizeof before};
  memcpy(b.data, before, sizeof before);
  char *errmsg = NULL;
  check(spirv_fix_null_integers(&b, &errmsg) == 0, "a module with integer nulls is rewritten");
  check(b.size == sizeof after && !memcmp(b.data, after, sizeof after),
        "i32 null -> OpConstant 0, i64 null -> OpConstant 0 0, float null kept");
  free(b.data);

  Buffer truncated = {.data = xmalloc(sizeof before - 4), .size = sizeof before - 4};
  memcpy(truncated.data, before, truncated.size);
  check(spirv_fix_null_integers(&truncated, &errmsg) == -1 && strstr(errmsg, "malformed"),
        "a truncated instruction is refused");
  free(errmsg);
  free(truncated.data);

  // The header's id bound (word 3) sizes no allocation: with 2^32 - 1 there and the address
  // space limited to 2 GB, the module is still rewritten (an array by id would not fit).
  // Sanitizers reserve terabytes of address space up front: there the limit is left out.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  struct rlimit limit = {2ul << 30, 2ul << 30};
  check(setrlimit(RLIMIT_AS, &limit) == 0, "the address space is limited");
#endif
  Buffer huge_bound = {.data = xmalloc(sizeof before), .size = sizeof before};
  memcpy(huge_bound.data, before, sizeof before);
  ((uint32_t *)huge_bound.data)[3] = UINT32_MAX;
  check(spirv_fix_null_integers(&huge_bound, &errmsg) == 0 && huge_bound.size == sizeof after,
        "an id bound of 2^32 - 1 allocates nothing by it");
  free(huge_bound.data);

  Buffer junk = {.data = (uint8_t *)xstrdup("not spirv, not at all"), .size = 20};
  check(spirv_fix_null_integers(&junk, &errmsg) == -1, "a non-SPIR-V buffer is refused");
  free(errmsg);
  free(junk.data);
  return failures ? 1 : 0;
}
