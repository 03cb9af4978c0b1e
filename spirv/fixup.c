// Rewrites what LLVM 22's SPIR-V backend gets wrong in otherwise valid output:
// OpConstantNull of a scalar integer type becomes OpConstant 0. Nothing else is touched.
#include "sycl_thinlto.h"

#include <stdlib.h>
#include <string.h>

enum { OP_TYPE_INT = 21, OP_CONSTANT = 43, OP_CONSTANT_NULL = 46, SPIRV_MAGIC = 0x07230203 };

// The backend emits OpConstantNull for every integer zero, but some operands must be an
// OpConstant (a structure index of OpInBoundsPtrAccessChain, which -O0 code is full of),
// and spirv-val rejects the module. An OpConstant 0 means the same everywhere.
int spirv_fix_null_integers(Buffer *spirv, char **errmsg) {
  const uint32_t *in = (const uint32_t *)spirv->data;
  size_t n = spirv->size / 4;
  if (spirv->size % 4 || n < 5 || in[0] != SPIRV_MAGIC) {
    *errmsg = xstrdup("not a little-endian SPIR-V module");
    return -1;
  }
  uint32_t bound = in[3];
  uint8_t *int_width = xcalloc(bound ? bound : 1, 1); // id -> width/8 of an OpTypeInt
  Buffer out = {0};
  buffer_append(&out, in, 5 * 4);
  for (size_t i = 5; i < n;) {
    uint32_t count = in[i] >> 16, opcode = in[i] & 0xffff;
    if (count == 0 || i + count > n) {
      free(int_width);
      free(out.data);
      *errmsg = format("malformed SPIR-V instruction at word %zu", i);
      return -1;
    }
    if (opcode == OP_TYPE_INT && count >= 3 && in[i + 1] < bound)
      int_width[in[i + 1]] = (uint8_t)(in[i + 2] / 8);
    if (opcode == OP_CONSTANT_NULL && count == 3 && in[i + 1] < bound && int_width[in[i + 1]]) {
      uint32_t words = int_width[in[i + 1]] > 4 ? 2 : 1;
      uint32_t constant[5] = {((3 + words) << 16) | OP_CONSTANT, in[i + 1], in[i + 2], 0, 0};
      buffer_append(&out, constant, (3 + words) * 4);
    } else {
      buffer_append(&out, in + i, count * 4);
    }
    i += count;
  }
  free(int_width);
  free(spirv->data);
  *spirv = out;
  return 0;
}
