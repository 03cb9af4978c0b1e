// SYCL 2020 specialization constants of one image: the calls DPC++'s front end emits
// (__sycl_getScalar2020SpecConstantValue, __sycl_getComposite2020SpecConstantValue, and
// llvm.sycl.alloca, a private array sized by one) lowered as intel's SpecConstantsPass lowers
// them, with the metadata its property sets are read from (properties/compute.c). It reads no
// property and emits no SPIR-V.
#include "hooks/hooks.h"

#include <stdlib.h>
#include <string.h>

static const char scalar_prefix[] = "_Z37__sycl_getScalar2020SpecConstantValue";
static const char composite_prefix[] = "_Z40__sycl_getComposite2020SpecConstantValue";
static const char ids_metadata[] = "sycl.specialization-constants";
static const char defaults_metadata[] = "sycl.specialization-constants-default-values";
// intel's mark of a module whose constants were replaced by their defaults.
static const char defaults_module_metadata[] = "sycl.specialization-constants-default-values-module";
// intel's llvm.sycl.alloca.*(symbolic ID, specialization_id, buffer, T value, i64 align): a
// private array of T whose length is the specialization constant (sycl_ext_oneapi_private_alloca).
static const char sycl_alloca_prefix[] = "llvm.sycl.alloca";
enum { PADDING_ID = 0xffffffffu }; // a descriptor the runtime skips

static bool is_spec_constant_getter(LLVMValueRef f) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  return LLVMIsDeclaration(f) && (!strncmp(name, scalar_prefix, sizeof scalar_prefix - 1) ||
                                  !strncmp(name, composite_prefix, sizeof composite_prefix - 1));
}

static bool is_sycl_alloca(LLVMValueRef f) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  return LLVMIsDeclaration(f) && !strncmp(name, sycl_alloca_prefix, sizeof sycl_alloca_prefix - 1);
}

bool module_uses_spec_constants(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if ((is_spec_constant_getter(f) || is_sycl_alloca(f)) && LLVMGetFirstUse(f)) return true;
  return false;
}

//
// Reading a call: its symbolic ID and its default value
//

// As LLVM's stripPointerCasts: casts, and GEPs whose indices are all zero.
static LLVMValueRef strip_pointer_casts(LLVMValueRef v) {
  for (;;) {
    LLVMOpcode op = LLVMIsAConstantExpr(v)   ? LLVMGetConstOpcode(v)
                    : LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v)
                                            : (LLVMOpcode)0;
    if (op == LLVMBitCast || op == LLVMAddrSpaceCast) {
      v = LLVMGetOperand(v, 0);
    } else if (op == LLVMGetElementPtr) {
      int n = LLVMGetNumOperands(v);
      bool zero = true;
      for (int i = 1; i < n && zero; i++) {
        LLVMValueRef idx = LLVMGetOperand(v, i);
        zero = LLVMIsAConstantInt(idx) && LLVMConstIntGetZExtValue(idx) == 0;
      }
      if (!zero) return v;
      v = LLVMGetOperand(v, 0);
    } else {
      return v;
    }
  }
}

// The first store into SLOT, directly or through casts of it (clang 14 at -O0 stored through
// an addrspacecast of the alloca), or NULL.
static LLVMValueRef store_into(LLVMValueRef slot) {
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u), found = NULL;
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot)
      found = user;
    else if (LLVMIsABitCastInst(user) || LLVMIsAAddrSpaceCastInst(user))
      found = store_into(user);
    if (found) return found;
  }
  return NULL;
}

// The string literal behind a pointer argument, *LEN its bytes (without the terminating NUL;
// a zeroinitializer is the empty string). At -O0 the argument is a load from an alloca that
// one store filled with the literal's address: *store is that store (intel deletes it).
static char *string_literal(LLVMValueRef arg, LLVMValueRef *store, size_t *len) {
  LLVMValueRef v = strip_pointer_casts(arg);
  *store = NULL;
  if (LLVMIsALoadInst(v)) {
    *store = store_into(strip_pointer_casts(LLVMGetOperand(v, 0)));
    if (!*store) return NULL;
    v = strip_pointer_casts(LLVMGetOperand(*store, 0));
  }
  LLVMValueRef init = LLVMIsAGlobalVariable(v) ? LLVMGetInitializer(v) : NULL;
  LLVMTypeRef t = init ? LLVMTypeOf(init) : NULL;
  if (init && LLVMIsAConstantAggregateZero(init) && LLVMGetTypeKind(t) == LLVMArrayTypeKind &&
      LLVMGetTypeKind(LLVMGetElementType(t)) == LLVMIntegerTypeKind &&
      LLVMGetIntTypeWidth(LLVMGetElementType(t)) == 8) {
    *len = 0;
    return xstrdup("");
  }
  if (!init || !LLVMIsAConstantDataArray(init)) return NULL;
  const char *text = LLVMGetAsString(init, len);
  if (*len && !text[*len - 1]) (*len)--;
  char *copy = xmalloc(*len + 1);
  memcpy(copy, text, *len);
  copy[*len] = 0;
  return copy;
}

// An ID for a message: bytes outside printable ASCII as \xNN. Malloc'd.
static char *printable_id(const char *id, size_t len) {
  Buffer b = {0};
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)id[i];
    char esc[8];
    if (c < 0x20 || c >= 0x7f || c == '\\')
      buffer_append(&b, esc, (size_t)snprintf(esc, sizeof esc, "\\x%02x", c));
    else
      buffer_append(&b, &c, 1);
  }
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

// Why the symbolic ID cannot name a property, or NULL. The runtime looks a constant up by its
// ID as a C string, so one with a NUL byte would be another's; the link writes its property
// sets as JSON, whose names are UTF-8, and a byte that is not would be replaced there (two IDs
// that differ only in such bytes became one property, the defaults read from wrong offsets).
static char *id_problem(const char *id, size_t len, bool as_json) {
  if (!len) return xstrdup("an empty specialization constant ID");
  char *shown = printable_id(id, len);
  char *why = memchr(id, 0, len) ? format("specialization constant ID '%s' holds a NUL byte", shown)
              : as_json && !utf8_is_valid(id)
                  ? format("specialization constant ID '%s' is not valid UTF-8, which the link's "
                           "property sets (JSON) cannot carry",
                           shown)
                  : NULL;
  free(shown);
  return why;
}

// The default value: the specialization_id global's only field.
static LLVMValueRef default_value(LLVMValueRef arg) {
  LLVMValueRef gv = strip_pointer_casts(arg);
  LLVMValueRef init = LLVMIsAGlobalVariable(gv) ? LLVMGetInitializer(gv) : NULL;
  return init ? LLVMGetAggregateElement(init, 0) : NULL;
}

//
// The types: offsets, sizes, mangled names
//

static bool is_aggregate(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMStructTypeKind || k == LLVMArrayTypeKind || k == LLVMVectorTypeKind;
}

static unsigned element_count(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMStructTypeKind: return LLVMCountStructElementTypes(t);
  case LLVMArrayTypeKind: return (unsigned)LLVMGetArrayLength2(t);
  case LLVMVectorTypeKind: return LLVMGetVectorSize(t);
  default: return 0;
  }
}

static LLVMTypeRef element_type(LLVMTypeRef t, unsigned i) {
  return LLVMGetTypeKind(t) == LLVMStructTypeKind ? LLVMStructGetTypeAtIndex(t, i)
                                                  : LLVMGetElementType(t);
}

// The distance between an array's or vector's elements (0 for a struct), asked of the data
// layout once per aggregate rather than once per element.
static uint64_t element_stride(LLVMTargetDataRef dl, LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMStructTypeKind ? 0
                                                  : LLVMABISizeOfType(dl, LLVMGetElementType(t));
}

static uint64_t element_offset(LLVMTargetDataRef dl, LLVMTypeRef t, uint64_t stride, unsigned i) {
  if (LLVMGetTypeKind(t) == LLVMStructTypeKind) return LLVMOffsetOfElement(dl, t, i);
  return i * stride;
}

// intel's mangleType: not the Itanium ABI, but unique per type, which is all it needs.
static void mangle_type(LLVMTypeRef t, Buffer *out) {
  char *text = NULL;
  switch (LLVMGetTypeKind(t)) {
  case LLVMFloatTypeKind: text = xstrdup("f"); break;
  case LLVMDoubleTypeKind: text = xstrdup("d"); break;
  case LLVMHalfTypeKind: text = xstrdup("Dh"); break;
  case LLVMIntegerTypeKind: {
    unsigned w = LLVMGetIntTypeWidth(t);
    text = xstrdup(w == 1 ? "b" : w == 8 ? "a" : w == 16 ? "s" : w == 32 ? "i" : "x");
    break;
  }
  case LLVMStructTypeKind: {
    const char *name = LLVMGetStructName(t);
    text = xstrdup(name ? name : "");
    break;
  }
  case LLVMArrayTypeKind:
  case LLVMVectorTypeKind: {
    bool array = LLVMGetTypeKind(t) == LLVMArrayTypeKind;
    text = format("%s%u_", array ? "A" : "Dv", element_count(t));
    buffer_append(out, text, strlen(text));
    free(text);
    mangle_type(LLVMGetElementType(t), out);
    return;
  }
  default: text = xstrdup("");
  }
  buffer_append(out, text, strlen(text));
  free(text);
}

// _Z<len><base><params>, plus _R<return> for an aggregate return (intel's mangleFuncItanium).
static char *mangled_name(const char *base, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n) {
  Buffer b = {0};
  char *head = format("_Z%zu%s", strlen(base), base);
  buffer_append(&b, head, strlen(head));
  free(head);
  // A run of one type (an array's elements) is mangled once and its text repeated: one
  // allocation for a composite of a million scalars, not one each.
  for (unsigned i = 0, run; i < n; i += run) {
    for (run = 1; i + run < n && params[i + run] == params[i]; run++) {
    }
    Buffer one = {0};
    mangle_type(params[i], &one);
    b.data = xrealloc(b.data, b.size + (size_t)run * one.size);
    for (unsigned k = 0; k < run && one.size; k++, b.size += one.size)
      memcpy(b.data + b.size, one.data, one.size);
    free(one.data);
  }
  if (is_aggregate(ret)) {
    buffer_append(&b, "_R", 2);
    mangle_type(ret, &b);
  }
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

//
// The lowering, per module
//

typedef struct {
  unsigned id;
  bool padding; // an element the default leaves undefined: its ID is used up, not reported
} ScalarId;

typedef struct {
  char *symbol;
  ScalarId *ids; // native
  size_t num_ids, ids_capacity;
  unsigned offset; // emulation: where its value lies in the runtime's buffer
  uint32_t *descriptors; // {ID, offset, size} triples, for the metadata
  size_t num_descriptors, descriptors_capacity;
} SpecConstant;

typedef struct {
  LLVMValueRef value;
  LLVMMetadataRef md;
} IntConstant;

typedef struct {
  LLVMModuleRef m;
  LLVMContextRef ctx;
  LLVMTargetDataRef dl;
  LLVMBuilderRef b;
  SpecConstMode mode;
  bool zero_padding; // pass zero, not undef, for a padding element (for LLVM's SPIR-V backend)
  bool intel_shape;  // unfolded gep/bitcast/trunc instructions with intel's names (the front)
  bool spir;         // spir_func calls
  bool as_json;      // the property sets go out as JSON (the link): IDs must be UTF-8
  SpecConstant *constants; // in the order first seen
  size_t count;
  unsigned next_id, next_offset;
  LLVMValueRef *defaults; // the default-values metadata operands, in order
  size_t num_defaults;
  char *error;
  // The last scalar's getter (__spirv_SpecConstant of one type): an array's elements all call
  // the same, and naming and looking it up per element was most of the lowering's time.
  LLVMTypeRef scalar_ret, scalar_default, scalar_fty;
  LLVMValueRef scalar_fn;
  bool scalar_as_bool;
  // The i32s below the IDs' end (the IDs, small offsets and sizes), each made once with its
  // metadata: asking LLVM again for the same constant costs a lookup in the context's large
  // hash tables, a cache miss per element. Larger values (offsets) LLVM finds itself.
  LLVMTypeRef i32;
  IntConstant *ints;
  size_t num_ints;
} Lowering;

// A defined scalar of a default value, at its byte offset.
typedef struct {
  uint64_t offset;
  LLVMValueRef value;
} Leaf;

// The leaves in offset order, as collect_leaves finds them. The lowering walks the type in the
// same order, so one cursor that only moves forward finds each element's leaf: linear in the
// constant's size (a search from the start per element was quadratic).
typedef struct {
  Leaf *items;
  size_t count, capacity;
  size_t cursor; // the first leaf whose offset is not below the lowering's position
} Leaves;

static void collect_leaves(LLVMTargetDataRef dl, LLVMValueRef c, uint64_t offset, Leaves *out) {
  if (!c || LLVMIsAUndefValue(c)) return; // poison too
  LLVMTypeRef t = LLVMTypeOf(c);
  if (is_aggregate(t)) {
    unsigned n = element_count(t);
    uint64_t stride = element_stride(dl, t);
    for (unsigned i = 0; i < n; i++)
      collect_leaves(dl, LLVMGetAggregateElement(c, i), offset + element_offset(dl, t, stride, i),
                     out);
    return;
  }
  if (out->count == out->capacity) {
    out->capacity = out->capacity ? 2 * out->capacity : 16;
    out->items = xrealloc(out->items, out->capacity * sizeof *out->items);
  }
  out->items[out->count++] = (Leaf){offset, c};
}

// The leaf that starts at OFFSET, or NULL; OFFSET never goes below an earlier call's.
static LLVMValueRef leaf_at(Leaves *l, uint64_t offset) {
  while (l->cursor < l->count && l->items[l->cursor].offset < offset)
    l->cursor++;
  return l->cursor < l->count && l->items[l->cursor].offset == offset ? l->items[l->cursor].value
                                                                        : NULL;
}

// The table of i32s reaches at least LIMIT.
static void reserve_ints(Lowering *lw, size_t limit) {
  if (limit <= lw->num_ints) return;
  size_t n = lw->num_ints ? lw->num_ints : 64;
  while (n < limit)
    n *= 2;
  lw->ints = xrealloc(lw->ints, n * sizeof *lw->ints);
  memset(lw->ints + lw->num_ints, 0, (n - lw->num_ints) * sizeof *lw->ints);
  lw->num_ints = n;
}

// The i32 V, made once where the table reaches it.
static LLVMValueRef int_constant(Lowering *lw, uint32_t v) {
  if (v >= lw->num_ints) return LLVMConstInt(lw->i32, v, 0);
  IntConstant *c = &lw->ints[v];
  if (!c->value) c->value = LLVMConstInt(lw->i32, v, 0);
  return c->value;
}

static LLVMMetadataRef int_metadata(Lowering *lw, uint32_t v) {
  if (v >= lw->num_ints) return LLVMValueAsMetadata(LLVMConstInt(lw->i32, v, 0));
  IntConstant *c = &lw->ints[v];
  if (!c->md) c->md = LLVMValueAsMetadata(int_constant(lw, v));
  return c->md;
}

static LLVMValueRef emit_call(Lowering *lw, const char *base, LLVMTypeRef ret, LLVMValueRef *args,
                              unsigned n, const char *name) {
  // An array's scalars all call the getter the first one declared: no type or name made again.
  if (n == 2 && lw->scalar_fn && ret == lw->scalar_ret && LLVMTypeOf(args[0]) == lw->i32 &&
      LLVMTypeOf(args[1]) == lw->scalar_default) {
    LLVMValueRef call = LLVMBuildCall2(lw->b, lw->scalar_fty, lw->scalar_fn, args, n,
                                       lw->scalar_as_bool ? "" : name);
    if (lw->spir) LLVMSetInstructionCallConv(call, CC_SPIR_FUNC);
    return lw->scalar_as_bool ? LLVMBuildTrunc(lw->b, call, ret, "tobool") : call;
  }
  LLVMTypeRef *params = xcalloc(n + 1, sizeof *params);
  for (unsigned i = 0; i < n; i++)
    params[i] = LLVMTypeOf(args[i]);
  // intel's bool: i8 __spirv_SpecConstantia(i32, i8), then a trunc to i1.
  bool as_bool = LLVMGetTypeKind(ret) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(ret) == 1 &&
                 n == 2 && LLVMGetTypeKind(params[1]) == LLVMIntegerTypeKind &&
                 LLVMGetIntTypeWidth(params[1]) == 8;
  LLVMTypeRef call_ret = as_bool ? params[1] : ret;
  LLVMTypeRef fty = LLVMFunctionType(call_ret, params, n, 0);
  bool scalar = n == 2 && !is_aggregate(ret) && params[0] == lw->i32;
  char *fname = mangled_name(base, ret, params, n);
  LLVMValueRef f = LLVMGetNamedFunction(lw->m, fname);
  if (f && LLVMGlobalGetValueType(f) != fty && !lw->error)
    lw->error = format("'%s' is declared with another type", fname);
  if (!f) {
    f = LLVMAddFunction(lw->m, fname, fty);
    if (lw->spir) LLVMSetFunctionCallConv(f, CC_SPIR_FUNC);
  }
  free(fname);
  if (scalar && LLVMGlobalGetValueType(f) == fty) {
    lw->scalar_ret = ret;
    lw->scalar_default = params[1];
    lw->scalar_fty = fty;
    lw->scalar_fn = f;
    lw->scalar_as_bool = as_bool;
  }
  LLVMValueRef call = LLVMBuildCall2(lw->b, fty, f, args, n, as_bool ? "" : name);
  if (lw->spir) LLVMSetInstructionCallConv(call, CC_SPIR_FUNC);
  free(params);
  return as_bool ? LLVMBuildTrunc(lw->b, call, ret, "tobool") : call;
}

// The ID of a constant's next scalar: the one it had when the constant was read before, else
// one more than the last (a new constant's first ID is set before the walk).
static ScalarId *next_scalar_id(SpecConstant *sc, size_t *index, bool padding) {
  if (*index >= sc->num_ids) {
    if (sc->num_ids == sc->ids_capacity) {
      sc->ids_capacity = 2 * sc->ids_capacity;
      sc->ids = xrealloc(sc->ids, sc->ids_capacity * sizeof *sc->ids);
    }
    sc->ids[sc->num_ids] = (ScalarId){sc->ids[sc->num_ids - 1].id + 1, padding};
    sc->num_ids++;
  }
  return &sc->ids[(*index)++];
}

// intel's emitSpecConstantRecursiveImpl: one __spirv_SpecConstant per scalar, numbered in
// order (a new constant's IDs are made here, an old one's reused), and one
// __spirv_SpecConstantComposite per aggregate, innermost first. An element the default leaves
// undefined (padding) uses up an ID and goes in as undef (or zero).
static LLVMValueRef emit_native(Lowering *lw, SpecConstant *sc, LLVMTypeRef t, size_t *index,
                                uint64_t offset, Leaves *leaves) {
  if (!is_aggregate(t)) {
    LLVMValueRef def = leaf_at(leaves, offset);
    if (!def) {
      if (!lw->error)
        lw->error = format("%s: the default value has no element at offset %llu", sc->symbol,
                           (unsigned long long)offset);
      def = LLVMConstNull(t);
    }
    unsigned id = next_scalar_id(sc, index, false)->id;
    reserve_ints(lw, (size_t)id + 1); // IDs are dense from 0
    LLVMValueRef args[2] = {int_constant(lw, id), def};
    return emit_call(lw, "__spirv_SpecConstant", t, args, 2, "");
  }
  unsigned n = element_count(t);
  uint64_t stride = element_stride(lw->dl, t);
  LLVMValueRef *elements = xcalloc(n + 1, sizeof *elements);
  for (unsigned i = 0; i < n; i++) {
    LLVMTypeRef et = element_type(t, i);
    uint64_t at = offset + element_offset(lw->dl, t, stride, i);
    if (leaf_at(leaves, at)) { // some leaf starts here
      elements[i] = emit_native(lw, sc, et, index, at, leaves);
      continue;
    }
    next_scalar_id(sc, index, true);
    elements[i] = lw->zero_padding ? LLVMConstNull(et) : LLVMGetUndef(et);
  }
  LLVMValueRef v = emit_call(lw, "__spirv_SpecConstantComposite", t, elements, n, "");
  free(elements);
  return v;
}

static void add_descriptor(SpecConstant *sc, uint32_t id, uint32_t offset, uint32_t size) {
  if (sc->num_descriptors == sc->descriptors_capacity) {
    sc->descriptors_capacity = sc->descriptors_capacity ? 2 * sc->descriptors_capacity : 4;
    sc->descriptors =
        xrealloc(sc->descriptors, sc->descriptors_capacity * 3 * sizeof *sc->descriptors);
  }
  uint32_t *d = &sc->descriptors[3 * sc->num_descriptors++];
  d[0] = id;
  d[1] = offset;
  d[2] = size;
}

// intel's collectCompositeElementsInfoRecursive: a descriptor per scalar with a real ID, and
// one for each struct's tail padding.
static void describe(Lowering *lw, SpecConstant *sc, LLVMTypeRef t, size_t *index,
                     unsigned *offset) {
  if (sc->ids[*index].padding) {
    (*index)++;
    return;
  }
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMArrayTypeKind || k == LLVMVectorTypeKind) {
    unsigned n = element_count(t);
    for (unsigned i = 0; i < n; i++)
      describe(lw, sc, LLVMGetElementType(t), index, offset);
    return;
  }
  if (k == LLVMStructTypeKind) {
    unsigned base = *offset, local = *offset, n = element_count(t);
    for (unsigned i = 0; i < n; i++) {
      local = *offset + (unsigned)LLVMOffsetOfElement(lw->dl, t, i);
      describe(lw, sc, element_type(t, i), index, &local);
    }
    unsigned size = (unsigned)LLVMABISizeOfType(lw->dl, t);
    if (base + size > local) add_descriptor(sc, PADDING_ID, local, base + size - local);
    *offset += size;
    return;
  }
  unsigned size = (unsigned)LLVMStoreSizeOfType(lw->dl, t);
  add_descriptor(sc, sc->ids[*index].id, *offset, size);
  (*index)++;
  *offset += size;
}

static SpecConstant *find_constant(Lowering *lw, const char *symbol) {
  for (size_t i = 0; i < lw->count; i++)
    if (!strcmp(lw->constants[i].symbol, symbol)) return &lw->constants[i];
  return NULL;
}

static SpecConstant *add_constant(Lowering *lw, char *symbol) {
  lw->constants = xrealloc(lw->constants, (lw->count + 1) * sizeof *lw->constants);
  SpecConstant *sc = &lw->constants[lw->count++];
  *sc = (SpecConstant){.symbol = symbol};
  return sc;
}

static void add_default(Lowering *lw, LLVMValueRef value) {
  LLVMMetadataRef md = LLVMValueAsMetadata(value);
  LLVMValueRef node = LLVMMetadataAsValue(lw->ctx, LLVMMDNodeInContext2(lw->ctx, &md, 1));
  lw->defaults = xrealloc(lw->defaults, (lw->num_defaults + 1) * sizeof *lw->defaults);
  lw->defaults[lw->num_defaults++] = node;
}

// intel's emulation: a load from the runtime's buffer at the constant's offset (each new
// constant aligned to its type; the padding before it is described after the previous one).
static LLVMValueRef emit_emulated(Lowering *lw, LLVMValueRef buffer, unsigned offset,
                                  LLVMTypeRef t) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(lw->ctx);
  LLVMValueRef index = LLVMConstInt(LLVMInt32TypeInContext(lw->ctx), offset, 0);
  bool is_bool = LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1;
  LLVMValueRef ptr;
  if (lw->intel_shape) { // as intel writes it: "gep", then "bc" (not for a bool), "load"
    ptr = bridge_build_unfolded_gep(lw->b, i8, buffer, index, "gep");
    if (!is_bool) ptr = bridge_build_unfolded_cast(lw->b, LLVMBitCast, ptr, LLVMTypeOf(ptr), "bc");
  } else {
    ptr = LLVMBuildGEP2(lw->b, i8, buffer, &index, 1, "gep");
  }
  LLVMValueRef load = LLVMBuildLoad2(lw->b, is_bool ? i8 : t, ptr, "load");
  return is_bool ? LLVMBuildTrunc(lw->b, load, t, "tobool") : load;
}

// intel's lowering of llvm.sycl.alloca: an array alloca of the call's T whose length is SIZE,
// with the call's alignment, in place of the call.
static LLVMValueRef emit_sized_alloca(Lowering *lw, LLVMValueRef call, LLVMValueRef size) {
  LLVMValueRef align = LLVMGetOperand(call, 4);
  if (LLVMGetTypeKind(LLVMTypeOf(size)) != LLVMIntegerTypeKind || !LLVMIsAConstantInt(align)) {
    if (!lw->error)
      lw->error = xstrdup("llvm.sycl.alloca: the length is no integer or the alignment no constant");
    return LLVMGetUndef(LLVMTypeOf(call));
  }
  LLVMValueRef a = LLVMBuildArrayAlloca(lw->b, LLVMTypeOf(LLVMGetOperand(call, 3)), size, "alloca");
  LLVMSetAlignment(a, (unsigned)LLVMConstIntGetZExtValue(align));
  if (LLVMTypeOf(a) != LLVMTypeOf(call) && !lw->error) // llvm-c places allocas in the DL's space
    lw->error = xstrdup("llvm.sycl.alloca: a pointer outside the data layout's alloca space");
  return a;
}

static void lower_call(Lowering *lw, LLVMValueRef f, LLVMValueRef call) {
  bool sycl_alloca = is_sycl_alloca(f);
  unsigned sret_kind = LLVMGetEnumAttributeKindForName("sret", 4);
  LLVMAttributeRef sret = LLVMGetEnumAttributeAtIndex(f, 1, sret_kind);
  unsigned name_arg = sret ? 1 : 0;
  LLVMValueRef store = NULL;
  size_t symbol_len = 0;
  char *symbol = string_literal(LLVMGetOperand(call, name_arg), &store, &symbol_len);
  LLVMValueRef def = default_value(LLVMGetOperand(call, name_arg + 1));
  char *problem = symbol ? id_problem(symbol, symbol_len, lw->as_json) : NULL;
  if (!symbol || !def || problem) {
    size_t len;
    char *getter = symbol_for_message(LLVMGetValueName2(f, &len));
    if (!lw->error)
      lw->error = problem ? format("a call of %s: %s", getter, problem)
                          : format("a call of %s whose %s is not a constant global", getter,
                                   symbol ? "default value" : "symbolic ID");
    free(getter);
    free(problem);
    free(symbol);
    return;
  }
  // llvm.sycl.alloca returns the array: its constant's type is that of the default (in memory,
  // so a bool is an i8, as intel).
  LLVMTypeRef t = sret          ? LLVMGetTypeAttributeValue(sret)
                  : sycl_alloca ? LLVMTypeOf(def)
                                : LLVMTypeOf(call);
  LLVMPositionBuilderBefore(lw->b, call);
  SpecConstant *sc = find_constant(lw, symbol);
  bool is_new = !sc;
  if (is_new) sc = add_constant(lw, xstrdup(symbol));
  LLVMValueRef replacement = NULL;
  unsigned padding = 0;
  if (lw->mode == SPEC_CONST_NATIVE) {
    if (is_new) {
      sc->ids_capacity = 16;
      sc->ids = xcalloc(sc->ids_capacity, sizeof *sc->ids);
      sc->ids[0] = (ScalarId){lw->next_id, false};
      sc->num_ids = 1;
    }
    Leaves leaves = {0};
    collect_leaves(lw->dl, def, 0, &leaves);
    size_t index = 0;
    replacement = emit_native(lw, sc, t, &index, 0, &leaves);
    free(leaves.items);
    if (is_new) {
      lw->next_id += (unsigned)sc->num_ids;
      size_t at = 0;
      unsigned offset = 0;
      describe(lw, sc, t, &at, &offset);
    }
  } else if (lw->mode == SPEC_CONST_EMULATION) {
    LLVMValueRef buffer = LLVMGetOperand(call, name_arg + 2);
    if (is_new) {
      unsigned align = LLVMABIAlignmentOfType(lw->dl, t), at = lw->next_offset;
      if (align && at % align) {
        padding = align - at % align;
        SpecConstant *last = &lw->constants[lw->count - 2];
        add_descriptor(last, PADDING_ID, last->descriptors[2], padding);
        lw->next_offset += padding;
      }
      sc->offset = lw->next_offset;
      add_descriptor(sc, lw->next_id++, 0, (uint32_t)LLVMStoreSizeOfType(lw->dl, LLVMTypeOf(def)));
      lw->next_offset += (unsigned)LLVMStoreSizeOfType(lw->dl, t);
    }
    replacement = emit_emulated(lw, buffer, sc->offset, t);
  } else { // SPEC_CONST_DEFAULTS
    bool is_bool = LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1;
    replacement = !is_bool          ? def
                  : lw->intel_shape ? bridge_build_unfolded_cast(lw->b, LLVMTrunc, def, t, "bool")
                                    : LLVMBuildTrunc(lw->b, def, t, "bool");
  }
  // intel: in emulation the array's length is the default (the runtime refuses such a kernel).
  if (sycl_alloca)
    replacement = emit_sized_alloca(lw, call, lw->mode == SPEC_CONST_EMULATION ? def : replacement);
  if (is_new && lw->mode != SPEC_CONST_DEFAULTS) {
    if (padding)
      add_default(lw, LLVMConstNull(LLVMArrayType2(LLVMInt8TypeInContext(lw->ctx), padding)));
    add_default(lw, def);
  }
  if (sret)
    LLVMBuildStore(lw->b, replacement, LLVMGetOperand(call, 0));
  else
    LLVMReplaceAllUsesWith(call, replacement);
  LLVMValueRef load = store ? strip_pointer_casts(LLVMGetOperand(call, name_arg)) : NULL;
  LLVMInstructionEraseFromParent(call);
  if (store) LLVMInstructionEraseFromParent(store);
  if (load && LLVMIsALoadInst(load) && !LLVMGetFirstUse(load)) LLVMInstructionEraseFromParent(load);
  free(symbol);
}

static void write_metadata(Lowering *lw) {
  LLVMGetOrInsertNamedMetadata(lw->m, ids_metadata, strlen(ids_metadata));
  LLVMGetOrInsertNamedMetadata(lw->m, defaults_metadata, strlen(defaults_metadata));
  if (lw->mode == SPEC_CONST_DEFAULTS)
    LLVMGetOrInsertNamedMetadata(lw->m, defaults_module_metadata, strlen(defaults_module_metadata));
  reserve_ints(lw, lw->next_id); // the IDs (emulation's too), and offsets and sizes below them
  for (size_t i = 0; i < lw->count && lw->mode != SPEC_CONST_DEFAULTS; i++) {
    SpecConstant *sc = &lw->constants[i];
    size_t n = 1 + 3 * sc->num_descriptors;
    LLVMMetadataRef *ops = xcalloc(n, sizeof *ops);
    ops[0] = LLVMMDStringInContext2(lw->ctx, sc->symbol, strlen(sc->symbol));
    for (size_t k = 0; k < 3 * sc->num_descriptors; k++)
      ops[k + 1] = int_metadata(lw, sc->descriptors[k]);
    LLVMAddNamedMetadataOperand(lw->m, ids_metadata,
                                LLVMMetadataAsValue(lw->ctx, LLVMMDNodeInContext2(lw->ctx, ops, n)));
    free(ops);
  }
  for (size_t i = 0; i < lw->num_defaults; i++)
    LLVMAddNamedMetadataOperand(lw->m, defaults_metadata, lw->defaults[i]);
}

// Why F, a getter or llvm.sycl.alloca, cannot be lowered, or NULL: its calls are read by
// position (the ID, the specialization_id global, the buffer; an sret destination before
// them), and each use must be such a call, since a call through a pointer would be left
// calling a function no image defines.
static char *getter_problem(LLVMValueRef f) {
  unsigned n = LLVMCountParams(f);
  bool sret = LLVMGetEnumAttributeAtIndex(f, 1, LLVMGetEnumAttributeKindForName("sret", 4));
  bool returns = LLVMGetTypeKind(LLVMGetReturnType(LLVMGlobalGetValueType(f))) != LLVMVoidTypeKind;
  unsigned expected = is_sycl_alloca(f) ? 5 : sret ? 4 : 3;
  char *why = NULL;
  if (n != expected) {
    why = format("is declared with %u parameters, not %u", n, expected);
  } else if (sret == returns && !is_sycl_alloca(f)) {
    why = xstrdup(sret ? "returns a value and through sret" : "returns nothing");
  } else {
    LLVMValueRef *params = xcalloc(n, sizeof *params);
    LLVMGetParams(f, params);
    for (unsigned i = sret ? 1 : 0; i < (sret ? 3u : 2u) && !why; i++)
      if (LLVMGetTypeKind(LLVMTypeOf(params[i])) != LLVMPointerTypeKind)
        why = format("takes no pointer as parameter %u", i + 1);
    free(params);
  }
  for (LLVMUseRef u = LLVMGetFirstUse(f); u && !why; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != f)
      why = xstrdup("is used other than called directly (its address taken or called through "
                    "a pointer)");
  }
  if (!why) return NULL;
  size_t len;
  char *name = symbol_for_message(LLVMGetValueName2(f, &len));
  char *msg = format("%s %s", name, why);
  free(name);
  free(why);
  return msg;
}

typedef struct {
  LLVMValueRef getter, call;
  char *symbol; // for the order; NULL when it cannot be read (lower_call says why)
  size_t seq;
} PendingCall;

static int compare_pending(const void *a, const void *b) {
  const PendingCall *x = a, *y = b;
  int c = strcmp(x->symbol ? x->symbol : "", y->symbol ? y->symbol : "");
  return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

int lower_spec_constants(LLVMModuleRef m, SpecConstMode mode, bool link_order, bool *changed,
                         char **errmsg) {
  Lowering lw = {.m = m,
                 .ctx = LLVMGetModuleContext(m),
                 .dl = LLVMGetModuleDataLayout(m),
                 .b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m)),
                 .mode = mode,
                 .zero_padding = link_order,
                 .intel_shape = !link_order,
                 .as_json = link_order,
                 .i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m))};
  const char *triple = LLVMGetTarget(m);
  lw.spir = !strncmp(triple, "spir", 4);
  // intel leaves llvm.sycl.alloca alone in emulation for spir/spir64 (Triple::isSPIR: not spirv).
  bool keep_allocas = mode == SPEC_CONST_EMULATION && lw.spir && strncmp(triple, "spirv", 5);
  // intel's order: the declarations in module order, each one's calls in use-list order.
  PendingCall *calls = NULL;
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!is_spec_constant_getter(f) && (!is_sycl_alloca(f) || keep_allocas)) continue;
    if (!lw.error && LLVMGetFirstUse(f)) lw.error = getter_problem(f);
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != f) continue;
      calls = xrealloc(calls, (n + 1) * sizeof *calls);
      LLVMValueRef store;
      size_t len;
      bool sret = LLVMGetEnumAttributeAtIndex(f, 1, LLVMGetEnumAttributeKindForName("sret", 4));
      calls[n] = (PendingCall){f, user, string_literal(LLVMGetOperand(user, sret), &store, &len), n};
      n++;
    }
  }
  // The link's property sets go out as JSON, whose properties are sorted by name, and the
  // runtime finds each constant's default at the sum of the sizes before it: the link numbers
  // and lays out the constants in name order, so both orders agree.
  if (link_order && n) qsort(calls, n, sizeof *calls, compare_pending);
  for (size_t i = 0; i < n && !lw.error; i++)
    lower_call(&lw, calls[i].getter, calls[i].call);
  *changed = n > 0;
  for (size_t i = 0; i < n; i++)
    free(calls[i].symbol);
  free(calls);
  if (!lw.error) write_metadata(&lw);
  for (size_t i = 0; i < lw.count; i++) {
    free(lw.constants[i].symbol);
    free(lw.constants[i].ids);
    free(lw.constants[i].descriptors);
  }
  free(lw.constants);
  free(lw.defaults);
  free(lw.ints);
  LLVMDisposeBuilder(lw.b);
  if (lw.error) {
    *errmsg = format("specialization constants: %s", lw.error);
    free(lw.error);
    return -1;
  }
  return 0;
}
