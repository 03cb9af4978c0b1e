// The thin link through libLTO's C API: combined index, import, promote, internalize,
// optimize each module with codegen disabled. It neither completes modules nor emits SPIR-V.
#include "lto/lto.h"

#include <dirent.h>
#include <errno.h>
#include <llvm-c/lto.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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
  char **files;       // per module: libLTO's output file, NULL for a dummy
  int *rc;            // per module: 0, or map_file's negative errno
  struct stat *stats; // per module: its output file's, for cache entries (zero: unknown)
} ReadBack;

// Runs on a worker thread: maps module I's result and removes the file; writes only I.
static void read_back(void *arg, size_t i) {
  ReadBack *b = arg;
  if (!b->files[i]) return;
  if (stat(b->files[i], &b->stats[i]) < 0) b->stats[i] = (struct stat){0};
  b->rc[i] = map_file(b->files[i], &b->optimized[i]);
  own_remove(b->files[i]); // the mapping keeps the contents
}

// libLTO reads any "llvmcache-KEY" name of its directory as an entry: a FIFO there would
// block the link, a directory make it fail. Such foreign names are removed first.
static void remove_foreign_entries(const char *dir) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, "llvmcache-", 10) || e->d_type == DT_REG) continue;
    char *path = format("%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && unlink(path) < 0 && rmdir(path) < 0)
      fatal(path, "not a ThinLTO cache entry, and cannot be removed: %s", strerror(errno));
    free(path);
  }
  if (d) closedir(d);
}

// libLTO's cache entries carry no checksum: a damaged one that still reads as bitcode, or
// another module's copied over it, would be linked as it is. So each entry gets a "thinlto"
// entry of our cache, keyed by its name, holding the BLAKE3 of its bytes as libLTO wrote
// them; an entry used again must match it. libLTO hard-links the entry it used (hit or miss)
// as the module's output file; its inode names the entry, its time says who wrote it.
// STARTED is when the thin link began, less a margin for the file system's coarse clock: an
// entry written since is this link's (or one beside it, just now), and its checksum is
// (re)written. An older one must match its checksum; without one it is damaged too (the
// checksum may be the damaged part), unless it is younger than CONCURRENT_LINK: a link beside
// this one may have written it and not yet its checksum. A damaged entry, or an empty one
// (whose module then has no result: *RC is cleared), is removed. Returns how many were.
enum { CONCURRENT_LINK = 600 }; // seconds
static size_t check_cache_entries(const Cache *cache, const char *dir, const Buffer *optimized,
                                  const struct stat *stats, int *rc, size_t count, time_t started) {
  StrMap by_inode = {0};
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, "llvmcache-", 10) || strchr(e->d_name, '.')) continue;
    char inode[32];
    snprintf(inode, sizeof inode, "%llu", (unsigned long long)e->d_ino);
    strmap_put(&by_inode, inode, xstrdup(e->d_name));
  }
  if (d) closedir(d);
  size_t damaged = 0;
  for (size_t i = 0; i < count; i++) {
    if (stats[i].st_nlink < 2) continue; // not a cache entry's (or it was pruned since)
    char inode[32];
    snprintf(inode, sizeof inode, "%llu", (unsigned long long)stats[i].st_ino);
    const char *name = strmap_get(&by_inode, inode);
    if (!name) continue;
    char digest[CACHE_KEY_SIZE];
    cache_content_key(optimized[i].data, optimized[i].size, digest);
    Buffer recorded = {0};
    bool known = !cache_get(cache, "thinlto", name, &recorded);
    bool matches = known && recorded.size == CACHE_KEY_SIZE - 1 &&
                   !memcmp(recorded.data, digest, recorded.size);
    free(recorded.data);
    bool ours = stats[i].st_mtime >= started;
    bool unrecorded = !known && stats[i].st_mtime >= started - CONCURRENT_LINK;
    if (rc[i] == 0 && (ours || unrecorded) && !matches)
      cache_store(cache, "thinlto", name,
                  &(Buffer){.data = (uint8_t *)digest, .size = CACHE_KEY_SIZE - 1});
    if (rc[i] == 0 && (ours || unrecorded || matches)) continue;
    char *path = format("%s/%s", dir, name);
    note("cache: ThinLTO cache entry %s is damaged", path);
    unlink(path);
    free(path);
    if (rc[i] == -EINVAL) rc[i] = 0;
    damaged++;
  }
  for (size_t i = 0; i < by_inode.cap; i++)
    if (by_inode.keys[i]) free(by_inode.values[i]);
  strmap_free(&by_inode);
  return damaged;
}

typedef struct {
  uint64_t total, largest; // bytes of the modules libLTO reads: about what it writes
} RoomNeeded;

// Room in DIR for libLTO's results, one file per module: all of them on the file system,
// the largest under a file size limit (ulimit -f). 0, or a negative errno.
static int check_results_room(const char *dir, const RoomNeeded *room) {
  int rc = check_room(dir, room->total);
  return rc == -EFBIG ? check_room(dir, room->largest) : rc;
}

// The number of results taken from damaged cache entries (check_cache_entries).
static size_t thin_link_once(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized) {
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
  // libLTO ends the process ("LLVM ERROR: IO failure on output stream") when it cannot
  // write a result: the room for them (about the size of the modules it reads) is checked
  // first. A cache without it is left out of this link, as README promises.
  RoomNeeded room = {0};
  for (size_t i = 0; i < r->num_modules; i++) {
    room.total += r->modules[i].prepared.size;
    if (r->modules[i].prepared.size > room.largest) room.largest = r->modules[i].prepared.size;
  }
  char *cache_dir = NULL;
  if (opts->cache) {
    // libLTO keys each backend's result by the module's hash, its imports and exports, and
    // the resolution; an unchanged image with unchanged imports is not optimized again.
    char *dir = cache_dir = format("%s/thinlto", opts->cache->dir);
    // libLTO writes entries into the directory but aborts if it does not exist.
    struct stat st;
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
      fatal(dir, "cannot create the ThinLTO cache directory: %s", strerror(errno));
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
      fatal(dir, "the ThinLTO cache path is not a directory");
    int rc = check_results_room(dir, &room);
    if (rc) {
      warning(dir, "cannot write ThinLTO's cache entries (%llu bytes) here: %s; the link "
                   "goes on without the cache",
              (unsigned long long)room.total, strerror(-rc));
      free(cache_dir);
      cache_dir = NULL;
    } else {
      thinlto_codegen_set_cache_dir(cg, dir);
      // cache_prune prunes this directory with the link's policy. libLTO's own pruning would
      // also delete the temporaries that concurrent links are writing their entries to
      // ("llvmcache-*.temp-stream-*"), and those links would then fail.
      thinlto_codegen_set_cache_pruning_interval(cg, -1);
    }
  }

  // libLTO writes each backend's result to a file as soon as it is done: in memory they
  // would all wait for the last backend, at the link's peak (bench/RESULTS.md). We map the
  // files, and the hooks read each module's pages only while they use them. With a cache
  // they are made in its directory: hard links to the entries (check_cache_entries).
  // Locked while this link lives: the next link removes those of links killed by SIGKILL.
  const char *tmp = getenv("TMPDIR");
  char *dir = cache_dir ? make_temp_dir(cache_dir, "objects")
                        : make_temp_dir(tmp && *tmp ? tmp : "/tmp", TOOL_NAME "-thinlto");
  // libLTO names its results N.ARCH.thinlto.o in it: those are this run's to remove.
  char *results = format("%s/*.thinlto.o", dir);
  own_expect(results);
  free(results);
  int rc = check_results_room(dir, &room);
  if (rc)
    fatal(dir, "cannot write ThinLTO's results (%llu bytes) here: %s",
          (unsigned long long)room.total, strerror(-rc));
  thinlto_set_generated_objects_dir(cg, dir);

  if (cache_dir) remove_foreign_entries(cache_dir);
  time_t started = time(NULL) - 2;
  double start = now_seconds();
  if (linked) thinlto_codegen_process(cg);
  // libLTO's share of the stage, for --time-trace: combined index, imports, cache, backends.
  trace_span("libLTO", NULL, start, now_seconds(), 0);

  unsigned n = linked ? thinlto_module_get_num_object_files(cg) : 0;
  if (n != linked) fatal(NULL, "ThinLTO produced %u modules for %zu inputs", n, linked);
  ReadBack back = {optimized, xcalloc(r->num_modules, sizeof(char *)),
                   xcalloc(r->num_modules, sizeof(int)),
                   xcalloc(r->num_modules, sizeof(struct stat))};
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
  size_t damaged = cache_dir ? check_cache_entries(opts->cache, cache_dir, optimized, back.stats,
                                                   back.rc, r->num_modules, started)
                             : 0;
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
  free(back.stats);
  remove_temp_dir(dir);
  free(dir);
  free(cache_dir);
  return damaged;
}

// Every entry, not the temporaries concurrent links are writing ("llvmcache-X.temp-stream-Y").
static void clear_thinlto_cache(const Cache *cache) {
  char *dir = format("%s/thinlto", cache->dir);
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, "llvmcache-", 10) || strchr(e->d_name, '.')) continue;
    char *path = format("%s/%s", dir, e->d_name);
    unlink(path);
    free(path);
  }
  if (d) closedir(d);
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
  // libLTO hands back its cache entries unchecked. One that fails its checksum was removed;
  // one without a checksum yet that does not read as bitcode is found by indexing, and the
  // whole ThinLTO cache is emptied. Either way the link is redone and the entries rewritten.
  size_t mismatched = thin_link_once(r, opts, optimized);
  size_t unreadable = mismatched ? 0 : index_results(r, opts, optimized, sources);
  if ((mismatched || unreadable) && opts->cache) {
    warning(opts->cache->dir, "damaged ThinLTO cache entries; optimizing again without them");
    if (!mismatched) completion_sources_free(sources);
    for (size_t i = 0; i < r->num_modules; i++) {
      if (!r->modules[i].dummy)
        buffer_free(&optimized[i]);
      else
        r->modules[i].prepared = optimized[i]; // thin_link_once takes it back
      optimized[i] = (Buffer){0};
    }
    if (unreadable) clear_thinlto_cache(opts->cache);
    thin_link_once(r, opts, optimized);
    index_results(r, opts, optimized, sources);
  }
  // libLTO read the prepared bitcode in place; it is no longer needed.
  for (size_t i = 0; i < r->num_modules; i++) {
    free(r->modules[i].prepared.data);
    r->modules[i].prepared = (Buffer){0};
  }
}
