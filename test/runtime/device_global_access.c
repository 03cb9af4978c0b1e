// Binds device globals to host-visible memory: each variable decorated HostAccessINTEL in an
// image becomes a constant pointer to a block of shared virtual memory the runtime owns.
// Nothing else in the SPIR-V changes.
//
// Why not the program's own variable: pocl 3.1 gives every kernel its own copy of a
// program-scope variable (a kernel writing `global int x;` is not seen by the next kernel of
// the program), and has no clGetDeviceGlobalVariablePointerINTEL or clEnqueue*GlobalVariable.
// A pointer constant (OpSpecConstantOp ConvertUToPtr, valid with the Kernel capability) is the
// same memory for every kernel of every program, and for the host.
#include "properties/properties.h"
#include "spirv/spirv.h"

#include <stdlib.h>
#include <string.h>

#include "device_global_access.h"

enum {
  OP_ENTRY_POINT = 15,
  OP_TYPE_INT = 21,
  OP_CONSTANT = 43,
  OP_CONSTANT_NULL = 46,
  OP_SPEC_CONSTANT_OP = 52,
  OP_VARIABLE = 59,
  OP_DECORATE = 71,
  OP_CONVERT_U_TO_PTR = 120,
};

// Words of the NUL-terminated string literal starting at W (at most END).
static size_t string_words(const uint32_t *w, size_t end) {
  for (size_t k = 0; k < end; k++)
    if (!(w[k] & 0xff000000u)) return k + 1;
  return end;
}

static const DeviceGlobalBinding *binding_of(const DeviceGlobalBinding *b, size_t count,
                                             uint32_t id) {
  for (size_t i = 0; i < count; i++)
    if (b[i].variable == id) return &b[i];
  return NULL;
}

int bind_device_globals(Buffer *spirv, DeviceGlobalBinding *bindings, size_t count, char **errmsg) {
  if (!count) return 0;
  const uint32_t *w = (const uint32_t *)spirv->data;
  size_t n = spirv->size / 4;
  uint32_t bound = w[3];
  uint8_t *is_null = xcalloc(bound ? bound : 1, 1); // OpConstantNull ids
  uint32_t ulong_type = 0;
  size_t ulong_at = n; // where OpTypeInt 64 0 is declared
  for (size_t i = 5; i < n;) {
    uint32_t words = w[i] >> 16, op = w[i] & 0xffff;
    if (words == 0 || i + words > n) {
      free(is_null);
      *errmsg = format("malformed SPIR-V instruction at word %zu", i);
      return -1;
    }
    if (op == OP_CONSTANT_NULL && words == 3 && w[i + 2] < bound) is_null[w[i + 2]] = 1;
    if (op == OP_TYPE_INT && words == 4 && w[i + 2] == 64 && w[i + 3] == 0 && !ulong_type) {
      ulong_type = w[i + 1];
      ulong_at = i;
    }
    // A variable initialized otherwise than to zero keeps its program-scope storage.
    const DeviceGlobalBinding *b = NULL;
    if (op == OP_VARIABLE && words >= 4 && (b = binding_of(bindings, count, w[i + 2])))
      ((DeviceGlobalBinding *)b)->bound = words == 4 || (w[i + 4] < bound && is_null[w[i + 4]]);
    i += words;
  }
  free(is_null);

  Buffer out = {0};
  buffer_append(&out, w, 5 * 4);
  bool declared_ulong = false;
  for (size_t i = 5; i < n;) {
    uint32_t words = w[i] >> 16, op = w[i] & 0xffff;
    const DeviceGlobalBinding *b = NULL;
    if (op == OP_VARIABLE && (b = binding_of(bindings, count, w[i + 2])) && b->bound) {
      // %var = OpVariable %ptr CrossWorkgroup [%null]  ->
      // %addr = OpConstant %ulong ADDRESS; %var = OpSpecConstantOp %ptr ConvertUToPtr %addr
      // The module's 64-bit integer type if it is declared before; else one of ours (a
      // duplicate of a later one, which llvm-spirv-15 takes as the same type).
      if (!declared_ulong && (!ulong_type || ulong_at > i)) {
        ulong_type = bound++;
        uint32_t type[] = {4u << 16 | OP_TYPE_INT, ulong_type, 64, 0};
        buffer_append(&out, type, sizeof type);
      }
      declared_ulong = true;
      uint64_t address = (uint64_t)(uintptr_t)b->address;
      uint32_t addr = bound++;
      uint32_t constant[] = {5u << 16 | OP_CONSTANT, ulong_type, addr, (uint32_t)address,
                             (uint32_t)(address >> 32)};
      uint32_t pointer[] = {5u << 16 | OP_SPEC_CONSTANT_OP, w[i + 1], w[i + 2], OP_CONVERT_U_TO_PTR,
                            addr};
      buffer_append(&out, constant, sizeof constant);
      buffer_append(&out, pointer, sizeof pointer);
    } else if (op == OP_DECORATE && words >= 3 && (b = binding_of(bindings, count, w[i + 1])) &&
               b->bound) {
      // Its decorations (linkage, alignment) were the variable's; a constant takes none.
    } else if (op == OP_ENTRY_POINT && words >= 4) { // an interface lists variables only
      size_t first_interface = 3 + string_words(w + i + 3, words - 3);
      uint32_t kept[words];
      uint32_t k = 0;
      for (size_t j = 0; j < words; j++)
        if (j < first_interface || !(b = binding_of(bindings, count, w[i + j])) || !b->bound)
          kept[k++] = w[i + j];
      kept[0] = k << 16 | OP_ENTRY_POINT;
      buffer_append(&out, kept, k * 4);
    } else {
      buffer_append(&out, w + i, words * 4);
    }
    i += words;
  }
  ((uint32_t *)out.data)[3] = bound;
  buffer_free(spirv);
  *spirv = out;
  return 0;
}
