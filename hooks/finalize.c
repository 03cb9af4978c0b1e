// Finalization of a completed image: everything but its entry points becomes internal and
// what nothing reaches is deleted. It does not compute runtime metadata or emit SPIR-V.
#include "hooks/hooks.h"

#include <stdlib.h>
#include <string.h>

static void internalize(LLVMValueRef gv, const StrMap *entry_points) {
  if (!is_internalizable(gv)) return;
  size_t len;
  const char *name = LLVMGetValueName2(gv, &len);
  if (!strncmp(name, "llvm.", 5) || strmap_get(entry_points, name)) {
    LLVMSetLinkage(gv, LLVMExternalLinkage); // an entry point stays exactly itself
    return;
  }
  make_internal(gv);
}

// After completion the image holds imported and linked definitions that were optimized in
// their own modules but never together: a light pipeline inlines them into their callers and
// folds what that exposes. It is all the post-link optimization a thin image gets (the libLTO
// backends only import, at -O0): the inputs arrive optimized by their compile jobs, and
// re-running the whole O2 pipeline on every image cost most of the link (bench/RESULTS.md).
// The folding runs only on the functions the inliner may have changed: the others arrive as
// their compile jobs optimized them, and folding them again cost the link more than the
// inlining (bench/RESULTS.md, issue 18).
static const char inline_pass[] = "cgscc(inline)";
static const char fold_passes[] = "sroa,early-cse,instcombine,simplifycfg";
static const char cleanup_passes[] = "globaldce,strip-dead-prototypes";

// Whether the inliner may change F: it calls a definition of this module not marked noinline.
static bool may_inline_into(LLVMValueRef f, unsigned noinline) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i)) continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (callee && LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee) &&
          !LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, noinline))
        return true;
    }
  return false;
}

// Inlining, folding where something may have been inlined, then what is dead goes. The
// functions are found again by name: the inliner deletes a local callee it inlined everywhere.
static char *run_light_pipeline(LLVMModuleRef m) {
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  StringList changed = {0};
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (len && !LLVMIsDeclaration(f) && may_inline_into(f, noinline))
      strlist_push(&changed, xstrndup(name, len));
  }
  char *why = changed.count ? run_passes(m, inline_pass) : NULL;
  for (size_t i = 0; i < changed.count && !why; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, changed.items[i]);
    if (f && !LLVMIsDeclaration(f)) why = run_function_passes(f, fold_passes);
  }
  strlist_free(&changed);
  return why ? why : run_passes(m, cleanup_passes);
}

int finalize_module(LLVMModuleRef m, const StringList *entry_points, int opt_level, char **errmsg) {
  StrMap keep = {0}; // an image of many entry points is not searched once per global
  for (size_t i = 0; i < entry_points->count; i++)
    strmap_put(&keep, entry_points->items[i], (void *)1);
  for (LLVMValueRef gv = first_global_object(m); gv; gv = next_global_object(gv))
    internalize(gv, &keep);
  strmap_free(&keep);
  char *why = opt_level > 0 ? run_light_pipeline(m) : run_passes(m, cleanup_passes);
  if (why) {
    *errmsg = format("cannot finalize the image: %s", why);
    free(why);
    return -1;
  }
  return 0;
}

// SPV_INTEL_global_variable_host_access (issue 16, item 3): the runtime finds a device global
// of a SPIR-V image by its unique ID, as DPC++ images carry it, through the HostAccessINTEL
// decoration; its IR name may be internal, or renamed by ThinLTO's promotion. LLVM 22's
// backend (and llvm-spirv) turn spirv.Decorations metadata {6188, access, "id"} into it.
// Access: the "sycl-host-access" property (DPC++: 0 read, 1 write, 2 read_write, 3 none)
// in the extension's numbering (1 read, 2 write, 3 read-write, 0 none); read-write if unset.
enum { DECORATION_HOST_ACCESS_INTEL = 6188 };

void decorate_host_access(LLVMModuleRef m) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  unsigned kind = LLVMGetMDKindIDInContext(ctx, "spirv.Decorations", 17);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    const char *id, *access_text;
    size_t id_len, access_len;
    if (LLVMIsDeclaration(g) || !bridge_global_attribute(g, "sycl-unique-id", &id, &id_len))
      continue;
    unsigned access = 3;
    if (bridge_global_attribute(g, "sycl-host-access", &access_text, &access_len) &&
        access_len == 1 && access_text[0] >= '0' && access_text[0] <= '3')
      access = (unsigned)(access_text[0] - '0' + 1) % 4;
    LLVMMetadataRef operands[] = {
        LLVMValueAsMetadata(LLVMConstInt(i32, DECORATION_HOST_ACCESS_INTEL, false)),
        LLVMValueAsMetadata(LLVMConstInt(i32, access, false)),
        LLVMMDStringInContext2(ctx, id, id_len),
    };
    LLVMMetadataRef decoration = LLVMMDNodeInContext2(ctx, operands, 3);
    LLVMGlobalSetMetadata(g, kind, LLVMMDNodeInContext2(ctx, &decoration, 1));
  }
}
