// Makes pocl 3.1 build the functions a kernel reaches only through function pointers (vtables):
// adds to each kernel a never-taken branch calling them. Tests only; what kernels compute is kept.
#include "properties/properties.h"
#include "spirv/spirv.h"

#include <stdlib.h>
#include <string.h>

// pocl 3.1 compiles each kernel into a binary of its own, into which it clones the kernel and
// the functions the kernel *calls* (copy_func_callgraph follows call instructions only). A
// function reached through a vtable is left a declaration, and loading the kernel fails with
// "undefined symbol". pocl clones before it optimizes, so a call behind `if (false)` is enough
// to have it cloned; LLVM then deletes the dead branch. Done on SPIR-V, where every type is an
// id, before llvm-spirv-15 -r; an image without kernels or function pointers is not changed.

enum {
  OP_UNDEF = 1,
  OP_LINE = 8,
  OP_ENTRY_POINT = 15,
  OP_TYPE_BOOL = 20,
  OP_TYPE_FUNCTION = 33,
  OP_CONSTANT_FALSE = 42,
  OP_FUNCTION = 54,
  OP_FUNCTION_PARAMETER = 55,
  OP_FUNCTION_CALL = 57,
  OP_VARIABLE = 59,
  OP_LABEL = 248,
  OP_BRANCH = 249,
  OP_BRANCH_CONDITIONAL = 250,
  OP_NO_LINE = 317,
  OP_CONSTANT_FUNCTION_POINTER_INTEL = 5600, // SPV_INTEL_function_pointers
  EXECUTION_MODEL_KERNEL = 6,
  SPIRV_MAGIC = 0x07230203,
};

typedef struct {
  const uint32_t *in;
  size_t n;
  uint32_t bound;
  Buffer out;
} Rewrite;

static void emit(Rewrite *r, uint32_t opcode, const uint32_t *operands, uint32_t count) {
  uint32_t head = (count + 1) << 16 | opcode;
  buffer_append(&r->out, &head, 4);
  buffer_append(&r->out, operands, count * 4);
}

static void add_unique(uint32_t *list, size_t *count, uint32_t id) {
  for (size_t i = 0; i < *count; i++)
    if (list[i] == id) return;
  list[(*count)++] = id;
}

int pocl_call_function_pointer_targets(Buffer *spirv, char **errmsg) {
  Rewrite r = {(const uint32_t *)spirv->data, spirv->size / 4, 0, {0}};
  if (spirv->size % 4 || r.n < 5 || r.in[0] != SPIRV_MAGIC) {
    *errmsg = xstrdup("not a little-endian SPIR-V module");
    return -1;
  }
  r.bound = r.in[3];
  uint32_t bound = r.bound ? r.bound : 1;
  size_t *type_at = xcalloc(bound, sizeof(size_t)); // OpTypeFunction id -> word offset
  uint32_t *function_type = xcalloc(bound, sizeof(uint32_t));
  bool *is_kernel = xcalloc(bound, sizeof(bool));
  uint32_t *targets = xcalloc(r.n, sizeof(uint32_t)), *undef_of = xcalloc(bound, sizeof(uint32_t));
  size_t num_targets = 0, num_kernels = 0, first_function = 0;
  uint32_t bool_type = 0, false_value = 0;
  int status = 0;
  for (size_t i = 5; i < r.n;) {
    uint32_t count = r.in[i] >> 16, opcode = r.in[i] & 0xffff;
    const uint32_t *w = r.in + i;
    if (!count || i + count > r.n) {
      *errmsg = format("malformed SPIR-V instruction at word %zu", i);
      status = -1;
      goto done;
    }
    if (opcode == OP_ENTRY_POINT && count >= 3 && w[1] == EXECUTION_MODEL_KERNEL && w[2] < bound) {
      num_kernels += !is_kernel[w[2]];
      is_kernel[w[2]] = true;
    } else if (opcode == OP_TYPE_BOOL && count == 2) {
      bool_type = w[1];
    } else if (opcode == OP_CONSTANT_FALSE && count == 3 && w[1] == bool_type) {
      false_value = w[2];
    } else if (opcode == OP_TYPE_FUNCTION && count >= 3 && w[1] < bound) {
      type_at[w[1]] = i;
    } else if (opcode == OP_CONSTANT_FUNCTION_POINTER_INTEL && count == 4) {
      add_unique(targets, &num_targets, w[3]);
    } else if (opcode == OP_FUNCTION && count == 5 && w[2] < bound) {
      function_type[w[2]] = w[4];
      if (!first_function) first_function = i;
    }
    i += count;
  }
  size_t kept = 0; // a kernel is never called; a target needs a known signature
  for (size_t t = 0; t < num_targets; t++) {
    uint32_t f = targets[t];
    if (f < bound && !is_kernel[f] && function_type[f] < bound && type_at[function_type[f]])
      targets[kept++] = f;
  }
  num_targets = kept;
  if (!num_targets || !num_kernels) goto done;

  // What the calls need goes last among the globals: bool, false, an undef per parameter type.
  buffer_append(&r.out, r.in, first_function * 4);
  if (!bool_type) emit(&r, OP_TYPE_BOOL, (uint32_t[]){bool_type = r.bound++}, 1);
  if (!false_value)
    emit(&r, OP_CONSTANT_FALSE, (uint32_t[]){bool_type, false_value = r.bound++}, 2);
  for (size_t t = 0; t < num_targets; t++) {
    const uint32_t *type = r.in + type_at[function_type[targets[t]]];
    for (uint32_t p = 3; p < type[0] >> 16; p++)
      if (type[p] < bound && !undef_of[type[p]]) {
        undef_of[type[p]] = r.bound++;
        emit(&r, OP_UNDEF, (uint32_t[]){type[p], undef_of[type[p]]}, 2);
      }
  }

  // In each kernel: a new entry block (with the entry's variables, which must stay first)
  // branching on false to a block of calls; both go on to the old entry block.
  bool in_kernel = false;
  for (size_t i = first_function; i < r.n;) {
    uint32_t count = r.in[i] >> 16, opcode = r.in[i] & 0xffff;
    if (opcode == OP_FUNCTION) in_kernel = r.in[i + 2] < bound && is_kernel[r.in[i + 2]];
    if (!in_kernel || opcode != OP_LABEL) {
      buffer_append(&r.out, r.in + i, count * 4);
      i += count;
      continue;
    }
    in_kernel = false; // only its first block
    uint32_t old_entry = r.in[i + 1], calls = r.bound++;
    emit(&r, OP_LABEL, (uint32_t[]){r.bound++}, 1);
    for (i += count; i < r.n; i += r.in[i] >> 16) {
      uint32_t op = r.in[i] & 0xffff;
      if (op != OP_VARIABLE && op != OP_LINE && op != OP_NO_LINE) break;
      buffer_append(&r.out, r.in + i, (r.in[i] >> 16) * 4);
    }
    emit(&r, OP_BRANCH_CONDITIONAL, (uint32_t[]){false_value, calls, old_entry}, 3);
    emit(&r, OP_LABEL, (uint32_t[]){calls}, 1);
    for (size_t t = 0; t < num_targets; t++) {
      const uint32_t *type = r.in + type_at[function_type[targets[t]]];
      uint32_t num_params = (type[0] >> 16) - 3;
      uint32_t *call = xmalloc((3 + num_params) * sizeof(uint32_t));
      call[0] = type[2]; // the return type
      call[1] = r.bound++;
      call[2] = targets[t];
      for (uint32_t p = 0; p < num_params; p++)
        call[3 + p] = undef_of[type[3 + p]];
      emit(&r, OP_FUNCTION_CALL, call, 3 + num_params);
      free(call);
    }
    emit(&r, OP_BRANCH, (uint32_t[]){old_entry}, 1);
    emit(&r, OP_LABEL, (uint32_t[]){old_entry}, 1);
  }
  ((uint32_t *)r.out.data)[3] = r.bound;
  free(spirv->data);
  *spirv = r.out;
done:
  free(type_at);
  free(function_type);
  free(is_kernel);
  free(targets);
  free(undef_of);
  return status;
}
