// The thin link through libLTO's C API: combined index, import, promote, internalize,
// optimize each module with codegen disabled. It neither completes modules nor emits SPIR-V.
#include "sycl_thinlto.h"

#include <errno.h>
#include <limits.h>
#include <llvm-c/lto.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned clamp_unsigned(uint64_t v) {
  return v > UINT_MAX ? UINT_MAX : (unsigned)v;
}

// libLTO's options are process-wide cl::opts; they can be set once.
static void set_debug_options(const ThinLinkOptions *opts) {
  static bool done;
  if (done) return;
  done = true;
  char *threads = format("-threads=%d", opts->jobs);
  char *limit = format("-import-instr-limit=%d", opts->import_instr_limit);
  // Imported functions stay as internal copies instead of being deleted again when not
  // inlined (ARCHITECTURE fact 4); what is still missing, completion links afterwards.
  // -O0: the backends import and internalize but do not re-run the O2 pipeline on modules
  // their compile jobs already optimized; finalize_module's light pipeline inlines what
  // was imported and completed (measured in bench/RESULTS.md).
  const char *options[] = {threads, limit, "-avail-extern-to-local", "-O0"};
  thinlto_debug_options(options, 4);
  free(threads);
  free(limit);
}

typedef struct {
  Buffer *optimized;
  char **files; // per module: libLTO's output file, NULL for a dummy
  int *rc;      // per module: 0, or map_file's negative errno
} ReadBack;

// Runs on a worker thread: maps module I's result and removes the file; writes only I.
static void read_back(void *arg, size_t i) {
  ReadBack *b = arg;
  if (!b->files[i]) return;
  b->rc[i] = map_file(b->files[i], &b->optimized[i]);
  unlink(b->files[i]); // the mapping keeps the contents
}

static void thin_link_once(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized) {
  thinlto_code_gen_t cg = thinlto_create_codegen();
  if (!cg) fatal(NULL, "cannot create the ThinLTO code generator: %s", lto_get_error_message());
  // A set's dummy image (seed 002) defines the set's functions again: in the combined index
  // the copy that does not prevail would become available_externally. It skips libLTO, and
  // its prepared bitcode is its result.
  size_t linked = 0;
  for (size_t i = 0; i < r->num_modules; i++) {
    LinkModule *m = &r->modules[i];
    if (m->dummy) continue;
    thinlto_codegen_add_module(cg, m->id, (const char *)m->prepared.data, (int)m->prepared.size);
    linked++;
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
  if (opts->cache) {
    // libLTO keys each backend's result by the module's hash, its imports and exports, and
    // the resolution; an unchanged image with unchanged imports is not optimized again.
    char *dir = format("%s/thinlto", opts->cache->dir);
    const CachePolicy *p = &opts->cache->policy;
    // libLTO writes entries into the directory but aborts if it does not exist.
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
      fatal(dir, "cannot create the ThinLTO cache directory: %s", strerror(errno));
    thinlto_codegen_set_cache_dir(cg, dir);
    thinlto_codegen_set_cache_pruning_interval(cg, (int)p->prune_interval);
    thinlto_codegen_set_cache_entry_expiration(cg, clamp_unsigned(p->prune_after));
    // The C API takes unsigned: a larger limit is clamped to the largest it can say, not
    // wrapped (cache_size_bytes=4g would have become 0, which libLTO reads as its default).
    if (p->max_bytes) thinlto_codegen_set_cache_size_bytes(cg, clamp_unsigned(p->max_bytes));
    if (p->max_files) thinlto_codegen_set_cache_size_files(cg, clamp_unsigned(p->max_files));
    free(dir);
  }

  // libLTO writes each backend's result to a file as soon as it is done: in memory they
  // would all wait for the last backend, at the link's peak (bench/RESULTS.md). We map the
  // files, and the hooks read each module's pages only while they use them.
  const char *tmp = getenv("TMPDIR");
  char *dir = format("%s/%s-thinlto-XXXXXX", tmp && *tmp ? tmp : "/tmp", TOOL_NAME);
  if (!mkdtemp(dir)) fatal(dir, "cannot create a directory: %s", strerror(errno));
  remove_on_failure(dir);
  thinlto_set_generated_objects_dir(cg, dir);

  double start = now_seconds();
  if (linked) thinlto_codegen_process(cg);
  // libLTO's share of the stage, for --time-trace: combined index, imports, cache, backends.
  trace_span("libLTO", NULL, start, now_seconds(), 0);

  unsigned n = linked ? thinlto_module_get_num_object_files(cg) : 0;
  if (n != linked) fatal(NULL, "ThinLTO produced %u modules for %zu inputs", n, linked);
  ReadBack back = {optimized, xcalloc(r->num_modules, sizeof(char *)),
                   xcalloc(r->num_modules, sizeof(int))};
  for (size_t i = 0, k = 0; i < r->num_modules; i++) {
    if (r->modules[i].dummy) {
      optimized[i] = r->modules[i].prepared;
      r->modules[i].prepared = (Buffer){0};
    } else {
      back.files[i] = xstrdup(thinlto_module_get_object_file(cg, (unsigned)k++));
    }
  }
  thinlto_codegen_dispose(cg);
  parallel_for(r->num_modules, opts->jobs, read_back, &back);
  for (size_t i = 0; i < r->num_modules; i++) {
    if (!back.files[i]) continue;
    const char *origin = r->modules[i].input->origin;
    if (back.rc[i] == -EINVAL) fatal(origin, "ThinLTO produced no output for this module");
    if (back.rc[i])
      fatal(back.files[i], "cannot read ThinLTO's output for %s: %s", origin,
            strerror(-back.rc[i]));
    free(back.files[i]);
  }
  free(back.files);
  free(back.rc);
  rmdir(dir);
  keep_on_success(dir);
  free(dir);
}

static void clear_thinlto_cache(const Cache *cache) {
  char *dir = format("%s/thinlto", cache->dir);
  remove_files_in(dir, "llvmcache-");
  free(dir);
}

// The number of modules that do not read as bitcode.
static size_t index_results(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized,
                            CompletionSources *sources) {
  *sources = (CompletionSources){.bitcode = optimized, .num_modules = r->num_modules};
  double start = now_seconds();
  size_t unreadable = index_definitions(sources, r, opts->cache, opts->jobs);
  trace_span("definitions index", NULL, start, now_seconds(), 0);
  return unreadable;
}

void thin_link(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized,
               CompletionSources *sources) {
  set_debug_options(opts);
  thin_link_once(r, opts, optimized);
  // libLTO hands back its cache entries unchecked; one that does not read as bitcode is
  // detected, ignored and rewritten: the link is redone with an emptied ThinLTO cache.
  if (index_results(r, opts, optimized, sources) && opts->cache) {
    warning(opts->cache->dir, "damaged ThinLTO cache entries; optimizing again without them");
    completion_sources_free(sources);
    for (size_t i = 0; i < r->num_modules; i++) {
      if (!r->modules[i].dummy)
        buffer_free(&optimized[i]);
      else
        r->modules[i].prepared = optimized[i]; // thin_link_once takes it back
      optimized[i] = (Buffer){0};
    }
    clear_thinlto_cache(opts->cache);
    thin_link_once(r, opts, optimized);
    index_results(r, opts, optimized, sources);
  }
  // libLTO read the prepared bitcode in place; it is no longer needed.
  for (size_t i = 0; i < r->num_modules; i++) {
    free(r->modules[i].prepared.data);
    r->modules[i].prepared = (Buffer){0};
  }
}
