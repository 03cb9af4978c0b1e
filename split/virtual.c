// Virtual-function sets (seed 002): which "indirectly-callable" sets a module defines, the
// aspects each uses, kernels' "calls-indirectly" aspects, AOT dropping, dummy bodies.
// It does not group or extract images: split/split.c outlines the sets this file finds.
#include "split/split.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char used_aspects_metadata[] = "sycl_used_aspects";
static const char declared_aspects_metadata[] = "sycl_declared_aspects";

// Aspect names and numbers are properties/'s (aspect_name, aspect_value).
static const char *aspect_text(unsigned long long value, char *buf, size_t size) {
  const char *name = value <= UINT32_MAX ? aspect_name((uint32_t)value) : NULL;
  if (name) return name;
  snprintf(buf, size, "%llu", value);
  return buf;
}

static void add_aspect(StringList *aspects, const char *name) {
  if (!strlist_contains(aspects, name)) strlist_push(aspects, xstrdup(name));
}

static const char *string_attribute(LLVMValueRef f, const char *name, unsigned *len) {
  LLVMAttributeRef a =
      LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, name, strlen(name));
  return a ? LLVMGetStringAttributeValue(a, len) : NULL;
}

static LLVMContextRef context_of(LLVMValueRef v) {
  return LLVMGetTypeContext(LLVMTypeOf(v));
}

// Each operand is !{!"name", i32 value} (current DPC++) or a bare i32 value (older).
static void read_aspects(LLVMValueRef f, const char *kind, StringList *aspects) {
  LLVMValueRef node = global_metadata_node(f, kind);
  if (!node) return;
  unsigned n = LLVMGetMDNodeNumOperands(node);
  LLVMValueRef *ops = xcalloc(n ? n : 1, sizeof(LLVMValueRef));
  LLVMGetMDNodeOperands(node, ops);
  for (unsigned i = 0; i < n; i++) {
    char buf[32];
    if (ops[i] && LLVMIsAMDNode(ops[i]) && LLVMGetMDNodeNumOperands(ops[i]) == 2) {
      LLVMValueRef pair[2];
      LLVMGetMDNodeOperands(ops[i], pair);
      unsigned len;
      const char *name =
          pair[0] && LLVMIsAMDString(pair[0]) ? LLVMGetMDString(pair[0], &len) : NULL;
      if (name) {
        char *copy = xstrndup(name, len);
        add_aspect(aspects, copy);
        free(copy);
      } else if (pair[1] && LLVMIsAConstantInt(pair[1])) {
        add_aspect(aspects, aspect_text(LLVMConstIntGetZExtValue(pair[1]), buf, sizeof buf));
      }
    } else if (ops[i] && LLVMIsAConstantInt(ops[i])) {
      add_aspect(aspects, aspect_text(LLVMConstIntGetZExtValue(ops[i]), buf, sizeof buf));
    }
  }
  free(ops);
}

static void type_aspects(LLVMTypeRef t, StringList *aspects) {
  while (LLVMGetTypeKind(t) == LLVMVectorTypeKind || LLVMGetTypeKind(t) == LLVMArrayTypeKind)
    t = LLVMGetElementType(t);
  if (LLVMGetTypeKind(t) == LLVMDoubleTypeKind) add_aspect(aspects, "fp64");
  if (LLVMGetTypeKind(t) == LLVMHalfTypeKind) add_aspect(aspects, "fp16");
}

static void read_used_aspects(LLVMValueRef f, StringList *aspects) {
  read_aspects(f, used_aspects_metadata, aspects);
}

void function_declared_aspects(LLVMValueRef f, StringList *aspects) {
  read_aspects(f, declared_aspects_metadata, aspects);
}

void function_aspects(LLVMValueRef f, bool scan_body, StringList *aspects) {
  read_used_aspects(f, aspects);
  if (!scan_body || LLVMIsDeclaration(f)) return;
  // Upstream clang writes no sycl_used_aspects: a double or half anywhere in the body is
  // the fp64 or fp16 aspect.
  LLVMTypeRef fn_type = LLVMGlobalGetValueType(f);
  type_aspects(LLVMGetReturnType(fn_type), aspects);
  for (LLVMValueRef p = LLVMGetFirstParam(f); p; p = LLVMGetNextParam(p))
    type_aspects(LLVMTypeOf(p), aspects);
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      type_aspects(LLVMTypeOf(i), aspects);
      if (LLVMIsAAllocaInst(i)) type_aspects(LLVMGetAllocatedType(i), aspects); // opaque ptr
      int n = LLVMGetNumOperands(i);
      for (int k = 0; k < n; k++)
        type_aspects(LLVMTypeOf(LLVMGetOperand(i, k)), aspects);
    }
}

// Keeps the form the module already uses.
static void add_aspects(LLVMValueRef f, const char *kind_name, const StringList *aspects) {
  StringList have = {0};
  read_aspects(f, kind_name, &have);
  LLVMContextRef ctx = context_of(f);
  LLVMValueRef old = global_metadata_node(f, kind_name);
  unsigned n = old ? LLVMGetMDNodeNumOperands(old) : 0;
  LLVMMetadataRef *ops = xcalloc(n + aspects->count + 1, sizeof(LLVMMetadataRef));
  LLVMValueRef *old_ops = xcalloc(n + 1, sizeof(LLVMValueRef));
  if (old) LLVMGetMDNodeOperands(old, old_ops);
  size_t count = 0;
  for (unsigned i = 0; i < n; i++)
    if (old_ops[i]) ops[count++] = LLVMValueAsMetadata(old_ops[i]);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  for (size_t i = 0; i < aspects->count; i++) {
    const char *name = aspects->items[i];
    if (strlist_contains(&have, name)) continue;
    char *end;
    strtoul(name, &end, 10);
    bool numeric = *name && !*end;
    uint32_t value = 0;
    aspect_value(name, &value);
    LLVMMetadataRef pair[2] = {LLVMMDStringInContext2(ctx, name, strlen(name)),
                               LLVMValueAsMetadata(LLVMConstInt(i32, value, false))};
    ops[count++] = numeric ? pair[1] : LLVMMDNodeInContext2(ctx, pair, 2);
  }
  unsigned kind = LLVMGetMDKindIDInContext(ctx, kind_name, strlen(kind_name));
  LLVMGlobalSetMetadata(f, kind, LLVMMDNodeInContext2(ctx, ops, count));
  free(ops);
  free(old_ops);
  strlist_free(&have);
}

void add_used_aspects(LLVMValueRef f, const StringList *aspects) {
  add_aspects(f, used_aspects_metadata, aspects);
}

void add_declared_aspects(LLVMValueRef f, const StringList *aspects) {
  add_aspects(f, declared_aspects_metadata, aspects);
}

static int find_set(const VirtualSets *sets, const char *name, size_t len) {
  for (size_t i = 0; i < sets->names.count; i++)
    if (strlen(sets->names.items[i]) == len && !memcmp(sets->names.items[i], name, len))
      return (int)i;
  return -1;
}

int virtual_set_index(const VirtualSets *sets, LLVMValueRef f) {
  unsigned len;
  const char *set = string_attribute(f, "indirectly-callable", &len);
  return set ? find_set(sets, set, len) : -1;
}

// The device's list may name an aspect or give its number.
static bool device_supports(const SplitOptions *o, const char *aspect) {
  uint32_t wanted;
  if (aspect_value(aspect, &wanted)) return strlist_contains(&o->aot_aspects, aspect);
  for (size_t i = 0; i < o->aot_aspects.count; i++) {
    uint32_t have;
    if (aspect_value(o->aot_aspects.items[i], &have) == 0 && have == wanted) return true;
  }
  return false;
}

void virtual_sets_prepare(LLVMModuleRef m, const SplitOptions *o, VirtualSets *sets) {
  *sets = (VirtualSets){0};
  // The sets, and the union of what their functions use ("conjunction" in seed 002: a set
  // is available as a whole or not at all).
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    unsigned len;
    const char *set = string_attribute(f, "indirectly-callable", &len);
    if (!set || LLVMIsDeclaration(f)) continue;
    int index = find_set(sets, set, len);
    if (index < 0) {
      strlist_push(&sets->names, xstrndup(set, len));
      sets->aspects = xrealloc(sets->aspects, sets->names.count * sizeof(StringList));
      sets->aspects[sets->names.count - 1] = (StringList){0};
      index = (int)sets->names.count - 1;
    }
    function_aspects(f, true, &sets->aspects[index]);
  }
  sets->dropped = xcalloc(sets->names.count + 1, sizeof(bool));

  // A kernel calling into sets has their aspects already: propagate_aspects ran first.

  if (!o->aot) return;
  // AOT: the device is known; a set needing what it lacks is dropped, its functions' uses
  // (vtable slots) become null, and nothing is outlined.
  for (size_t s = 0; s < sets->names.count; s++)
    for (size_t i = 0; i < sets->aspects[s].count; i++)
      if (!device_supports(o, sets->aspects[s].items[i])) sets->dropped[s] = true;
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    int index = LLVMIsDeclaration(f) ? -1 : virtual_set_index(sets, f);
    if (index < 0 || !sets->dropped[index]) continue;
    LLVMReplaceAllUsesWith(f, LLVMConstNull(LLVMTypeOf(f)));
    LLVMDeleteFunction(f);
  }
}

void virtual_sets_free(VirtualSets *sets) {
  for (size_t i = 0; i < sets->names.count; i++)
    strlist_free(&sets->aspects[i]);
  strlist_free(&sets->names);
  free(sets->aspects);
  free(sets->dropped);
  *sets = (VirtualSets){0};
}

void empty_function_body(LLVMValueRef f) {
  LLVMLinkage linkage = LLVMGetLinkage(f);
  LLVMVisibility visibility = LLVMGetVisibility(f);
  bridge_make_declaration(f);
  LLVMContextRef ctx = context_of(f);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, f, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(f));
  if (LLVMGetTypeKind(ret) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, LLVMConstNull(ret));
  LLVMDisposeBuilder(b);
  LLVMSetLinkage(f, linkage);
  LLVMSetVisibility(f, visibility);
}
