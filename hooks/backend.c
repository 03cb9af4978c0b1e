// An image's backend after completion, the same wherever it runs (a link's thread, or a
// distributed job): finalization, then the symbol table, undefined users and properties.
// It does not complete modules, schedule work or emit SPIR-V.
#include "hooks/hooks.h"

#include <stdlib.h>
#include <string.h>

void image_spec_make(const LinkModule *lm, const HookOptions *opts, bool dummy_image,
                     ImageSpec *spec) {
  *spec = (ImageSpec){
      .module_id = xstrdup(lm->id),
      .allow_dependencies = opts->allow_dependencies,
      .dummy_image = dummy_image,
      .opt_level = opts->opt_level,
      .property_opt_level = lm->opt_level >= 0 ? lm->opt_level : opts->opt_level,
      .validate = opts->validate,
      .emit_program_metadata = opts->emit_program_metadata,
      .emit_kernel_names = opts->emit_kernel_names,
  };
  for (size_t i = 0; i < lm->kernels.count; i++)
    strlist_push(&spec->entry_points, xstrdup(lm->kernels.items[i]));
  if (opts->allow_dependencies)
    for (size_t i = 0; i < lm->exported.count; i++)
      strlist_push(&spec->entry_points, xstrdup(lm->exported.items[i]));
  for (size_t i = 0; i < lm->device_globals.count; i++)
    strlist_push(&spec->entry_points, xstrdup(lm->device_globals.items[i]));
  for (size_t i = 0; i < lm->virtual_functions.count; i++) // a set image exports its set
    strlist_push(&spec->entry_points, xstrdup(lm->virtual_functions.items[i]));
  for (size_t i = 0; i < lm->exported.count; i++)
    strlist_push(&spec->exported, xstrdup(lm->exported.items[i]));
}

void image_spec_free(ImageSpec *spec) {
  free(spec->module_id);
  strlist_free(&spec->entry_points);
  strlist_free(&spec->exported);
  strlist_free(&spec->allowed_imports);
  *spec = (ImageSpec){0};
}

int finalize_image_module(LLVMModuleRef m, const ImageSpec *spec, char **errmsg) {
  return finalize_module(m, &spec->entry_points, spec->opt_level, errmsg);
}

// Which kernels reach V through any chain of uses; for "undefined symbol" messages.
static void find_kernels(LLVMValueRef v, StringList *kernels, StrMap *seen) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    LLVMValueRef fn = NULL;
    if (LLVMIsAInstruction(user)) {
      fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
    } else if (LLVMIsAFunction(user) || LLVMIsAGlobalVariable(user)) {
      fn = user;
    } else {
      find_kernels(user, kernels, seen); // a constant expression: follow its users
      continue;
    }
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    if (strmap_get(seen, name)) continue;
    strmap_put(seen, name, (void *)1);
    if (LLVMIsAFunction(fn) && is_kernel(fn)) strlist_push(kernels, xstrndup(name, len));
    find_kernels(fn, kernels, seen);
  }
}

void undefined_uses_push(UndefinedUses *u, char *name, StringList *kernels, bool declared) {
  u->items = xrealloc(u->items, (u->count + 1) * sizeof *u->items);
  u->items[u->count++] = (UndefinedUse){name, *kernels, declared};
  *kernels = (StringList){0};
}

const UndefinedUse *undefined_uses_find(const UndefinedUses *u, const char *name) {
  for (size_t i = 0; i < u->count; i++)
    if (!strcmp(u->items[i].name, name)) return &u->items[i];
  return NULL;
}

void undefined_uses_free(UndefinedUses *u) {
  for (size_t i = 0; i < u->count; i++) {
    free(u->items[i].name);
    strlist_free(&u->items[i].kernels);
  }
  free(u->items);
  *u = (UndefinedUses){0};
}

static void record_undefined_uses(LLVMModuleRef m, UndefinedUses *undefined) {
  for (LLVMValueRef gv = first_global_object(m); gv; gv = next_global_object(gv)) {
    if (!LLVMIsDeclaration(gv) || (LLVMIsAFunction(gv) && LLVMGetIntrinsicID(gv))) continue;
    size_t len;
    const char *name = LLVMGetValueName2(gv, &len);
    if (is_builtin_name(name)) continue;
    StringList kernels = {0};
    StrMap seen = {0};
    find_kernels(gv, &kernels, &seen);
    // DPC++ marks the program's own functions with sycl-module-id, declarations too: one
    // that is used and left undefined is an undefined symbol, whatever its name looks like.
    bool declared = LLVMIsAFunction(gv) && LLVMGetFirstUse(gv) &&
                    LLVMGetStringAttributeAtIndex(gv, LLVMAttributeFunctionIndex,
                                                  "sycl-module-id", 14);
    undefined_uses_push(undefined, xstrndup(name, len), &kernels, declared);
    strmap_free(&seen);
  }
}

void describe_image(LLVMModuleRef m, const ImageSpec *spec, ImageResult *res,
                    UndefinedUses *undefined) {
  // The symbol table: the kernels that are really in the image, in module order.
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && is_kernel(f)) {
      size_t len;
      const char *name = LLVMGetValueName2(f, &len);
      strlist_push(&res->symbols, xstrndup(name, len));
    }
  record_undefined_uses(m, undefined);
  // Runtime metadata, on the fully linked module (seed 003), by this image alone.
  PropertyInputs props = {
      .kernels = &res->symbols,
      .exported = &spec->exported,
      .allow_dependencies = spec->allow_dependencies,
      .dummy_image = spec->dummy_image,
      .opt_level = spec->property_opt_level,
      .emit_program_metadata = spec->emit_program_metadata,
      .emit_kernel_names = spec->emit_kernel_names,
  };
  PropertySets sets = {0};
  compute_properties(m, &props, &sets);
  res->properties = propsets_to_json(&sets);
  propsets_free(&sets);
  decorate_host_access(m);
}

void image_result_properties(const ImageResult *r, PropertySets *sets) {
  char *why = NULL;
  *sets = (PropertySets){0};
  if (propsets_from_json(r->properties, sets, &why)) die("an image's properties: %s", why);
}

void image_result_free(ImageResult *r) {
  free(r->spirv.data);
  strlist_free(&r->symbols);
  strlist_free(&r->imports);
  free(r->properties);
}
