// --lto=full, the traditional flow: every input module linked into one (device libraries on
// demand), optimized once, then split into images by split/'s rules. It emits nothing itself:
// the split images go through the same hooks as ThinLTO's.
#include "lto/lto.h"

#include <llvm-c/Linker.h>
#include <stdlib.h>
#include <string.h>

static const char module_id_attribute[] = "sycl-module-id";

// Upstream clang writes no sycl-module-id; without one, per-source split of the linked module
// could not tell the translation units apart. Each entry point gets its input's name, as
// DPC++'s front end would have given it.
static void mark_source(LLVMModuleRef m, const char *origin) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  size_t n = strlen(module_id_attribute);
  bool module_ids = module_has_module_ids(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!is_split_entry_point(f, module_ids) ||
        LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, module_id_attribute, n))
      continue;
    LLVMAttributeRef a =
        LLVMCreateStringAttribute(ctx, module_id_attribute, n, origin, strlen(origin));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, a);
  }
}

void full_link(Resolution *r, int jobs, FullModule *out) {
  out->ctx = context_create();
  out->module = NULL;
  // Inputs in link order, as one module; prepare_modules already dropped what lost resolution.
  for (size_t i = 0; i < r->num_modules; i++) {
    LinkModule *lm = &r->modules[i];
    // A set's dummy defines the set's functions again; the split makes it anew from the set.
    if (lm->input->is_library || lm->dummy) continue;
    LLVMModuleRef m;
    char *why;
    if (module_parse(out->ctx, lm->prepared.data, lm->prepared.size, lm->id, false, &m, &why))
      fatal(lm->input->origin, "%s", why);
    free(lm->prepared.data);
    lm->prepared = (Buffer){0};
    mark_source(m, lm->input->origin);
    if (!out->module) {
      out->module = m;
      LLVMSetModuleIdentifier(m, "full-lto", strlen("full-lto"));
    } else if (LLVMLinkModules2(out->module, m)) {
      const char *msg = context_last_error(out->ctx);
      fatal(lm->input->origin, "cannot link into the full-LTO module: %s",
            msg ? msg : "the linker failed");
    }
  }
  assert_that(out->module != NULL);

  // Device libraries supply only what is used, and what that uses, as completion does for
  // a ThinLTO image: the libraries are its only sources here.
  Buffer *libraries = xcalloc(r->num_modules, sizeof(Buffer));
  for (size_t i = 0; i < r->num_modules; i++)
    if (r->modules[i].input->is_library) libraries[i] = r->modules[i].prepared;
  CompletionSources sources = {.bitcode = libraries, .num_modules = r->num_modules};
  index_definitions(&sources, r, NULL, jobs, NULL);
  char *why;
  if (complete_module(out->module, &sources, &why))
    fatal(NULL, "cannot link the device libraries: %s", why);
  for (size_t i = 0; i < r->num_modules; i++) {
    free(r->modules[i].prepared.data);
    r->modules[i].prepared = (Buffer){0};
  }
  completion_sources_free(&sources);
  free(libraries);
}

// What must stay external for the split: what ThinLTO would preserve (kernels, exports under
// dependencies) and outlined virtual functions, which other images reach by name.
static bool stays_external(LLVMValueRef gv, bool is_function, const StrMap *preserved) {
  size_t len;
  const char *name = LLVMGetValueName2(gv, &len);
  if (!strncmp(name, "llvm.", 5) || strmap_get(preserved, name)) return true;
  return is_function && LLVMGetStringAttributeAtIndex(gv, LLVMAttributeFunctionIndex,
                                                      "indirectly-callable", 19) != NULL;
}

static void internalize(LLVMValueRef gv, bool is_function, const StrMap *preserved) {
  if (!is_internalizable(gv) || stays_external(gv, is_function, preserved)) return;
  make_internal(gv);
  // An internal function is no entry point: the split must not group it on its own.
  if (is_function)
    LLVMRemoveStringAttributeAtIndex(gv, LLVMAttributeFunctionIndex, module_id_attribute,
                                     strlen(module_id_attribute));
}

// Local device globals (an anonymous namespace's): the host writes them through the runtime,
// which the IR does not show, so one that no kernel stores to would be folded to its
// initializer and deleted. They are held in llvm.compiler.used through the pipeline; the
// array is then rebuilt without them, so the split sees the module as it was.
static LLVMValueRef *hold_local_device_globals(LLVMModuleRef m, size_t *count) {
  size_t n = 0, cap = 0, held = 0;
  LLVMValueRef *values = NULL;
  LLVMValueRef used = LLVMGetNamedGlobal(m, "llvm.compiler.used");
  LLVMValueRef init = used ? LLVMGetInitializer(used) : NULL;
  size_t existing = init ? (size_t)LLVMGetArrayLength2(LLVMTypeOf(init)) : 0;
  for (size_t i = 0; i < existing; i++) {
    if (n == cap) values = xrealloc(values, (cap = cap ? 2 * cap : 16) * sizeof *values);
    values[n++] = LLVMGetAggregateElement(init, (unsigned)i);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    const char *id;
    size_t len;
    LLVMLinkage l = LLVMGetLinkage(g);
    if (LLVMIsDeclaration(g) || (l != LLVMInternalLinkage && l != LLVMPrivateLinkage) ||
        !bridge_global_attribute(g, "sycl-unique-id", &id, &len))
      continue;
    if (n == cap) values = xrealloc(values, (cap = cap ? 2 * cap : 16) * sizeof *values);
    values[n++] = g;
    held++;
  }
  *count = n - held; // the first COUNT are the module's own
  if (!held) {
    free(values);
    return NULL;
  }
  LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(m), 0);
  for (size_t i = 0; i < n; i++)
    if (LLVMTypeOf(values[i]) != ptr) values[i] = LLVMConstAddrSpaceCast(values[i], ptr);
  if (used) LLVMDeleteGlobal(used);
  LLVMValueRef array = LLVMConstArray2(ptr, values, n);
  used = LLVMAddGlobal(m, LLVMTypeOf(array), "llvm.compiler.used");
  LLVMSetInitializer(used, array);
  LLVMSetLinkage(used, LLVMAppendingLinkage);
  LLVMSetSection(used, "llvm.metadata");
  return values;
}

// Puts back the module's own COUNT entries (HELD from hold_local_device_globals).
static void release_local_device_globals(LLVMModuleRef m, LLVMValueRef *held, size_t count) {
  if (!held) return;
  LLVMDeleteGlobal(LLVMGetNamedGlobal(m, "llvm.compiler.used"));
  if (count) {
    LLVMValueRef array =
        LLVMConstArray2(LLVMPointerTypeInContext(LLVMGetModuleContext(m), 0), held, count);
    LLVMValueRef used = LLVMAddGlobal(m, LLVMTypeOf(array), "llvm.compiler.used");
    LLVMSetInitializer(used, array);
    LLVMSetLinkage(used, LLVMAppendingLinkage);
    LLVMSetSection(used, "llvm.metadata");
  }
  free(held);
}

void full_optimize(FullModule *fm, const Resolution *r, int opt_level) {
  StrMap preserved = {0};
  for (size_t i = 0; i < r->must_preserve.count; i++)
    strmap_put(&preserved, r->must_preserve.items[i], (void *)1);
  for (LLVMValueRef f = LLVMGetFirstFunction(fm->module); f; f = LLVMGetNextFunction(f))
    internalize(f, true, &preserved);
  for (LLVMValueRef g = LLVMGetFirstGlobal(fm->module); g; g = LLVMGetNextGlobal(g))
    internalize(g, false, &preserved);
  strmap_free(&preserved);

  size_t own_used;
  LLVMValueRef *held = hold_local_device_globals(fm->module, &own_used);
  char *pipeline = format("default<O%d>", opt_level > 3 ? 3 : opt_level);
  char *why = run_passes(fm->module, pipeline);
  free(pipeline);
  release_local_device_globals(fm->module, held, own_used);
  if (why) fatal(NULL, "cannot optimize the full-LTO module: %s", why);
}

// Messages about an image name the input its first kernel (or export) came from.
static const char *image_origin(const SplitImage *image, const StrMap *origin_of) {
  const StringList *lists[2] = {&image->kernels, &image->exported};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < lists[k]->count; i++) {
      const char *origin = strmap_get(origin_of, lists[k]->items[i]);
      if (origin) return origin;
    }
  return "full-LTO module";
}

static void add_image(InputSet *images, Buffer *bitcode, InputImage image) {
  images->items[images->count] = image;
  bitcode[images->count++] = (Buffer){.data = (uint8_t *)image.data, .size = image.size};
}

Buffer *full_split(FullModule *fm, const Resolution *r, const SplitOptions *options,
                   InputSet *images) {
  // `auto` decides per input (one image for a unit with at most one kernel, else per source);
  // across the linked units that is per source, since each unit's entry points have its id.
  SplitOptions per_source = *options;
  if (per_source.mode == SPLIT_AUTO) per_source.mode = SPLIT_SOURCE;
  const SplitOptions *o = &per_source;
  SplitResult split;
  char *why;
  int failed = split_module(fm->module, o, &split, &why); // it consumes the module
  fm->module = NULL;
  context_dispose(fm->ctx);
  fm->ctx = NULL;
  if (failed) fatal(NULL, "cannot split the full-LTO module: %s", why);

  StrMap origin_of = {0};
  for (size_t i = 0; i < r->num_modules; i++) {
    const LinkModule *lm = &r->modules[i];
    for (size_t j = 0; j < lm->kernels.count; j++)
      strmap_put(&origin_of, lm->kernels.items[j], lm->input->origin);
    for (size_t j = 0; j < lm->exported.count; j++)
      if (!strmap_get(&origin_of, lm->exported.items[j]))
        strmap_put(&origin_of, lm->exported.items[j], lm->input->origin);
  }
  const char *arch = r->num_modules ? r->modules[0].input->arch : "";
  Buffer *bitcode = xcalloc(split.count + 1, sizeof(Buffer));
  images->items = xcalloc(split.count + 1, sizeof(InputImage));
  images->count = images->cap = 0;
  for (size_t i = 0; i < split.count; i++) {
    SplitImage *image = &split.images[i];
    InputImage in = {
        .origin = xstrdup(image_origin(image, &origin_of)),
        .image_kind = IMG_BITCODE,
        .offload_kind = OFK_SYCL,
        .triple = xstrdup(SPIRV_TRIPLE),
        .arch = xstrdup(arch ? arch : ""),
        .data = image->bitcode.data,
        .size = image->bitcode.size,
        .keys_copied = true, // split_image_keys's texts are the image's own
    };
    split_image_keys(image, o->mode, NULL, 0, &in.keys, &in.num_keys);
    add_image(images, bitcode, in); // the caller frees the bitcode after the hooks
    image->bitcode = (Buffer){0};
  }
  images->cap = images->count;
  note("full LTO: split into %zu image(s) (%s)", images->count, split_mode_name(o->mode));
  split_result_free(&split);
  strmap_free(&origin_of);
  return bitcode;
}
