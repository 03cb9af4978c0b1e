// The SYCL runtime metadata of one fully linked, finalized image: its property sets, computed
// from the module as intel's sycl-post-link does. It neither encodes them nor changes the module.
#include "properties/properties.h"

#include <ctype.h>
#include <llvm-c/Target.h>
#include <stdlib.h>
#include <string.h>


//
// Small helpers over llvm-c
//

// A set of LLVM values, by address (open addressing).
typedef struct {
  LLVMValueRef *slots;
  size_t cap, count;
} ValueSet;

static size_t value_hash(LLVMValueRef v) {
  return (size_t)(((uintptr_t)v >> 4) * 0x9e3779b97f4a7c15ull);
}

// True if V was added, false if it was there already.
static bool value_set_add(ValueSet *s, LLVMValueRef v) {
  if ((s->count + 1) * 2 > s->cap) {
    ValueSet bigger = {.cap = s->cap ? s->cap * 2 : 64};
    bigger.slots = xcalloc(bigger.cap, sizeof *bigger.slots);
    for (size_t i = 0; i < s->cap; i++)
      if (s->slots[i]) value_set_add(&bigger, s->slots[i]);
    free(s->slots);
    *s = bigger;
  }
  for (size_t i = value_hash(v) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (s->slots[i] == v) return false;
    if (!s->slots[i]) {
      s->slots[i] = v;
      s->count++;
      return true;
    }
  }
}

static char *value_name(LLVMValueRef v) {
  size_t len;
  const char *name = LLVMGetValueName2(v, &len);
  return xstrndup(name, len);
}

// A string function attribute as a malloc'd string, or NULL.
static char *function_attribute(LLVMValueRef f, const char *kind) {
  LLVMAttributeRef a =
      LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind, (unsigned)strlen(kind));
  if (!a) return NULL;
  unsigned len;
  const char *value = LLVMGetStringAttributeValue(a, &len);
  return xstrndup(value, len);
}

static bool has_function_attribute(LLVMValueRef f, const char *kind) {
  return LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind,
                                       (unsigned)strlen(kind)) != NULL;
}

static char *global_attribute(LLVMValueRef gv, const char *kind) {
  const char *value;
  size_t len;
  return bridge_global_attribute(gv, kind, &value, &len) ? xstrndup(value, len) : NULL;
}

// The operands of metadata node KIND attached to function F (as values: integers come back
// as ConstantInt, nested nodes as metadata values). NULL when F has none; *count set.
static LLVMValueRef *function_metadata(LLVMValueRef f, const char *kind, unsigned *count) {
  LLVMValueRef node = global_metadata_node(f, kind);
  if (!node) return NULL;
  *count = LLVMGetMDNodeNumOperands(node);
  LLVMValueRef *ops = xcalloc(*count + 1, sizeof *ops);
  LLVMGetMDNodeOperands(node, ops);
  return ops;
}

static bool constant_int(LLVMValueRef v, int64_t *out) {
  if (!v || !LLVMIsAConstantInt(v)) return false;
  *out = LLVMConstIntGetSExtValue(v);
  return true;
}

// The entries of a comma-separated list, each added once to L.
static void add_list_items(StringList *l, const char *list) {
  for (const char *p = list; p && *p;) {
    size_t len = strcspn(p, ",");
    char *item = xstrndup(p, len);
    if (len && !strlist_contains(l, item))
      strlist_push(l, item);
    else
      free(item);
    p += len + (p[len] == ',');
  }
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// "a,b,c": the items sorted, so the value does not depend on module order.
static char *join_sorted(StringList *l) {
  qsort(l->items, l->count, sizeof *l->items, compare_strings);
  return strlist_join(l, ",");
}

static void add_string(PropertySets *p, const char *set, const char *name, const char *value) {
  propsets_add_bytes(p, set, name, value, strlen(value));
}

//
// Reachability: what an entry point can reach through any use (calls, addresses taken,
// globals' initializers). Indirectly-callable functions are not entered through a reference:
// a vtable naming them does not make the image use them (seed 002); "calls-indirectly" does.
//

typedef struct {
  LLVMModuleRef m;
  ValueSet seen;
  LLVMValueRef *functions; // the functions reached, in the order found
  size_t count, cap;
} Reach;

static void reach_value(Reach *r, LLVMValueRef v);

static void reach_function(Reach *r, LLVMValueRef f, bool as_root) {
  if (!as_root && has_function_attribute(f, "indirectly-callable")) return;
  if (!value_set_add(&r->seen, f)) return;
  if (r->count == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 64;
    r->functions = xrealloc(r->functions, r->cap * sizeof *r->functions);
  }
  r->functions[r->count++] = f;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      int n = LLVMGetNumOperands(i);
      for (int k = 0; k < n; k++)
        reach_value(r, LLVMGetOperand(i, k));
    }
  // The sets this function calls through: every function of theirs in this module.
  char *calls = function_attribute(f, "calls-indirectly");
  if (calls) {
    StringList sets = {0};
    add_list_items(&sets, calls);
    for (LLVMValueRef g = LLVMGetFirstFunction(r->m); g; g = LLVMGetNextFunction(g)) {
      char *set = function_attribute(g, "indirectly-callable");
      if (set && strlist_contains(&sets, set)) reach_function(r, g, true);
      free(set);
    }
    strlist_free(&sets);
    free(calls);
  }
}

static void reach_value(Reach *r, LLVMValueRef v) {
  if (!v) return;
  if (LLVMIsAFunction(v)) {
    reach_function(r, v, false);
  } else if (LLVMIsAGlobalVariable(v)) {
    if (value_set_add(&r->seen, v)) reach_value(r, LLVMGetInitializer(v));
  } else if (LLVMIsAConstant(v) && !LLVMIsAGlobalValue(v)) {
    // A constant without operands (an integer: a specialization constant's IDs, a million in
    // one kernel) reaches nothing, and is not worth a place in the set.
    int n = LLVMGetNumOperands(v);
    if (!n || !value_set_add(&r->seen, v)) return;
    for (int k = 0; k < n; k++)
      reach_value(r, LLVMGetOperand(v, k));
  }
}

//
// The property sets, each computed as intel computes it
//

// SYCL/devicelib req mask: the fallback libraries the image's __devicelib_ declarations need.
static void devicelib_property(LLVMModuleRef m, PropertySets *out) {
  uint32_t mask = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (LLVMIsDeclaration(f)) {
      size_t len;
      mask |= devicelib_bit(LLVMGetValueName2(f, &len));
    }
  propsets_add_u32(out, "SYCL/devicelib req mask", "DeviceLibReqMask", mask);
}

static void add_aspect(StringList *values, int64_t v) {
  if (v < 0) return; // internal aspects (negative) only steer the split
  char *s = format("%lld", (long long)v);
  if (strlist_contains(values, s))
    free(s);
  else
    strlist_push(values, s);
}

static bool type_is_fp(LLVMTypeRef t, LLVMTypeKind kind) {
  while (t && (LLVMGetTypeKind(t) == LLVMVectorTypeKind ||
               LLVMGetTypeKind(t) == LLVMScalableVectorTypeKind ||
               LLVMGetTypeKind(t) == LLVMArrayTypeKind))
    t = LLVMGetElementType(t);
  return t && LLVMGetTypeKind(t) == kind;
}

// The aspects F uses: its sycl_used_aspects metadata (numbers, or !{!"name", i32 n} pairs),
// and with INFER_TYPES, as intel's aspect propagation infers them, fp64 and fp16 for double
// and half values (sycl-post-link reads the metadata only: the compiler propagated already).
static void metadata_aspects(LLVMValueRef f, const char *kind, StringList *values) {
  unsigned n = 0;
  LLVMValueRef *ops = function_metadata(f, kind, &n);
  for (unsigned i = 0; i < n; i++) {
    int64_t v;
    if (constant_int(ops[i], &v)) {
      add_aspect(values, v);
    } else if (ops[i] && LLVMIsAMDNode(ops[i]) && LLVMGetMDNodeNumOperands(ops[i]) == 2) {
      LLVMValueRef pair[2];
      LLVMGetMDNodeOperands(ops[i], pair);
      if (constant_int(pair[1], &v)) add_aspect(values, v);
    }
  }
  free(ops);
}

// ... and the aspects it declares with [[sycl::device_has()]] (!sycl_declared_aspects): a
// declared aspect is required whether or not the code uses it (intel's device requirements
// union both).
static void function_used_aspects(LLVMValueRef f, bool infer_types, StringList *values) {
  metadata_aspects(f, "sycl_used_aspects", values);
  metadata_aspects(f, "sycl_declared_aspects", values);
  if (!infer_types) return;
  bool fp64 = false, fp16 = false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      LLVMTypeRef types[2] = {LLVMTypeOf(i), NULL};
      if (LLVMIsAAllocaInst(i)) types[1] = LLVMGetAllocatedType(i);
      for (int k = 0; k < 2; k++) {
        fp64 |= type_is_fp(types[k], LLVMDoubleTypeKind);
        fp16 |= type_is_fp(types[k], LLVMHalfTypeKind);
      }
      int ops_n = LLVMGetNumOperands(i);
      for (int k = 0; k < ops_n; k++) {
        LLVMValueRef op = LLVMGetOperand(i, k);
        if (!op || LLVMIsABasicBlock(op) || LLVMIsAFunction(op)) continue;
        LLVMTypeRef t = LLVMTypeOf(op);
        if (LLVMGetTypeKind(t) == LLVMMetadataTypeKind) continue;
        fp64 |= type_is_fp(t, LLVMDoubleTypeKind);
        fp16 |= type_is_fp(t, LLVMHalfTypeKind);
      }
    }
  if (fp64) add_aspect(values, 6);
  if (fp16) add_aspect(values, 5);
}

static int compare_numbers(const void *a, const void *b) {
  long long x = atoll(*(char *const *)a), y = atoll(*(char *const *)b);
  return x < y ? -1 : x > y;
}

static void add_u32_array(PropertySets *out, const char *set, const char *name,
                          const uint32_t *values, size_t n) {
  uint8_t *bytes = xcalloc(n ? n : 1, 4);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++)
      bytes[4 * i + k] = values[i] >> (8 * k) & 0xff;
  propsets_add_bytes(out, set, name, bytes, 4 * n);
  free(bytes);
}

// SYCL/device requirements (intel's SYCLDeviceRequirements, keys in its std::map order):
// aspects of what the entry points reach (always present, possibly empty), fixed_target,
// joint_matrix and joint_matrix_mad (the strings, as bytes), reqd_sub_group_size of the entry
// points, reqd_work_group_size_uint64_t and work_group_num_dim of the module's functions.
static void requirements_property(LLVMModuleRef m, const Reach *reach, const StringList *entries,
                                  bool infer_types, PropertySets *out) {
  const char *set = "SYCL/device requirements";
  StringList aspects = {0};
  for (size_t i = 0; i < reach->count; i++)
    function_used_aspects(reach->functions[i], infer_types, &aspects);
  if (aspects.count) qsort(aspects.items, aspects.count, sizeof *aspects.items, compare_numbers);
  uint32_t *values = xcalloc(aspects.count ? aspects.count : 1, sizeof *values);
  for (size_t i = 0; i < aspects.count; i++)
    values[i] = (uint32_t)atoll(aspects.items[i]);
  add_u32_array(out, set, "aspects", values, aspects.count);
  free(values);
  strlist_free(&aspects);

  StringList fixed = {0};
  uint64_t wg[3];
  unsigned wg_dims = 0;
  bool have_wg = false, several_wg = false, have_num_dim = false, have_sub_group = false;
  uint32_t num_dim = 0, sub_group = 0;
  // As intel: the last function's non-empty sycl_joint_matrix / sycl_joint_matrix_mad string.
  const char *matrix_keys[2] = {"sycl_joint_matrix", "sycl_joint_matrix_mad"};
  char *matrix[2] = {NULL, NULL};
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    unsigned n = 0;
    int64_t v;
    LLVMValueRef *ops = function_metadata(f, "sycl_fixed_targets", &n);
    for (unsigned i = 0; i < n; i++)
      if (constant_int(ops[i], &v)) add_aspect(&fixed, v);
    free(ops);
    for (int k = 0; k < 2; k++) {
      ops = function_metadata(f, matrix_keys[k], &n);
      unsigned len = 0;
      const char *text = ops && n >= 1 && ops[0] ? LLVMGetMDString(ops[0], &len) : NULL;
      if (text && len) {
        free(matrix[k]);
        matrix[k] = xstrndup(text, len);
      }
      free(ops);
    }
    ops = function_metadata(f, "work_group_num_dim", &n);
    // As intel: taken while no reqd_work_group_size has been seen.
    if (ops && n >= 1 && constant_int(ops[0], &v) && !have_wg) {
      num_dim = (uint32_t)v;
      have_num_dim = true;
    }
    free(ops);
    ops = function_metadata(f, "reqd_work_group_size", &n);
    if (ops && n >= 1 && n <= 3) {
      // As intel: the first size, dropped if another function requires a different one (an
      // image of several sizes, --split=none, cannot promise any).
      uint64_t size[3];
      for (unsigned i = 0; i < n; i++)
        size[i] = constant_int(ops[i], &v) ? (uint64_t)v : 0;
      if (!have_wg && !several_wg) {
        have_wg = true;
        wg_dims = n;
        memcpy(wg, size, n * sizeof *size);
      } else if (n != wg_dims || memcmp(wg, size, n * sizeof *size)) {
        several_wg = true;
      }
    }
    free(ops);
    if (!have_sub_group) { // the first entry point's, as intel
      char *name = value_name(f);
      ops = strlist_contains(entries, name) ? function_metadata(f, "intel_reqd_sub_group_size", &n)
                                            : NULL;
      if (ops && n >= 1 && constant_int(ops[0], &v)) {
        sub_group = (uint32_t)v;
        have_sub_group = true;
      }
      free(ops);
      free(name);
    }
  }
  if (fixed.count) {
    qsort(fixed.items, fixed.count, sizeof *fixed.items, compare_numbers);
    uint32_t *targets = xcalloc(fixed.count, sizeof *targets);
    for (size_t i = 0; i < fixed.count; i++)
      targets[i] = (uint32_t)atoll(fixed.items[i]);
    add_u32_array(out, set, "fixed_target", targets, fixed.count);
    free(targets);
  }
  strlist_free(&fixed);
  if (matrix[0]) propsets_add_bytes(out, set, "joint_matrix", matrix[0], strlen(matrix[0]));
  if (matrix[1]) propsets_add_bytes(out, set, "joint_matrix_mad", matrix[1], strlen(matrix[1]));
  free(matrix[0]);
  free(matrix[1]);
  if (have_sub_group) propsets_add_u32(out, set, "reqd_sub_group_size", sub_group);
  if (have_wg && !several_wg) {
    uint8_t bytes[24];
    for (unsigned i = 0; i < wg_dims; i++)
      for (int k = 0; k < 8; k++)
        bytes[8 * i + k] = wg[i] >> (8 * k) & 0xff;
    propsets_add_bytes(out, set, "reqd_work_group_size_uint64_t", bytes, 8 * wg_dims);
  }
  if (have_num_dim) propsets_add_u32(out, set, "work_group_num_dim", num_dim);
}

// intel's rule for SYCL/imported symbols, and for nothing else (resolution asks
// is_builtin_name): a name that begins with "__" before or after Itanium demangling
// (__anything, _Z8__insidev, _ZN7__spirv8internalEv) is the implementation's and not listed.
// The first source name of a mangling: _Z [N] [CV-qualifiers] [L] <len><id>.
bool is_implementation_name(const char *name) {
  if (!strncmp(name, "__", 2)) return true;
  if (strncmp(name, "_Z", 2)) return false;
  const char *p = name + 2;
  if (*p == 'N') p++;
  while (*p == 'K' || *p == 'V' || *p == 'r')
    p++;
  if (*p == 'L') p++;
  if (!isdigit((unsigned char)*p)) return false;
  size_t len = strtoul(p, (char **)&p, 10);
  return len >= 2 && strlen(p) >= 2 && p[0] == '_' && p[1] == '_';
}

bool is_importable_declaration(LLVMValueRef f, bool module_ids) {
  if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f)) return false;
  if (has_function_attribute(f, "indirectly-callable")) return false; // linked by set (002)
  // DPC++ declares a SYCL_EXTERNAL function with its sycl-module-id too; what it declares
  // without one is no SYCL_EXTERNAL function and is never imported.
  if (module_ids && !has_function_attribute(f, "sycl-module-id")) return false;
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  if (is_builtin_name(name)) return false;
  return !is_implementation_name(name);
}

static bool is_device_global_declaration(LLVMValueRef gv) {
  if (!LLVMIsDeclaration(gv) || LLVMGetLinkage(gv) != LLVMExternalLinkage) return false;
  LLVMTypeRef t = LLVMGlobalGetValueType(gv);
  const char *name = LLVMGetTypeKind(t) == LLVMStructTypeKind ? LLVMGetStructName(t) : NULL;
  return name && strstr(name, "device_global");
}

// The bfloat16 conversion functions of DPC++'s device library (__devicelib_ConvertFToBF16INTEL,
// __devicelib_ConvertBF16ToFINTEL, each also with Vec1, Vec2, Vec3, Vec4, Vec8 or Vec16): the
// runtime links a native or fallback bfloat16 library image for them by SYCL/imported symbols.
static bool is_bf16_devicelib_declaration(LLVMValueRef f) {
  if (!LLVMIsDeclaration(f)) return false;
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  const char *rest = NULL;
  if (!strncmp(name, "__devicelib_ConvertFToBF16INTEL", 31)) rest = name + 31;
  else if (!strncmp(name, "__devicelib_ConvertBF16ToFINTEL", 31)) rest = name + 31;
  if (!rest) return false;
  static const char *const suffixes[] = {"", "Vec1", "Vec2", "Vec3", "Vec4", "Vec8", "Vec16"};
  for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
    if (!strcmp(rest, suffixes[i])) return true;
  return false;
}

// sycl-post-link's symbol tables: -emit-exported-symbols lists the entry points that are
// spir_func functions, not virtual ones, in entry-point order; -emit-imported-symbols the used
// bfloat16 device library declarations and (with -allow-device-image-dependencies) the used
// declarations intel could import, in module order.
static void post_link_symbol_properties(LLVMModuleRef m, const PropertyInputs *in,
                                        PropertySets *out) {
  for (size_t i = 0; in->emit_exported && in->entry_points && i < in->entry_points->count; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, in->entry_points->items[i]);
    if (!f || LLVMIsDeclaration(f) || LLVMGetFunctionCallConv(f) != CC_SPIR_FUNC) continue;
    if (has_function_attribute(f, "indirectly-callable")) continue;
    propsets_add_u32(out, "SYCL/exported symbols", in->entry_points->items[i], 1);
  }
  if (!in->emit_imported) return;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if ((is_bf16_devicelib_declaration(f) ||
         (in->allow_dependencies && is_importable_declaration(f, false))) &&
        LLVMGetFirstUse(f)) {
      char *name = value_name(f);
      propsets_add_u32(out, "SYCL/imported symbols", name, 1);
      free(name);
    }
}

// SYCL/exported symbols and SYCL/imported symbols (seed 000), under
// --allow-device-image-dependencies only.
static void symbol_properties(LLVMModuleRef m, const PropertyInputs *in, PropertySets *out) {
  for (size_t i = 0; in->exported && i < in->exported->count; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, in->exported->items[i]);
    if (!f || LLVMIsDeclaration(f) || LLVMGetFunctionCallConv(f) != CC_SPIR_FUNC) continue;
    if (LLVMGetLinkage(f) == LLVMInternalLinkage || LLVMGetLinkage(f) == LLVMPrivateLinkage)
      continue;
    if (has_function_attribute(f, "indirectly-callable")) continue;
    propsets_add_u32(out, "SYCL/exported symbols", in->exported->items[i], 1);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    // Exported device_global variables: defined, external, not per image.
    char *scope = global_attribute(g, "sycl-device-image-scope");
    char *size = global_attribute(g, "sycl-device-global-size");
    if (size && !LLVMIsDeclaration(g) && LLVMGetLinkage(g) == LLVMExternalLinkage &&
        (!scope || !strcmp(scope, "false"))) {
      char *name = value_name(g);
      propsets_add_u32(out, "SYCL/exported symbols", name, 1);
      free(name);
    }
    free(scope);
    free(size);
  }
  bool module_ids = module_has_module_ids(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_importable_declaration(f, module_ids) && LLVMGetFirstUse(f)) {
      char *name = value_name(f);
      propsets_add_u32(out, "SYCL/imported symbols", name, 1);
      free(name);
    }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (is_device_global_declaration(g)) {
      char *name = value_name(g);
      propsets_add_u32(out, "SYCL/imported symbols", name, 1);
      free(name);
    }
}

// F's "sycl-optlevel" as a number, or -1.
static int optlevel_attribute(LLVMValueRef f) {
  char *value = function_attribute(f, "sycl-optlevel");
  int level = -1;
  char *end;
  if (value && *value) {
    long v = strtol(value, &end, 10);
    if (!*end && v >= 0 && v <= 1000) level = (int)v;
  }
  free(value);
  return level;
}

int module_opt_level(LLVMModuleRef m) {
  unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
  int kernel_level = -1, other_level = -1;
  size_t kernels = 0, optnone_kernels = 0, defined = 0, optnone_defined = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    bool kernel = is_kernel(f);
    bool is_optnone = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, optnone) != NULL;
    defined++;
    optnone_defined += is_optnone;
    kernels += kernel;
    optnone_kernels += kernel && is_optnone;
    int *level = kernel ? &kernel_level : &other_level;
    if (*level < 0) *level = optlevel_attribute(f);
  }
  if (kernel_level >= 0) return kernel_level;
  if (other_level >= 0) return other_level;
  if (kernels ? optnone_kernels == kernels : defined && optnone_defined == defined) return 0;
  return -1;
}

// The first of the entry points that carries the integer attribute KIND, as intel's
// any_of over the entry points; false when none does.
static bool entry_attribute_u32(LLVMModuleRef m, const StringList *entries, const char *kind,
                                uint32_t *value) {
  for (size_t i = 0; i < entries->count; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, entries->items[i]);
    char *text = f ? function_attribute(f, kind) : NULL;
    if (!text) continue;
    *value = (uint32_t)strtoul(text, NULL, 10);
    free(text);
    return true;
  }
  return false;
}

// SYCL/misc properties: the register allocation mode and GRF size the first entry point asks
// for ("sycl-register-alloc-mode", "sycl-grf-size"; a kernel asking for both is refused before
// this), then optLevel, the level the input module says it was compiled at (read before
// ThinLTO by module_opt_level), else the level the link was given.
static void misc_property(LLVMModuleRef m, const StringList *entries, int opt_level,
                          PropertySets *out) {
  const char *set = "SYCL/misc properties";
  uint32_t v;
  if (entry_attribute_u32(m, entries, "sycl-register-alloc-mode", &v))
    propsets_add_u32(out, set, "sycl-register-alloc-mode", v);
  if (entry_attribute_u32(m, entries, "sycl-grf-size", &v))
    propsets_add_u32(out, set, "sycl-grf-size", v);
  if (opt_level >= 0) propsets_add_u32(out, set, "optLevel", (uint32_t)opt_level);
}

// sanUsed (SYCL/misc properties, after optLevel as intel): which DPC++ sanitizer
// instrumented the module, known by the table it leaves (a global whose name starts
// "__AsanKernelMetadata", "__MsanKernelMetadata" or "__TsanKernelMetadata"; the first wins).
static void sanitizer_property(LLVMModuleRef m, PropertySets *out) {
  static const char *const kinds[][2] = {{"__AsanKernelMetadata", "asan"},
                                         {"__MsanKernelMetadata", "msan"},
                                         {"__TsanKernelMetadata", "tsan"}};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
      size_t len;
      const char *name = LLVMGetValueName2(g, &len);
      size_t prefix = strlen(kinds[k][0]);
      if (len >= prefix && !memcmp(name, kinds[k][0], prefix)) {
        propsets_add_bytes(out, "SYCL/misc properties", "sanUsed", kinds[k][1], 4);
        return;
      }
    }
}

// SYCL/kernel param opt: per function with !sycl_kernel_omit_args (DPC++'s dead argument
// elimination writes it on kernels), a bit vector with bit I set if argument I was removed;
// as many bits as the metadata has operands. HEADER: the set even when empty (intel's).
static void param_opt_property(LLVMModuleRef m, bool header, PropertySets *out) {
  const char *set = "SYCL/kernel param opt";
  if (header) propsets_add_set(out, set);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    unsigned n = 0;
    LLVMValueRef *ops = function_metadata(f, "sycl_kernel_omit_args", &n);
    if (!ops) continue;
    uint8_t *bits = xcalloc(n / 8 + 1, 1);
    for (unsigned i = 0; i < n; i++) {
      int64_t v;
      if (constant_int(ops[i], &v) && v) bits[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    if (n) {
      char *name = value_name(f);
      propsets_add_bits(out, set, name, bits, n);
      free(name);
    }
    free(bits);
    free(ops);
  }
}

// A function metadata node of 1 to 3 integers as uint32s (intel truncates 64-bit sizes);
// 0 when F has none.
static unsigned metadata_u32s(LLVMValueRef f, const char *kind, uint32_t values[3]) {
  unsigned n = 0;
  LLVMValueRef *ops = function_metadata(f, kind, &n);
  if (!ops) return 0;
  if (n > 3) n = 3;
  for (unsigned i = 0; i < n; i++) {
    int64_t v = 0;
    constant_int(ops[i], &v);
    values[i] = (uint32_t)v;
  }
  free(ops);
  return n;
}

static bool is_device_global_variable(LLVMValueRef g, bool post_link) {
  char *size = global_attribute(g, "sycl-device-global-size");
  char *id = global_attribute(g, "sycl-unique-id");
  char *pipe = global_attribute(g, "sycl-host-pipe-size");
  // DPC++ marks a device_global by its size; upstream clang writes only the unique id. A host
  // pipe has a unique id too.
  bool yes = !pipe && (size || (!post_link && id));
  free(pipe);
  free(size);
  free(id);
  return yes;
}

// SYCL/program metadata: per function, in module order, NAME@reqd_work_group_size and
// NAME@max_work_group_size (uint32 arrays), NAME@reqd_sub_group_size, NAME@work_group_num_dim
// and NAME@max_linear_work_group_size (uint32); then per device global ID@global_id_mapping,
// its name in the module (the runtime finds the variable by it).
static void program_metadata_property(LLVMModuleRef m, bool post_link, PropertySets *out) {
  const char *set = "SYCL/program metadata";
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    char *name = value_name(f);
    uint32_t v[3];
    unsigned n;
    static const struct {
      const char *kind, *key;
      bool array;
    } items[] = {{"reqd_work_group_size", "reqd_work_group_size", true},
                 {"intel_reqd_sub_group_size", "reqd_sub_group_size", false},
                 {"work_group_num_dim", "work_group_num_dim", false},
                 {"max_work_group_size", "max_work_group_size", true},
                 {"max_linear_work_group_size", "max_linear_work_group_size", false}};
    for (size_t k = 0; k < sizeof items / sizeof *items; k++) {
      if (!(n = metadata_u32s(f, items[k].kind, v))) continue;
      char *key = format("%s@%s", name, items[k].key);
      if (items[k].array)
        add_u32_array(out, set, key, v, n);
      else
        propsets_add_u32(out, set, key, v[0]);
      free(key);
    }
    free(name);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    if (!is_device_global_variable(g, post_link)) continue;
    char *id = global_attribute(g, "sycl-unique-id");
    if (!id) continue;
    char *key = format("%s@global_id_mapping", id), *name = value_name(g);
    add_string(out, set, key, name);
    free(key);
    free(name);
    free(id);
  }
}

// SYCL/kernel names: the entry points that are kernels (is_kernel: a ptx_kernel or
// amdgpu_kernel counts too, as intel's), each =1.

static void kernel_names_property(LLVMModuleRef m, const StringList *entries, PropertySets *out) {
  for (size_t i = 0; i < entries->count; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, entries->items[i]);
    if (f && is_kernel(f)) propsets_add_u32(out, "SYCL/kernel names", entries->items[i], 1);
  }
}

// SYCL/host pipes: per global with "sycl-host-pipe-size", its unique id -> {uint32 size}.
static void host_pipes_property(LLVMModuleRef m, PropertySets *out) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    char *size = global_attribute(g, "sycl-host-pipe-size");
    char *id = size ? global_attribute(g, "sycl-unique-id") : NULL;
    if (id) {
      uint32_t v = (uint32_t)strtoul(size, NULL, 10);
      add_u32_array(out, "SYCL/host pipes", id, &v, 1);
    }
    free(size);
    free(id);
  }
}

//
// Specialization constants: the metadata the lowering wrote (hooks/spec_constants.c), as
// intel's collectSpecConstantMetadata and collectSpecConstantDefaultValuesMetadata read it.
//

// IEEE half from a double that came from a half (exact).
static uint16_t half_bits(double d) {
  union {
    float f;
    uint32_t u;
  } x = {.f = (float)d};
  uint32_t sign = x.u >> 16 & 0x8000, exp = x.u >> 23 & 0xff, mant = x.u & 0x7fffff;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 | mant >> 13 : 0));
  int e = (int)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) { // subnormal half (or zero)
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000;
    return (uint16_t)(sign | mant >> (14 - e));
  }
  return (uint16_t)(sign | (uint32_t)e << 10 | mant >> 13);
}

static void append_le(Buffer *b, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t byte = (uint8_t)(v >> (8 * i));
    buffer_append(b, &byte, 1);
  }
}

static void append_zeros(Buffer *b, size_t n) {
  static const uint8_t zeros[64];
  for (; n; n -= n < sizeof zeros ? n : sizeof zeros)
    buffer_append(b, zeros, n < sizeof zeros ? n : sizeof zeros);
}

// A default value's bytes as the runtime lays them out: members at their offsets, gaps and
// tail padding zero, integers and floats little-endian in their store size.
static void append_default_value(LLVMTargetDataRef dl, LLVMValueRef c, Buffer *out) {
  LLVMTypeRef t = LLVMTypeOf(c);
  size_t store = (size_t)LLVMStoreSizeOfType(dl, t);
  if (LLVMIsAConstantAggregateZero(c) || LLVMIsAUndefValue(c) || LLVMIsAConstantPointerNull(c)) {
    append_zeros(out, store);
  } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
    size_t base = out->size, size = (size_t)LLVMABISizeOfType(dl, t);
    unsigned n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++) {
      size_t at = base + (size_t)LLVMOffsetOfElement(dl, t, i);
      if (out->size < at) append_zeros(out, at - out->size);
      append_default_value(dl, LLVMGetAggregateElement(c, i), out);
    }
    if (out->size < base + size) append_zeros(out, base + size - out->size);
  } else if (LLVMGetTypeKind(t) == LLVMArrayTypeKind ||
             LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
    unsigned n = LLVMGetTypeKind(t) == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t)
                                                          : LLVMGetVectorSize(t);
    for (unsigned i = 0; i < n; i++)
      append_default_value(dl, LLVMGetAggregateElement(c, i), out);
  } else if (LLVMIsAConstantInt(c)) {
    append_le(out, LLVMConstIntGetZExtValue(c), store);
  } else if (LLVMIsAConstantFP(c)) {
    LLVMBool loses;
    double d = LLVMConstRealGetDouble(c, &loses);
    union {
      float f;
      uint32_t u;
    } f32 = {.f = (float)d};
    union {
      double d;
      uint64_t u;
    } f64 = {.d = d};
    append_le(out, store == 2 ? half_bits(d) : store == 4 ? f32.u : f64.u, store);
  } else {
    append_zeros(out, store); // nothing else is a specialization constant's value
  }
}

static LLVMValueRef *named_metadata(LLVMModuleRef m, const char *name, unsigned *count) {
  *count = LLVMGetNamedMetadataNumOperands(m, name);
  LLVMValueRef *nodes = xcalloc(*count + 1, sizeof *nodes);
  if (*count) LLVMGetNamedMetadataOperands(m, name, nodes);
  return nodes;
}

// SYCL/specialization constants: per symbolic ID its descriptors {u32 ID, u32 offset, u32
// size}; SYCL/specialization constants default values: "all", every default's bytes in turn.
static void spec_constant_properties(LLVMModuleRef m, PropertySets *out) {
  unsigned count;
  LLVMValueRef *nodes = named_metadata(m, "sycl.specialization-constants", &count);
  for (unsigned i = 0; i < count; i++) {
    unsigned n = LLVMGetMDNodeNumOperands(nodes[i]), len = 0;
    LLVMValueRef *ops = xcalloc(n + 1, sizeof *ops);
    LLVMGetMDNodeOperands(nodes[i], ops);
    const char *id = n ? LLVMGetMDString(ops[0], &len) : NULL;
    if (id) {
      // 3 000 000 numbers for a constant of a million elements: written in place, not appended.
      uint8_t *bytes = xmalloc(4 * (size_t)n), *at = bytes;
      for (unsigned k = 1; k < n; k++, at += 4) {
        int64_t v = 0;
        constant_int(ops[k], &v);
        for (int byte = 0; byte < 4; byte++)
          at[byte] = (uint8_t)((uint64_t)v >> (8 * byte));
      }
      char *key = xstrndup(id, len);
      propsets_add_bytes(out, "SYCL/specialization constants", key, bytes, (size_t)(at - bytes));
      free(key);
      free(bytes);
    }
    free(ops);
  }
  free(nodes);
  if (!count) return;
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  nodes = named_metadata(m, "sycl.specialization-constants-default-values", &count);
  Buffer all = {0};
  for (unsigned i = 0; i < count; i++) {
    LLVMValueRef value;
    if (LLVMGetMDNodeNumOperands(nodes[i]) != 1) continue;
    LLVMGetMDNodeOperands(nodes[i], &value);
    if (value && LLVMIsAConstant(value)) append_default_value(dl, value, &all);
  }
  propsets_add_bytes(out, "SYCL/specialization constants default values", "all",
                     all.data ? all.data : (void *)"", all.size);
  free(all.data);
  free(nodes);
}

// SYCL/device globals: per global with "sycl-unique-id" (for the post-link front also
// "sycl-device-global-size"), {u32 size, u8 device_image_scope, 3 bytes of padding}: intel's
// DeviceGlobalProperty as the runtime reads it.
static void device_globals_property(LLVMModuleRef m, bool post_link, PropertySets *out) {
  LLVMTargetDataRef layout = LLVMGetModuleDataLayout(m);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    char *size_text = global_attribute(g, "sycl-device-global-size");
    // DPC++ marks a device_global by its size (other globals, host pipes among them, have
    // unique ids too): sycl-post-link lists no other. Upstream clang writes no size.
    char *pipe = global_attribute(g, "sycl-host-pipe-size");
    // A host pipe has a unique id too, but is no device global (SYCL/host pipes lists it).
    char *id = (post_link && !size_text) || pipe ? NULL : global_attribute(g, "sycl-unique-id");
    free(pipe);
    if (!id) {
      free(size_text);
      continue;
    }
    char *scope = global_attribute(g, "sycl-device-image-scope");
    uint32_t size = size_text ? (uint32_t)strtoul(size_text, NULL, 10)
                              : (uint32_t)LLVMABISizeOfType(layout, LLVMGlobalGetValueType(g));
    uint8_t bytes[8] = {size & 0xff, size >> 8 & 0xff, size >> 16 & 0xff, size >> 24,
                        scope && strcmp(scope, "false") ? 1 : 0};
    propsets_add_bytes(out, "SYCL/device globals", id, bytes, sizeof bytes);
    free(id);
    free(size_text);
    free(scope);
  }
}

// SYCL/virtual functions (seed 002). An image without kernels that defines an
// "indirectly-callable" function holds that set (and may be its dummy). Other images name the
// sets their functions call ("calls-indirectly") and the sets of the indirectly-callable
// functions their globals (vtables) refer to.
static void collect_vtable_sets(LLVMValueRef v, ValueSet *seen, StringList *sets) {
  if (!v || !value_set_add(seen, v)) return;
  if (LLVMIsAFunction(v)) {
    char *set = function_attribute(v, "indirectly-callable");
    if (set) add_list_items(sets, set);
    free(set);
    return;
  }
  if (LLVMIsAGlobalVariable(v)) {
    collect_vtable_sets(LLVMGetInitializer(v), seen, sets);
    return;
  }
  if (!LLVMIsAConstant(v)) return;
  int n = LLVMGetNumOperands(v);
  for (int k = 0; k < n; k++)
    collect_vtable_sets(LLVMGetOperand(v, k), seen, sets);
}

static void virtual_functions_property(LLVMModuleRef m, const PropertyInputs *in,
                                       PropertySets *out) {
  const char *vf = "SYCL/virtual functions";
  // sycl-post-link looks for a set's function in every image: its images are split by set.
  if (!in->kernels || !in->kernels->count || in->post_link) {
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
      char *set = LLVMIsDeclaration(f) ? NULL : function_attribute(f, "indirectly-callable");
      if (!set) continue;
      add_string(out, vf, "virtual-functions-set", set);
      if (in->dummy_image) propsets_add_u32(out, vf, "dummy-image", 1);
      free(set);
      return;
    }
  }
  StringList calls = {0}, creates = {0};
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    char *list = function_attribute(f, "calls-indirectly");
    add_list_items(&calls, list);
    free(list);
  }
  ValueSet seen = {0};
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    collect_vtable_sets(LLVMGetInitializer(g), &seen, &creates);
  free(seen.slots);
  // "uses": intel's name for seed 002's "calls-virtual-functions-set" (its runtime reads it);
  // "creates" is seed 002's, which intel does not write.
  if (calls.count) {
    char *value = join_sorted(&calls);
    add_string(out, vf, "uses-virtual-functions-set", value);
    free(value);
  }
  if (creates.count && !in->post_link) {
    char *value = join_sorted(&creates);
    add_string(out, vf, "creates-virtual-functions-set", value);
    free(value);
  }
  strlist_free(&calls);
  strlist_free(&creates);
}

// SYCL/assert used: the kernels from which __devicelib_assert_fail can be reached.
static void assert_property(LLVMModuleRef m, const StringList *kernels, PropertySets *out) {
  LLVMValueRef assert_fail = LLVMGetNamedFunction(m, "__devicelib_assert_fail");
  if (!assert_fail) return;
  for (size_t i = 0; kernels && i < kernels->count; i++) {
    LLVMValueRef k = LLVMGetNamedFunction(m, kernels->items[i]);
    if (!k) continue;
    Reach r = {.m = m};
    reach_function(&r, k, true);
    bool found = false;
    for (size_t j = 0; j < r.count && !found; j++)
      found = r.functions[j] == assert_fail;
    if (found) propsets_add_u32(out, "SYCL/assert used", kernels->items[i], 1);
    free(r.functions);
    free(r.seen.slots);
  }
}

void compute_properties(LLVMModuleRef m, const PropertyInputs *in, PropertySets *out) {
  *out = (PropertySets){0};
  // Entry points: the kernels, the SYCL_EXTERNAL functions kept external, and in a set image
  // the set's functions.
  StringList entries = {0};
  for (size_t i = 0; in->kernels && i < in->kernels->count; i++)
    strlist_push(&entries, in->kernels->items[i]);
  for (size_t i = 0; in->exported && i < in->exported->count; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, in->exported->items[i]);
    if (f && !LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      strlist_push(&entries, in->exported->items[i]);
  }
  Reach reach = {.m = m};
  for (size_t i = 0; i < entries.count; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, entries.items[i]);
    if (f) reach_function(&reach, f, true);
  }
  if (!in->kernels || !in->kernels->count)
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
      if (!LLVMIsDeclaration(f) && has_function_attribute(f, "indirectly-callable"))
        reach_function(&reach, f, true);

  devicelib_property(m, out);
  requirements_property(m, &reach, &entries, !in->post_link, out);
  spec_constant_properties(m, out);
  if (in->emit_param_info || !in->post_link) param_opt_property(m, in->emit_param_info, out);
  if (in->post_link)
    post_link_symbol_properties(m, in, out);
  else if (in->allow_dependencies)
    symbol_properties(m, in, out);
  if (in->emit_kernel_names)
    kernel_names_property(m, in->post_link && in->entry_points ? in->entry_points : &entries, out);
  if (in->emit_program_metadata) program_metadata_property(m, in->post_link, out);
  misc_property(m, in->post_link && in->entry_points ? in->entry_points : &entries, in->opt_level,
                out);
  sanitizer_property(m, out);
  if (!in->post_link || in->emit_device_globals) device_globals_property(m, in->post_link, out);
  host_pipes_property(m, out);
  virtual_functions_property(m, in, out);
  assert_property(m, in->kernels, out);

  free(reach.functions);
  free(reach.seen.slots);
  free(entries.items); // the names belong to the caller
}
