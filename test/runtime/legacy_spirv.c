// Makes our SPIR-V readable by llvm-spirv-15 (the only way into pocl, ARCHITECTURE.md fact 7):
// rewrites three valid constructs that translator rejects or mistranslates. Nothing else changes.
#include "properties/properties.h"
#include "spirv/spirv.h"

#include <stdlib.h>
#include <string.h>

enum {
  OP_NAME = 5,
  OP_ENTRY_POINT = 15,
  OP_TYPE_INT = 21,
  OP_TYPE_FLOAT = 22,
  OP_CONSTANT = 43,
  OP_CONSTANT_NULL = 46,
  OP_VARIABLE = 59,
  OP_LOAD = 61,
  OP_ACCESS_CHAIN = 65,
  OP_IN_BOUNDS_ACCESS_CHAIN = 66,
  OP_PTR_ACCESS_CHAIN = 67,
  OP_IN_BOUNDS_PTR_ACCESS_CHAIN = 70,
  OP_DECORATE = 71,
  OP_PTR_CAST_TO_GENERIC = 121,
  OP_BITCAST = 124,
  DECORATION_BUILTIN = 11,
  DECORATION_LINKAGE_ATTRIBUTES = 41,
  SPIRV_MAGIC = 0x07230203,
};

// 1. OpConstantNull of a scalar integer or float: llvm-spirv-15 asserts ("Invalid type");
//    it becomes OpConstant 0 (all-zero bits are 0 and +0.0).
// 2. LinkageAttributes Import on BuiltIn variables (LLVM 22's backend writes one per use of
//    a __spirv_BuiltIn* function): llvm-spirv-15 turns a second one, and every one after
//    spirv-link, into an undefined external global. A builtin needs no linkage; it goes.
// 3. Several variables of one BuiltIn (one per function that reads it): llvm-spirv-15 names
//    them all after the builtin, lowers the first to calls and leaves "name.2" undefined.
//    Every use of a duplicate (as a pointer operand, in an entry point's interface) is
//    redirected to the first; the duplicate's variable, name and decorations go.
static bool uses_pointer_operand(uint32_t opcode) {
  return opcode == OP_LOAD || opcode == OP_ACCESS_CHAIN || opcode == OP_IN_BOUNDS_ACCESS_CHAIN ||
         opcode == OP_PTR_ACCESS_CHAIN || opcode == OP_IN_BOUNDS_PTR_ACCESS_CHAIN ||
         opcode == OP_PTR_CAST_TO_GENERIC || opcode == OP_BITCAST;
}

// Words of the NUL-terminated string literal starting at word W (at most END).
static size_t string_words(const uint32_t *w, size_t end) {
  for (size_t k = 0; k < end; k++)
    if (!(w[k] & 0xff000000u)) return k + 1;
  return end;
}

int legacy_spirv_prepare(Buffer *spirv, char **errmsg) {
  const uint32_t *in = (const uint32_t *)spirv->data;
  size_t n = spirv->size / 4;
  if (spirv->size % 4 || n < 5 || in[0] != SPIRV_MAGIC) {
    *errmsg = xstrdup("not a little-endian SPIR-V module");
    return -1;
  }
  uint32_t bound = in[3];
  uint8_t *scalar_width = xcalloc(bound ? bound : 1, 1); // id -> bytes of an int/float type
  bool *is_builtin = xcalloc(bound ? bound : 1, sizeof(bool));
  uint32_t *canonical = xcalloc(bound ? bound : 1, sizeof(uint32_t)); // duplicate -> first
  uint32_t first_of_builtin[128] = {0}; // BuiltIn number (all < 128 in the Kernel model)
  for (size_t i = 5; i < n;) {          // first pass: which ids are builtins, which are duplicates
    uint32_t count = in[i] >> 16, opcode = in[i] & 0xffff;
    if (count == 0 || i + count > n) {
      free(scalar_width);
      free(is_builtin);
      free(canonical);
      *errmsg = format("malformed SPIR-V instruction at word %zu", i);
      return -1;
    }
    if (opcode == OP_DECORATE && count >= 3 && in[i + 2] == DECORATION_BUILTIN &&
        in[i + 1] < bound) {
      uint32_t id = in[i + 1], builtin = count >= 4 ? in[i + 3] : 0;
      is_builtin[id] = true;
      if (builtin < 128 && !first_of_builtin[builtin])
        first_of_builtin[builtin] = id;
      else if (builtin < 128 && first_of_builtin[builtin] != id)
        canonical[id] = first_of_builtin[builtin];
    }
    i += count;
  }
  Buffer out = {0};
  buffer_append(&out, in, 5 * 4);
  for (size_t i = 5; i < n;) {
    uint32_t count = in[i] >> 16, opcode = in[i] & 0xffff;
    if ((opcode == OP_TYPE_INT || opcode == OP_TYPE_FLOAT) && count >= 3 && in[i + 1] < bound)
      scalar_width[in[i + 1]] = (uint8_t)(in[i + 2] / 8);
    bool drop = opcode == OP_DECORATE && count >= 3 && in[i + 2] == DECORATION_LINKAGE_ATTRIBUTES &&
                in[i + 1] < bound && is_builtin[in[i + 1]];
    if ((opcode == OP_DECORATE || opcode == OP_NAME) && count >= 2 && in[i + 1] < bound &&
        canonical[in[i + 1]])
      drop = true;
    if (opcode == OP_VARIABLE && count >= 3 && in[i + 2] < bound && canonical[in[i + 2]])
      drop = true;
    if (opcode == OP_ENTRY_POINT && count >= 4) { // interface ids follow the name
      size_t first_interface = 3 + string_words(in + i + 3, count - 3);
      uint32_t word[count];
      uint32_t kept = 0;
      for (size_t k = 0; k < count; k++) {
        uint32_t w = in[i + k];
        if (k >= first_interface && w < bound && canonical[w]) continue; // first is listed
        word[kept++] = w;
      }
      word[0] = (kept << 16) | OP_ENTRY_POINT;
      buffer_append(&out, word, kept * 4);
      i += count;
      continue;
    }
    if (uses_pointer_operand(opcode) && count >= 4 && in[i + 3] < bound && canonical[in[i + 3]]) {
      uint32_t word[count];
      memcpy(word, in + i, count * 4);
      word[3] = canonical[in[i + 3]];
      buffer_append(&out, word, count * 4);
      i += count;
      continue;
    }
    if (opcode == OP_CONSTANT_NULL && count == 3 && in[i + 1] < bound && scalar_width[in[i + 1]]) {
      uint32_t words = scalar_width[in[i + 1]] > 4 ? 2 : 1;
      uint32_t constant[5] = {((3 + words) << 16) | OP_CONSTANT, in[i + 1], in[i + 2], 0, 0};
      buffer_append(&out, constant, (3 + words) * 4);
    } else if (!drop) {
      buffer_append(&out, in + i, count * 4);
    }
    i += count;
  }
  free(scalar_width);
  free(is_builtin);
  free(canonical);
  free(spirv->data);
  *spirv = out;
  return 0;
}
