// The thin link through libLTO's C API: combined index, import, promote, internalize,
// optimize each module with codegen disabled. It neither completes modules nor emits SPIR-V.
#include "sycl_thinlto.h"

#include <llvm-c/lto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libLTO's options are process-wide cl::opts; they can be set once.
static void set_debug_options(const ThinLinkOptions *opts) {
  static bool done;
  if (done) return;
  done = true;
  char *threads = format("-threads=%d", opts->jobs);
  char *limit = format("-import-instr-limit=%d", opts->import_instr_limit);
  // Imported functions stay as internal copies instead of being deleted again when not
  // inlined (ARCHITECTURE fact 4); what is still missing, completion links afterwards.
  const char *options[] = {threads, limit, "-avail-extern-to-local"};
  thinlto_debug_options(options, 3);
  free(threads);
  free(limit);
}

void thin_link(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized) {
  set_debug_options(opts);
  thinlto_code_gen_t cg = thinlto_create_codegen();
  if (!cg) fatal(NULL, "cannot create the ThinLTO code generator: %s", lto_get_error_message());
  for (size_t i = 0; i < r->num_modules; i++) {
    LinkModule *m = &r->modules[i];
    thinlto_codegen_add_module(cg, m->id, (const char *)m->prepared.data, (int)m->prepared.size);
  }
  for (size_t i = 0; i < r->must_preserve.count; i++)
    thinlto_codegen_add_must_preserve_symbol(cg, r->must_preserve.items[i],
                                             (int)strlen(r->must_preserve.items[i]));
  for (size_t i = 0; i < r->cross_referenced.count; i++)
    thinlto_codegen_add_cross_referenced_symbol(cg, r->cross_referenced.items[i],
                                                (int)strlen(r->cross_referenced.items[i]));
  // The pre-codegen hook does codegen: libLTO stops after optimization and hands us bitcode.
  thinlto_codegen_disable_codegen(cg, 1);
  if (opts->save_temps_dir) thinlto_codegen_set_savetemps_dir(cg, opts->save_temps_dir);

  thinlto_codegen_process(cg);

  unsigned n = thinlto_module_get_num_objects(cg);
  if (n != r->num_modules)
    fatal(NULL, "ThinLTO produced %u modules for %zu inputs", n, r->num_modules);
  for (unsigned i = 0; i < n; i++) {
    LTOObjectBuffer obj = thinlto_module_get_object(cg, i);
    if (!obj.Size) fatal(r->modules[i].input->origin, "ThinLTO produced no output for this module");
    optimized[i].size = obj.Size;
    optimized[i].data = xmalloc(obj.Size);
    memcpy(optimized[i].data, obj.Buffer, obj.Size);
  }
  thinlto_codegen_dispose(cg);
  // libLTO read the prepared bitcode in place; it is no longer needed.
  for (size_t i = 0; i < r->num_modules; i++) {
    free(r->modules[i].prepared.data);
    r->modules[i].prepared = (Buffer){0};
  }
}
