// Rewrites what LLVM 22's SPIR-V backend gets wrong in otherwise valid output:
// OpConstantNull of a scalar integer type becomes OpConstant 0. Nothing else is touched.
#include "spirv/spirv.h"

#include <stdlib.h>
#include <string.h>

enum { OP_TYPE_INT = 21, OP_CONSTANT = 43, OP_CONSTANT_NULL = 46, SPIRV_MAGIC = 0x07230203 };

// The integer types of a module: few, so a list; the module's id bound (a header word, as
// large as 2^32) sizes nothing.
typedef struct {
  uint32_t id, bytes;
} IntType;

static uint32_t int_type_bytes(const IntType *types, size_t count, uint32_t id) {
  for (size_t k = 0; k < count; k++)
    if (types[k].id == id) return types[k].bytes;
  return 0;
}

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
  IntType *ints = NULL;
  size_t num_ints = 0;
  // Written in place: an OpConstantNull (3 words) grows by at most 2, so the output is at most
  // 5/3 of the input; appending instruction by instruction reallocated the image each time.
  uint32_t *words_out = xmalloc((n * 5 / 3 + 5) * 4);
  size_t size = 5;
  memcpy(words_out, in, 5 * 4);
  for (size_t i = 5; i < n;) {
    uint32_t count = in[i] >> 16, opcode = in[i] & 0xffff;
    if (count == 0 || i + count > n) {
      free(ints);
      free(words_out);
      *errmsg = format("malformed SPIR-V instruction at word %zu", i);
      return -1;
    }
    if (opcode == OP_TYPE_INT && count >= 3) {
      ints = xrealloc(ints, (num_ints + 1) * sizeof *ints);
      ints[num_ints++] = (IntType){in[i + 1], in[i + 2] / 8};
    }
    uint32_t bytes =
        opcode == OP_CONSTANT_NULL && count == 3 ? int_type_bytes(ints, num_ints, in[i + 1]) : 0;
    if (bytes) {
      uint32_t words = bytes > 4 ? 2 : 1;
      uint32_t constant[5] = {((3 + words) << 16) | OP_CONSTANT, in[i + 1], in[i + 2], 0, 0};
      memcpy(words_out + size, constant, (3 + words) * 4);
      size += 3 + words;
    } else {
      memcpy(words_out + size, in + i, count * 4);
      size += count;
    }
    i += count;
  }
  free(ints);
  free(spirv->data);
  spirv->data = xrealloc(words_out, size * 4);
  spirv->size = size * 4;
  return 0;
}
