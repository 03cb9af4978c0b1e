// Makes every module ready for the thin link: the canonical SPIR-V triple, overridden
// definitions dropped, and a ThinLTO summary written with it. Resolution is decided elsewhere.
#include "sycl_thinlto.h"

#include <stdlib.h>
#include <string.h>

static const char spirv64_datalayout[] =
    "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:"
    "64-G1";

static void drop_overridden(LLVMValueRef gv, const LinkModule *self, const Resolution *r) {
  if (LLVMIsDeclaration(gv)) return;
  LLVMLinkage l = LLVMGetLinkage(gv);
  if (l != LLVMExternalLinkage && l != LLVMWeakAnyLinkage && l != LLVMLinkOnceAnyLinkage &&
      l != LLVMCommonLinkage)
    return; // local, or an ODR copy as good as any other
  size_t len;
  const char *name = LLVMGetValueName2(gv, &len);
  const LinkModule *winner = strmap_get(&r->prevailing, name);
  // A definition that lost to a stronger one elsewhere must not be imported or kept.
  if (winner && winner != self) bridge_make_declaration(gv);
}

typedef struct {
  Resolution *r;
} PrepareJob;

// Runs on a worker thread: reads the shared resolution, writes only module I.
static void prepare_one(void *arg, size_t i) {
  Resolution *r = ((PrepareJob *)arg)->r;
  LinkModule *m = &r->modules[i];
  LLVMContextRef ctx = context_create();
  LLVMModuleRef mod;
  char *why;
  if (module_parse(ctx, m->input->data, m->input->size, m->id, false, &mod, &why)) {
    m->prepare_error = why;
    context_dispose(ctx);
    return;
  }
  if (strcmp(LLVMGetTarget(mod), SPIRV_TRIPLE)) {
    LLVMSetTarget(mod, SPIRV_TRIPLE);
    LLVMSetDataLayout(mod, spirv64_datalayout);
  }
  LLVMSetModuleIdentifier(mod, m->id, strlen(m->id));
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    drop_overridden(f, m, r);
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
    drop_overridden(g, m, r);
  if (bridge_write_bitcode_with_summary(mod, &m->prepared, &why)) m->prepare_error = why;
  LLVMDisposeModule(mod);
  context_dispose(ctx);
}

void prepare_modules(Resolution *r, int jobs) {
  PrepareJob job = {r};
  parallel_for(r->num_modules, jobs, prepare_one, &job);
  for (size_t i = 0; i < r->num_modules; i++)
    if (r->modules[i].prepare_error)
      error(r->modules[i].input->origin, "%s", r->modules[i].prepare_error);
  exit_on_errors();
}
