// The wrapper object: the linked images, their kernels and property sets as the host-side
// tables SYCL runtimes read, plus the registration ctor/dtor. It links nothing itself.
#include "wrap/wrap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

// Device image and binary descriptor versions of upstream's SYCL wrapper (LLVM 22).
enum { DEVICE_IMAGE_VERSION = 3, BIN_DESC_VERSION = 1, OFFLOAD_ENTRY_VERSION = 1 };

typedef struct {
  LLVMContextRef ctx;
  LLVMModuleRef module;
  LLVMTypeRef i8, i16, i32, i64, ptr;
  LLVMTypeRef entry_type, property_type, property_set_type, image_type, desc_type;
  int next_id; // for unique internal names
} Wrapper;

static LLVMValueRef const_int(LLVMTypeRef type, uint64_t value) {
  return LLVMConstInt(type, value, false);
}

static LLVMValueRef null_pointer(const Wrapper *w) {
  return LLVMConstPointerNull(w->ptr);
}

static LLVMValueRef add_internal_constant(Wrapper *w, const char *prefix, LLVMValueRef init) {
  char name[64];
  snprintf(name, sizeof name, ".sycl_offloading.%s.%d", prefix, w->next_id++);
  LLVMValueRef g = LLVMAddGlobal(w->module, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetGlobalConstant(g, true);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  return g;
}

static LLVMValueRef add_bytes(Wrapper *w, const char *prefix, const void *data, size_t size,
                              bool nul_terminate) {
  LLVMValueRef init = LLVMConstStringInContext2(w->ctx, data, size, !nul_terminate);
  return add_internal_constant(w, prefix, init);
}

static LLVMValueRef add_string(Wrapper *w, const char *prefix, const char *text) {
  return add_bytes(w, prefix, text, strlen(text), true);
}

// Pointers to element INDEX of the array global G (INDEX == length: its end).
static LLVMValueRef element_pointer(Wrapper *w, LLVMValueRef g, uint64_t index) {
  LLVMValueRef indices[] = {const_int(w->i64, 0), const_int(w->i64, index)};
  return LLVMConstInBoundsGEP2(LLVMGlobalGetValueType(g), g, indices, 2);
}

// An array of ELEMENT_TYPE as a global; *begin and *end point at it (NULL when empty).
static void add_array(Wrapper *w, const char *prefix, LLVMTypeRef element_type,
                      LLVMValueRef *elements, size_t count, LLVMValueRef *begin,
                      LLVMValueRef *end) {
  if (!count) {
    *begin = *end = null_pointer(w);
    return;
  }
  LLVMValueRef g = add_internal_constant(w, prefix, LLVMConstArray2(element_type, elements, count));
  *begin = element_pointer(w, g, 0);
  *end = element_pointer(w, g, count);
}

static void define_types(Wrapper *w) {
  w->i8 = LLVMInt8TypeInContext(w->ctx);
  w->i16 = LLVMInt16TypeInContext(w->ctx);
  w->i32 = LLVMInt32TypeInContext(w->ctx);
  w->i64 = LLVMInt64TypeInContext(w->ctx);
  w->ptr = LLVMPointerTypeInContext(w->ctx, 0);
  // __tgt_offload_entry {reserved, version, kind, flags, addr, name, size, data, aux}
  LLVMTypeRef entry[] = {w->i64, w->i16, w->i16, w->i32, w->ptr, w->ptr, w->i64, w->i64, w->ptr};
  w->entry_type = LLVMStructCreateNamed(w->ctx, "struct.__tgt_offload_entry");
  LLVMStructSetBody(w->entry_type, entry, 9, false);
  // DPC++ property {name, value address, type, size} and set {name, begin, end} (seed 000)
  LLVMTypeRef property[] = {w->ptr, w->ptr, w->i32, w->i64};
  w->property_type = LLVMStructCreateNamed(w->ctx, "_pi_device_binary_property_struct");
  LLVMStructSetBody(w->property_type, property, 4, false);
  LLVMTypeRef set[] = {w->ptr, w->ptr, w->ptr};
  w->property_set_type =
      LLVMStructCreateNamed(w->ctx, "_pi_device_binary_property_set_struct");
  LLVMStructSetBody(w->property_set_type, set, 3, false);
  // {version, offload kind, format, target, compile options, link options, image begin,
  //  image end, entries begin, entries end, property sets begin, property sets end}
  LLVMTypeRef image[] = {w->i16, w->i8,  w->i8,  w->ptr, w->ptr, w->ptr,
                         w->ptr, w->ptr, w->ptr, w->ptr, w->ptr, w->ptr};
  w->image_type = LLVMStructCreateNamed(w->ctx, "__sycl.tgt_device_image");
  LLVMStructSetBody(w->image_type, image, 12, false);
  LLVMTypeRef desc[] = {w->i16, w->i16, w->ptr, w->ptr, w->ptr};
  w->desc_type = LLVMStructCreateNamed(w->ctx, "__sycl.tgt_bin_desc");
  LLVMStructSetBody(w->desc_type, desc, 5, false);
}

// One offload entry per kernel; "symbols" is split on newlines (ours) and NULs (upstream's).
static void add_offload_entries(Wrapper *w, const char *symbols, LLVMValueRef *begin,
                                LLVMValueRef *end) {
  size_t cap = 8, count = 0;
  LLVMValueRef *entries = xmalloc(cap * sizeof *entries);
  for (const char *p = symbols ? symbols : ""; *p;) {
    size_t n = strcspn(p, "\n");
    if (n) {
      char *name = xstrndup(p, n);
      LLVMValueRef fields[] = {const_int(w->i64, 0),
                               const_int(w->i16, OFFLOAD_ENTRY_VERSION),
                               const_int(w->i16, OFK_SYCL),
                               const_int(w->i32, 0),
                               null_pointer(w),
                               add_string(w, "entry_name", name),
                               const_int(w->i64, 0),
                               const_int(w->i64, 0),
                               null_pointer(w)};
      if (count == cap) entries = xrealloc(entries, (cap *= 2) * sizeof *entries);
      entries[count++] = LLVMConstNamedStruct(w->entry_type, fields, 9);
      free(name);
    }
    p += n + (p[n] == '\n');
  }
  add_array(w, "entries", w->entry_type, entries, count, begin, end);
  free(entries);
}

// DPC++'s encoding: a uint32 lives in the size field with no value address; a byte array
// is addressed with its 64-bit bit count in front, and its size counts those 8 bytes.
static LLVMValueRef property_constant(Wrapper *w, const Property *p) {
  LLVMValueRef name = add_string(w, "prop_name", p->name);
  if (p->type == PROP_UINT32) {
    LLVMValueRef fields[] = {name, null_pointer(w), const_int(w->i32, PROP_UINT32),
                             const_int(w->i64, p->u32)};
    return LLVMConstNamedStruct(w->property_type, fields, 4);
  }
  size_t size = 8 + p->bytes.size;
  uint8_t *value = xmalloc(size);
  uint64_t bits = property_bit_count(p);
  for (int i = 0; i < 8; i++)
    value[i] = (uint8_t)(bits >> (8 * i));
  if (p->bytes.size) memcpy(value + 8, p->bytes.data, p->bytes.size);
  LLVMValueRef data = add_bytes(w, "prop_value", value, size, false);
  free(value);
  LLVMValueRef fields[] = {name, element_pointer(w, data, 0), const_int(w->i32, PROP_BYTES),
                           const_int(w->i64, size)};
  return LLVMConstNamedStruct(w->property_type, fields, 4);
}

static void add_property_sets(Wrapper *w, const PropertySets *sets, LLVMValueRef *begin,
                              LLVMValueRef *end) {
  LLVMValueRef *set_values = xcalloc(sets->count ? sets->count : 1, sizeof *set_values);
  for (size_t s = 0; s < sets->count; s++) {
    const PropertySet *set = &sets->sets[s];
    LLVMValueRef *props = xcalloc(set->count ? set->count : 1, sizeof *props);
    for (size_t i = 0; i < set->count; i++)
      props[i] = property_constant(w, &set->props[i]);
    LLVMValueRef props_begin, props_end;
    add_array(w, "props", w->property_type, props, set->count, &props_begin, &props_end);
    LLVMValueRef fields[] = {add_string(w, "set_name", set->name), props_begin, props_end};
    set_values[s] = LLVMConstNamedStruct(w->property_set_type, fields, 3);
    free(props);
  }
  add_array(w, "property_sets", w->property_set_type, set_values, sets->count, begin, end);
  free(set_values);
}

// The image as intel's wrappers compress it (ZSTD_compressCCtx: one frame, its content size
// in the header, which intel's runtime needs to size the buffer it decompresses into).
static int compress_image(const uint8_t *image, size_t size, int level, Buffer *out,
                          char **errmsg) {
  size_t bound = ZSTD_compressBound(size);
  *out = (Buffer){.data = xmalloc(bound)};
  size_t n = ZSTD_compress(out->data, bound, image, size, level);
  if (ZSTD_isError(n)) {
    *errmsg = format("cannot compress a device image: %s", ZSTD_getErrorName(n));
    free(out->data);
    *out = (Buffer){0};
    return -1;
  }
  out->size = n;
  return 0;
}

// intel's name of the device target an image of TRIPLE is for: the triple's architecture,
// with SPIR-V's spirv64/spirv32 under intel's names (its runtime knows "spir64", "spir64_gen",
// "spir64_x86_64", ...). Owned by the caller.
static char *intel_target_name(const char *triple) {
  size_t n = strcspn(triple, "-");
  if (n >= 7 && !strncmp(triple, "spirv64", 7)) return xstrdup("spir64");
  if (n >= 7 && !strncmp(triple, "spirv32", 7)) return xstrdup("spir");
  return xstrndup(triple, n);
}

static LLVMValueRef device_image_constant(Wrapper *w, const OffloadEntry *e,
                                          const PropertySets *sets, const WrapOptions *o,
                                          char **errmsg) {
  const char *triple = offload_entry_get(e, "triple");
  const uint8_t *image = e->image;
  size_t image_size = e->image_size;
  // The ImageKind, as upstream's wrapper; for intel's runtime "none", which it reads as
  // "find the format from the bytes".
  uint8_t format_byte = o->intel_layout ? WRAP_INTEL_FORMAT_NONE : (uint8_t)e->image_kind;
  Buffer compressed = {0};
  size_t threshold =
      o->compression_threshold ? o->compression_threshold : WRAP_COMPRESSION_THRESHOLD;
  if (o->compress && image_size >= threshold) {
    if (compress_image(image, image_size, o->compression_level, &compressed, errmsg)) return NULL;
    if (o->report_compression)
      fprintf(stderr,
              "[Compression] Original image size: %zu\n[Compression] Compressed image size: "
              "%zu\n[Compression] Compression level used: %d\n",
              image_size, compressed.size, o->compression_level);
    image = compressed.data;
    image_size = compressed.size;
    format_byte = WRAP_FORMAT_COMPRESSED;
  }
  LLVMValueRef data = add_bytes(w, "image", image, image_size, false);
  free(compressed.data);
  LLVMSetAlignment(data, 8);
  LLVMValueRef entries_begin, entries_end, sets_begin, sets_end;
  add_offload_entries(w, offload_entry_get(e, "symbols"), &entries_begin, &entries_end);
  add_property_sets(w, sets, &sets_begin, &sets_end);
  char *target = o->intel_layout ? intel_target_name(triple ? triple : "")
                                  : xstrdup(triple ? triple : "");
  LLVMValueRef fields[] = {
      const_int(w->i16, DEVICE_IMAGE_VERSION),
      const_int(w->i8, o->intel_layout ? WRAP_INTEL_OFFLOAD_KIND_SYCL : e->offload_kind),
      const_int(w->i8, format_byte),
      add_string(w, "target", target),
      add_string(w, "opts.compile", o->compile_options ? o->compile_options : ""),
      add_string(w, "opts.link", o->link_options ? o->link_options : ""),
      element_pointer(w, data, 0),
      element_pointer(w, data, image_size),
      entries_begin,
      entries_end,
      sets_begin,
      sets_end,
  };
  free(target);
  return LLVMConstNamedStruct(w->image_type, fields, 12);
}

// void NAME(void) { CALLEE(&desc); } in llvm.global_ctors or llvm.global_dtors.
static void add_registration(Wrapper *w, const char *name, const char *callee, LLVMValueRef desc,
                             const char *table) {
  LLVMTypeRef void_type = LLVMVoidTypeInContext(w->ctx);
  LLVMTypeRef callee_type = LLVMFunctionType(void_type, &w->ptr, 1, false);
  LLVMValueRef callee_fn = LLVMAddFunction(w->module, callee, callee_type);
  LLVMValueRef fn = LLVMAddFunction(w->module, name, LLVMFunctionType(void_type, NULL, 0, false));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMSetSection(fn, ".text.startup");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(w->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(w->ctx, fn, "entry"));
  LLVMBuildCall2(b, callee_type, callee_fn, &desc, 1, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);

  // Priority 1, as upstream's SYCL wrapper: before any user constructor.
  LLVMTypeRef slot_fields[] = {w->i32, w->ptr, w->ptr};
  LLVMTypeRef slot_type = LLVMStructTypeInContext(w->ctx, slot_fields, 3, false);
  LLVMValueRef slot_values[] = {const_int(w->i32, 1), fn, null_pointer(w)};
  LLVMValueRef slot = LLVMConstStructInContext(w->ctx, slot_values, 3, false);
  LLVMValueRef array = LLVMConstArray2(slot_type, &slot, 1);
  LLVMValueRef g = LLVMAddGlobal(w->module, LLVMTypeOf(array), table);
  LLVMSetInitializer(g, array);
  LLVMSetLinkage(g, LLVMAppendingLinkage);
}

static int emit_object(LLVMModuleRef m, LLVMTargetMachineRef tm, Buffer *out, char **errmsg) {
  char *message = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &message))
    die("wrapper module does not verify: %s", message);
  LLVMDisposeMessage(message);
  LLVMMemoryBufferRef object;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &message, &object)) {
    *errmsg = format("cannot emit the wrapper object: %s", message);
    LLVMDisposeMessage(message);
    return -1;
  }
  buffer_append(out, LLVMGetBufferStart(object), LLVMGetBufferSize(object));
  LLVMDisposeMemoryBuffer(object);
  return 0;
}

int parse_image_layout(const char *text, bool *intel) {
  if (strcmp(text, "llvm") && strcmp(text, "intel")) return -1;
  *intel = !strcmp(text, "intel");
  return 0;
}

// An ELF host of the SYCL runtime: x86-64 Linux, or a triple that names no other system
// ("x86_64", "x86_64-unknown-unknown"). Checked on the normalized triple, before LLVM sees
// it: for a Mach-O or COFF triple LLVM emits another object format, or aborts on our
// sections (x86_64-apple-darwin: "mach-o section specifier requires a segment").
int check_host_triple(const char *triple, char **errmsg) {
  char *normal = LLVMNormalizeTargetTriple(triple);
  char *part[4] = {0};
  char *copy = xstrdup(normal), *rest = copy;
  for (int i = 0; i < 4 && rest; i++) {
    part[i] = rest;
    rest = strchr(rest, '-');
    if (rest) *rest++ = 0;
  }
  const char *os = part[2] ? part[2] : "unknown", *env = part[3] ? part[3] : "";
  bool arch_ok = part[0] && !strcmp(part[0], "x86_64");
  bool os_ok = !strncmp(os, "linux", 5) || !strcmp(os, "unknown") || !strcmp(os, "none");
  bool env_ok = !*env || !strncmp(env, "gnu", 3) || !strncmp(env, "musl", 4) ||
                !strcmp(env, "elf") || !strcmp(env, "unknown");
  int rc = 0;
  if (!*triple || !arch_ok || !os_ok || !env_ok || rest) {
    *errmsg = format("unsupported host triple '%s': the wrapper is an x86-64 Linux (ELF) object "
                     "(for example x86_64-unknown-linux-gnu)",
                     triple);
    rc = -1;
  }
  free(copy);
  LLVMDisposeMessage(normal);
  return rc;
}

static LLVMTargetMachineRef create_host_target_machine(const char *triple, char **errmsg) {
  if (check_host_triple(triple, errmsg)) return NULL;
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86Target();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86AsmPrinter();
  LLVMTargetRef target;
  char *message = NULL;
  if (strncmp(triple, "x86_64", 6) || LLVMGetTargetFromTriple(triple, &target, &message)) {
    *errmsg = format("unsupported host triple '%s'%s%s: the wrapper is emitted for x86-64 only",
                     triple, message ? ": " : "", message ? message : "");
    LLVMDisposeMessage(message);
    return NULL;
  }
  // PIC: the wrapper goes into position-independent executables and shared libraries.
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      target, triple, "x86-64", "", LLVMCodeGenLevelDefault, LLVMRelocPIC, LLVMCodeModelDefault);
  // The registration sections: .init_array/.fini_array, which GNU ld, gold and lld all run
  // (lld ignores .ctors.N, LLVM's default, and the images would silently not register).
  if (tm) bridge_use_init_array(tm);
  return tm;
}

int write_wrapper_object(const char *path, const OffloadEntry *images,
                         const PropertySets *properties, size_t count, const WrapOptions *o,
                         char **errmsg) {
  if (count > UINT16_MAX) {
    *errmsg = format("%zu images do not fit the descriptor's 16-bit count", count);
    return -1;
  }
  char *default_triple = LLVMGetDefaultTargetTriple();
  const char *triple = o->host_triple ? o->host_triple : default_triple;
  LLVMTargetMachineRef tm = create_host_target_machine(triple, errmsg);
  if (!tm) {
    LLVMDisposeMessage(default_triple);
    return -1;
  }
  Wrapper w = {.ctx = LLVMContextCreate()};
  w.module = LLVMModuleCreateWithNameInContext("sycl-thinlto.wrapper", w.ctx);
  LLVMSetTarget(w.module, triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(w.module, layout);
  define_types(&w);

  LLVMValueRef *image_values = xcalloc(count ? count : 1, sizeof *image_values);
  int rc = 0;
  for (size_t i = 0; i < count && !rc; i++)
    if (!(image_values[i] = device_image_constant(&w, &images[i], &properties[i], o, errmsg)))
      rc = -1;
  if (rc) goto done;
  // No image (device code without kernels): an object that registers nothing and needs
  // nothing from the runtime, so that such a program links like any host program.
  if (!count) goto emit;
  LLVMValueRef images_begin, images_end;
  add_array(&w, "device_images", w.image_type, image_values, count, &images_begin, &images_end);
  LLVMValueRef desc_fields[] = {const_int(w.i16, BIN_DESC_VERSION), const_int(w.i16, count),
                                images_begin, null_pointer(&w), null_pointer(&w)};
  LLVMValueRef desc =
      add_internal_constant(&w, "descriptor", LLVMConstNamedStruct(w.desc_type, desc_fields, 5));
  add_registration(&w, "sycl.descriptor_reg", "__sycl_register_lib", desc, "llvm.global_ctors");
  add_registration(&w, "sycl.descriptor_unreg", "__sycl_unregister_lib", desc, "llvm.global_dtors");
emit:

  if (o->print_module) {
    char *text = LLVMPrintModuleToString(w.module);
    fputs(text, stderr);
    LLVMDisposeMessage(text);
  }
  Buffer object = {0};
  rc = emit_object(w.module, tm, &object, errmsg);
  if (!rc && (rc = write_file_atomic(path, object.data, object.size))) {
    *errmsg = format("cannot write the wrapper object: %s", strerror(-rc));
    rc = -1;
  }
  free(object.data);
done:
  free(image_values);
  LLVMDisposeTargetData(layout);
  LLVMDisposeModule(w.module);
  LLVMContextDispose(w.ctx);
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeMessage(default_triple);
  return rc;
}


void images_to_wrap_free(OffloadEntry *images, PropertySets *properties, size_t count,
                         Buffer *bytes, size_t files) {
  for (size_t i = 0; i < count; i++) {
    free(images[i].strings);
    propsets_free(&properties[i]);
  }
  for (size_t f = 0; f < files; f++)
    free(bytes[f].data);
  free(bytes);
  free(images);
  free(properties);
}

// Reads the SYCL images of every file in FILES, with their property sets. The OffloadEntry
// texts point into *bytes (one buffer per file), freed by the caller.
int read_images_to_wrap(const StringList *files, OffloadEntry **images, PropertySets **properties,
                        size_t *count, Buffer **bytes) {
  *images = NULL;
  *properties = NULL;
  *count = 0;
  *bytes = xcalloc(files->count ? files->count : 1, sizeof(Buffer));
  size_t cap = 0;
  for (size_t f = 0; f < files->count; f++) {
    const char *path = files->items[f];
    // The same images registered twice would be two programs defining the same kernels.
    for (size_t g = 0; g < f; g++)
      if (same_file(files->items[g], path)) {
        error(path, "given twice (also as %s): its images would be registered twice",
              files->items[g]);
        return -1;
      }
    int rc = read_file(path, &(*bytes)[f]);
    if (rc) {
      error(path, "cannot read: %s", read_error_text(rc));
      return -1;
    }
    // What `link` writes when the device code holds no kernel: no image to register.
    if (!(*bytes)[f].size) {
      note("%s: empty: no device image (device code without kernels)", path);
      continue;
    }
    OffloadEntry *entries;
    size_t n;
    char *why;
    if (!is_offload_binary((*bytes)[f].data, (*bytes)[f].size)) {
      error(path, "not an OffloadBinary file (what 'sycl-thinlto link' writes)");
      return -1;
    }
    if (offload_binary_parse((*bytes)[f].data, (*bytes)[f].size, &entries, &n, &why)) {
      error(path, "%s", why);
      free(why);
      return -1;
    }
    size_t wrapped = 0;
    for (size_t i = 0; i < n; i++) {
      if (entries[i].offload_kind != OFK_SYCL) {
        warning(path, "image %zu is not a SYCL image; not wrapped", i);
        free(entries[i].strings);
        continue;
      }
      // The runtime picks an image by its target and builds it by its kind: an image that
      // says neither (or a kind no runtime knows) cannot be registered as anything.
      const char *triple = offload_entry_get(&entries[i], "triple");
      const char *refused =
          !triple || !*triple ? "has no triple: the device it is for is unknown"
          : !is_spirv_triple(triple)
              ? "is not for a SPIR-V target (spir64/spirv64): only SPIR-V images are wrapped"
          : entries[i].image_kind > IMG_SPIRV ? "is of an unknown image kind"
                                              : NULL;
      if (refused) {
        error(path, "image %zu %s (kind %u, triple '%s')", i, refused, entries[i].image_kind,
              triple ? triple : "");
        for (size_t j = i; j < n; j++)
          free(entries[j].strings);
        free(entries);
        return -1;
      }
      // Unlinked device code (what 'clang++ -fsycl -c' packs) is no image the runtime can
      // build: the wrapped program would fail only when it runs.
      if (entries[i].image_kind == IMG_BITCODE ||
          is_llvm_bitcode(entries[i].image, entries[i].image_size)) {
        error(path,
              "image %zu is LLVM bitcode, not a linked device image: link it with 'sycl-thinlto "
              "link' first",
              i);
        for (size_t j = i; j < n; j++)
          free(entries[j].strings);
        free(entries);
        return -1;
      }
      if (*count == cap) {
        cap = cap ? cap * 2 : 8;
        *images = xrealloc(*images, cap * sizeof **images);
        *properties = xrealloc(*properties, cap * sizeof **properties);
      }
      PropertySets sets = {0};
      const char *json = offload_entry_get(&entries[i], "properties");
      if (json && propsets_from_json(json, &sets, &why)) {
        error(path, "image %zu: bad property sets: %s", i, why);
        free(why);
        return -1;
      }
      (*images)[*count] = entries[i];
      (*properties)[(*count)++] = sets;
      wrapped++;
    }
    free(entries);
    if (!wrapped) {
      error(path, "no SYCL image in it: nothing to wrap");
      return -1;
    }
  }
  return 0;
}
