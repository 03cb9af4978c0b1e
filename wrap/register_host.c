// Host registration (seed 004, "custom host compiler"): a constructor that tells the runtime
// the address of every uniquely identifiable host variable. It computes no device properties.
#include "wrap/wrap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>

typedef struct {
  LLVMValueRef var;
  char *id, *kind;
} UniqueObject;

typedef struct {
  UniqueObject *items;
  size_t count, cap;
} UniqueObjects;

static char *attribute_text(LLVMValueRef var, const char *name) {
  const char *value;
  size_t len;
  return bridge_global_attribute(var, name, &value, &len) ? xstrndup(value, len) : NULL;
}

// The definitions this module registers: a declaration or an available_externally copy is
// registered by the module that defines it. Works on IR symbols, so an anonymous-namespace
// variable (internal, _ZN12_GLOBAL__N_1...) and a global one of the same source name are two
// variables here, whatever shadows what in the source.
static int collect_unique_objects(LLVMModuleRef m, UniqueObjects *out, char **errmsg) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMIsDeclaration(g) || LLVMGetLinkage(g) == LLVMAvailableExternallyLinkage) continue;
    char *id = attribute_text(g, "sycl-unique-id");
    char *kind = attribute_text(g, "sycl-uid-kind");
    if (!id && !kind) continue;
    if (!id || !kind || !*id) {
      size_t len;
      const char *name = LLVMGetValueName2(g, &len);
      if (!id || !kind)
        *errmsg = format("global '%.*s' has %s but no %s (a DPC++ front end writes both)", (int)len,
                         name, id ? "sycl-unique-id" : "sycl-uid-kind",
                         id ? "sycl-uid-kind" : "sycl-unique-id");
      else
        *errmsg = format("global '%.*s' has an empty sycl-unique-id", (int)len, name);
      free(id);
      free(kind);
      return -1;
    }
    if (global_metadata_node(g, HOST_REGISTERED_METADATA)) { // registered by an earlier run
      free(id);
      free(kind);
      continue;
    }
    if (out->count == out->cap) {
      out->cap = out->cap ? out->cap * 2 : 8;
      out->items = xrealloc(out->items, out->cap * sizeof *out->items);
    }
    out->items[out->count++] = (UniqueObject){g, id, kind};
  }
  return 0;
}

static LLVMValueRef add_string_constant(LLVMModuleRef m, const char *name, const char *text) {
  LLVMValueRef init = LLVMConstStringInContext2(LLVMGetModuleContext(m), text, strlen(text), false);
  LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetGlobalConstant(g, true);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  LLVMSetAlignment(g, 1);
  return g;
}

// void __register_uniquely_identifiable_object(void *, const char *, const char *): an
// existing declaration of another type is the user's error.
static LLVMValueRef registration_function(LLVMModuleRef m, LLVMTypeRef *type, char **errmsg) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef params[] = {ptr, ptr, ptr};
  *type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 3, false);
  LLVMValueRef f = LLVMGetNamedFunction(m, HOST_REGISTRATION_FUNCTION);
  if (!f) return LLVMAddFunction(m, HOST_REGISTRATION_FUNCTION, *type);
  if (LLVMGlobalGetValueType(f) != *type) {
    *errmsg = format("'%s' is declared with another type than void(void *, const char *, const "
                     "char *)",
                     HOST_REGISTRATION_FUNCTION);
    return NULL;
  }
  return f;
}

// The constructor: one call per object, in module order.
static LLVMValueRef build_constructor(LLVMModuleRef m, const UniqueObjects *objects,
                                      LLVMValueRef callee, LLVMTypeRef callee_type) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMValueRef fn = LLVMAddFunction(m, HOST_REGISTRATION_CTOR,
                                    LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, false));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMSetSection(fn, ".text.startup");
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(ctx, nounwind, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  StrMap kinds = {0}; // one string per kind
  for (size_t i = 0; i < objects->count; i++) {
    const UniqueObject *o = &objects->items[i];
    LLVMValueRef kind = strmap_get(&kinds, o->kind);
    if (!kind) {
      char *name = format("sycl.uid.kind.%zu", kinds.count);
      kind = add_string_constant(m, name, o->kind);
      strmap_put(&kinds, o->kind, kind);
      free(name);
    }
    char *name = format("sycl.uid.id.%zu", i);
    LLVMValueRef id = add_string_constant(m, name, o->id);
    free(name);
    LLVMValueRef address = o->var;
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(address)) != 0)
      address = LLVMConstAddrSpaceCast(address, ptr);
    LLVMValueRef args[] = {address, id, kind};
    LLVMBuildCall2(b, callee_type, callee, args, 3, "");
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  strmap_free(&kinds);
  return fn;
}

// llvm.global_ctors with CTOR first: llvm-c cannot edit an appending array in place, so the
// old one is read, deleted and built again. The priority is HOST_REGISTRATION_PRIORITY, or
// the lowest one already there: the code generator sorts constructors by priority and keeps
// the array order among equals (.init_array.N in order), so CTOR runs first in its module.
static void prepend_constructor(LLVMModuleRef m, LLVMValueRef ctor) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef fields[] = {i32, ptr, ptr};
  LLVMTypeRef slot_type = LLVMStructTypeInContext(ctx, fields, 3, false);
  LLVMValueRef old = LLVMGetNamedGlobal(m, "llvm.global_ctors");
  size_t count = 0;
  LLVMValueRef *slots = NULL;
  uint64_t priority = HOST_REGISTRATION_PRIORITY;
  if (old && LLVMGetInitializer(old)) {
    LLVMValueRef init = LLVMGetInitializer(old);
    LLVMTypeRef array_type = LLVMTypeOf(init);
    slot_type = LLVMGetElementType(array_type); // as the module has it (upgraded on reading)
    count = (size_t)LLVMGetArrayLength2(array_type);
    slots = xcalloc(count + 1, sizeof *slots);
    for (size_t i = 0; i < count; i++) {
      slots[i + 1] = LLVMGetAggregateElement(init, (unsigned)i);
      LLVMValueRef p = LLVMGetAggregateElement(slots[i + 1], 0);
      uint64_t existing = p && LLVMIsAConstantInt(p) ? LLVMConstIntGetZExtValue(p) : priority;
      if (existing < priority) priority = existing;
    }
  } else {
    slots = xcalloc(1, sizeof *slots);
  }
  LLVMValueRef values[] = {LLVMConstInt(i32, priority, false), ctor, LLVMConstPointerNull(ptr)};
  unsigned num_fields = LLVMCountStructElementTypes(slot_type);
  slots[0] = LLVMConstNamedStruct(slot_type, values, num_fields < 3 ? num_fields : 3);
  LLVMValueRef array = LLVMConstArray2(slot_type, slots, count + 1);
  if (old) LLVMDeleteGlobal(old);
  LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(array), "llvm.global_ctors");
  LLVMSetInitializer(g, array);
  LLVMSetLinkage(g, LLVMAppendingLinkage);
  free(slots);
}

int register_host_objects(LLVMModuleRef m, size_t *registered, char **errmsg) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  unsigned registered_kind =
      LLVMGetMDKindIDInContext(ctx, HOST_REGISTERED_METADATA, strlen(HOST_REGISTERED_METADATA));
  UniqueObjects objects = {0};
  int rc = collect_unique_objects(m, &objects, errmsg);
  *registered = 0;
  if (!rc && objects.count) {
    LLVMTypeRef callee_type;
    LLVMValueRef callee = registration_function(m, &callee_type, errmsg);
    if (!callee) {
      rc = -1;
    } else {
      prepend_constructor(m, build_constructor(m, &objects, callee, callee_type));
      LLVMMetadataRef mark = LLVMMDNodeInContext2(ctx, NULL, 0);
      for (size_t i = 0; i < objects.count; i++)
        LLVMGlobalSetMetadata(objects.items[i].var, registered_kind, mark);
      *registered = objects.count;
    }
  }
  for (size_t i = 0; i < objects.count; i++) {
    free(objects.items[i].id);
    free(objects.items[i].kind);
  }
  free(objects.items);
  return rc;
}

int register_host_bitcode(const uint8_t *data, size_t size, const char *name, Buffer *out,
                          size_t *registered, char **errmsg) {
  *out = (Buffer){0};
  *registered = 0;
  bool thin = false;
  reading_input_begin(name, "bitcode");
  if (!is_llvm_bitcode(data, size) || bridge_bitcode_is_thinlto(data, size, &thin)) {
    reading_input_end();
    *errmsg = xstrdup("not an LLVM bitcode file");
    return -1;
  }
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  int rc = module_parse_verified(ctx, data, size, name, &m, errmsg);
  reading_input_end();
  if (!rc) rc = register_host_objects(m, registered, errmsg);
  if (!rc && !*registered) {
    buffer_append(out, data, size); // unchanged, to the byte
  } else if (!rc) {
    char *message = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &message))
      die("registered host module does not verify: %s", message);
    LLVMDisposeMessage(message);
    // A ThinLTO module keeps a summary (the host link would otherwise treat it as full LTO).
    if (thin)
      rc = bridge_write_bitcode_with_summary(m, out, errmsg);
    else
      *out = module_write(m);
  }
  if (m) LLVMDisposeModule(m);
  context_dispose(ctx);
  return rc;
}

int host_bitcode_offloading(const uint8_t *data, size_t size, const char *name, Buffer *out,
                            char **errmsg) {
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  reading_input_begin(name, "bitcode"); // a lazy read: until the module is gone
  int rc = module_parse(ctx, data, size, name, true, &m, errmsg);
  for (LLVMValueRef g = rc ? NULL : LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    const char *section = LLVMGetSection(g);
    LLVMValueRef init = LLVMIsDeclaration(g) ? NULL : LLVMGetInitializer(g);
    if (!section || strcmp(section, ".llvm.offloading") || !init) continue;
    size_t len = 0;
    const char *bytes = LLVMIsAConstantDataSequential(init) ? LLVMGetAsString(init, &len) : NULL;
    if (!bytes) {
      *errmsg = xstrdup("its .llvm.offloading global is not a byte array");
      rc = -1;
      break;
    }
    buffer_append(out, bytes, len);
  }
  if (m) LLVMDisposeModule(m);
  reading_input_end();
  context_dispose(ctx);
  return rc;
}
