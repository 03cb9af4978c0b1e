// The thin link through libLTO's C API: combined index, import, promote, internalize,
// optimize each module with codegen disabled. It neither completes modules nor emits SPIR-V.
#include "lto/lto.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <llvm-c/lto.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

// libLTO's cache is never a folder others write to. Each link gives libLTO a folder of its own
// (made in the cache, so that links to the cache's files can be made there), into which it
// hard-links the cache's "thinlto" entries first (the folder the last link left with its links,
// when there is one and no other link has taken it: only the entries made or replaced since are
// linked, and the links to entries gone are removed); libLTO reads from there what it can reuse
// (a hit: its result is the entry's file itself, hard-linked as the module's output) and writes
// there what it computes (a miss: a new file). So a result whose inode is one of those links is a
// cache entry, used only if its trailer's hash matches its content (cache_take_payload: on every
// use, whatever its time); any other result libLTO computed in this process, and it is moved into
// the cache as an entry under libLTO's key once the definitions index has read it (cache_adopt):
// the entry's payload is the bitcode, then the module's list of definitions, the bitcode's
// content key and its size (ThinLTO entry below), so that a relink reads neither the list nor
// the module again, nor hashes the bitcode a second time, and a cold link writes one file.
typedef struct {
  const Cache *cache; // NULL: libLTO had no cache folder
  Buffer *optimized;
  char **files;         // per module: libLTO's output file, NULL for a dummy
  int *rc;              // per module: 0, or map_file's negative errno
  bool *damaged;        // per module: its result was a damaged cache entry
  char **pending;       // per module: the name in libLTO's folder of a result to adopt
  DefinitionLists lists; // per module: the definitions an entry gave, or the index read
  char (*content_key)[CACHE_KEY_SIZE]; // per module, once indexed: its bitcode's content key
  const StrMap *linked; // the names of the entries linked in, to their inodes
  const StrMap *named;  // the inodes of the names in libLTO's folder, to the names
  int folder;           // libLTO's folder, open
  bool keep;            // the folder is left for the next link, with its links
} ReadBack;

static const char entry_prefix[] = CACHE_LIBLTO_PREFIX; // libLTO's names: this and its key
// libLTO's folder as a link leaves it for the next, in the cache's folder; in use, it is one of
// the links' own (link-XXXXXX, locked: base/temporaries.c).
static const char kept_folder[] = CACHE_LIBLTO_FOLDER;

// A ThinLTO entry's payload after the bitcode: the definitions (record_put_strings), the
// bitcode's content key (a record of its 64 hex digits: cache_content_key), then the bitcode's
// size (u64).
static void definitions_tail(const StringList *defined, const char *content_key,
                             size_t bitcode_size, Buffer *out) {
  *out = (Buffer){0};
  record_put_strings(out, defined);
  record_put(out, content_key, CACHE_KEY_SIZE - 1);
  uint64_t n = bitcode_size;
  buffer_append(out, &n, sizeof n);
}

// B, an intact entry's payload, cut to its bitcode, its definitions into DEFINED and the
// bitcode's content key into CONTENT_KEY: 0, or -1.
static int take_definitions(Buffer *b, StringList *defined, char content_key[CACHE_KEY_SIZE]) {
  uint64_t n;
  if (b->size < sizeof n) return -1;
  memcpy(&n, b->data + b->size - sizeof n, sizeof n);
  if (!n || n > b->size - sizeof n) return -1;
  RecordReader r = {b->data + n, b->data + b->size - sizeof n, false};
  size_t key_size = 0;
  const uint8_t *key = record_get_strings(&r, defined) ? record_get(&r, &key_size) : NULL;
  if (!key || key_size != CACHE_KEY_SIZE - 1 || r.p != r.end) {
    strlist_free(defined);
    return -1;
  }
  memcpy(content_key, key, key_size);
  content_key[key_size] = 0;
  buffer_shrink(b, n);
  return 0;
}

// Runs on a worker thread: maps module I's result and removes its name, then checks it as a
// cache entry, or keeps its name to adopt it; writes only I.
static void read_back(void *arg, size_t i) {
  ReadBack *b = arg;
  if (!b->files[i]) return;
  const char *result = strrchr(b->files[i], '/') + 1; // libLTO names it in the folder
  struct stat st;
  b->rc[i] = map_file_at(b->folder, result, &st, &b->optimized[i]);
  bool known = st.st_mode != 0;
  own_remove_at(b->folder, result, known ? &st : NULL); // a mapping keeps the contents
  if (!b->cache || !known) return;
  char inode[32];
  snprintf(inode, sizeof inode, "%llu", (unsigned long long)st.st_ino);
  const char *name = strmap_get(b->named, inode);
  if (!name) return; // not an entry of libLTO's cache (it keeps none for this module)
  const char *key = name + strlen(entry_prefix), *linked = strmap_get(b->linked, name);
  if (!linked || strcmp(linked, inode)) {
    if (!b->rc[i]) b->pending[i] = xstrdup(name); // adopted after the definitions index
    return;
  }
  if (!b->keep) own_remove_at(b->folder, name, NULL); // the link made for libLTO, used
  if (b->rc[i] == 0 && cache_take_payload("thinlto", key, &b->optimized[i]) == 0 &&
      take_definitions(&b->optimized[i], &b->lists.defined[i], b->lists.content_key[i]) == 0) {
    ((bool *)b->lists.given)[i] = true;
    return;
  }
  if (b->rc[i] && b->rc[i] != -EINVAL) return; // unreadable: the link fails on it
  note("cache: ThinLTO cache entry %s/%c%c/thinlto-%s is damaged", b->cache->root,
       tolower((unsigned char)key[0]), tolower((unsigned char)key[1]), key);
  cache_remove_damaged(b->cache, "thinlto", key, &st);
  if (b->keep) own_remove_at(b->folder, name, &st);
  buffer_free(&b->optimized[i]);
  b->rc[i] = 0;
  b->damaged[i] = true;
}

// Runs on a worker thread: moves module I's result into the cache with its definitions (or
// else copies it there); writes only its own cache entry.
static void adopt_result(void *arg, size_t i) {
  ReadBack *b = arg;
  if (!b->pending[i]) return;
  // A kept folder holds only links to entries: a result that is none goes.
  if (b->lists.unreadable[i]) {
    if (b->keep) own_remove_at(b->folder, b->pending[i], NULL);
    return;
  }
  const char *key = b->pending[i] + strlen(entry_prefix);
  Buffer tail;
  definitions_tail(&b->lists.defined[i], b->content_key[i], b->optimized[i].size, &tail);
  if (cache_adopt(b->cache, "thinlto", key, b->folder, b->pending[i], &b->optimized[i], &tail,
                  b->keep)) {
    if (b->keep) own_remove_at(b->folder, b->pending[i], NULL);
    Buffer whole = {0};
    buffer_append(&whole, b->optimized[i].data, b->optimized[i].size);
    buffer_append(&whole, tail.data, tail.size);
    cache_store(b->cache, "thinlto", key, &whole);
    free(whole.data);
  }
  free(tail.data);
}

// The names of libLTO's entries in its folder DIR, by inode (decimal): its temporaries
// ("llvmcache-KEY.temp-stream-X") are not entries.
static void name_entries(const char *dir, StrMap *named) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, entry_prefix, strlen(entry_prefix)) || strchr(e->d_name, '.'))
      continue;
    char inode[32];
    snprintf(inode, sizeof inode, "%llu", (unsigned long long)e->d_ino);
    strmap_put(named, inode, xstrdup(e->d_name));
  }
  if (d) closedir(d);
}

static void free_map_values(StrMap *m) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i]) free(m->values[i]);
  strmap_free(m);
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

// The results libLTO optimized, indexed into SOURCES. The number of results that were
// damaged cache entries (ReadBack) or do not read as bitcode; REUSE: offer libLTO the cache's
// entries (else every module is optimized again and its entry rewritten).
static size_t thin_link_once(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized,
                             bool reuse, CompletionSources *sources) {
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
  // libLTO writes each backend's result to a file as soon as it is done: in memory they
  // would all wait for the last backend, at the link's peak (bench/RESULTS.md). We map the
  // files, and the hooks read each module's pages only while they use them. With a cache,
  // the folder is also libLTO's cache folder, the link's own (ReadBack says why), made in
  // the cache; without one (or without room there), in TMPDIR. Locked while this link
  // lives: the next link removes those of links killed by SIGKILL.
  char *dir = NULL;
  const Cache *cache = opts->cache;
  bool keep = false; // the folder is left for the next link
  if (cache) {
    // The last link's folder, or a new one; both left for the next link once the results are
    // read. Not when the entries are not to be offered (thin_link_verify's second link).
    dir = reuse ? claim_kept_dir(cache->root, "link", kept_folder) : NULL;
    if (!dir) dir = make_temp_dir(cache->root, "link");
    keep = reuse;
    int rc = check_results_room(dir, &room);
    if (rc) {
      warning(cache->dir, "cannot write ThinLTO's cache entries (%llu bytes) here: %s; the link "
                          "goes on without the cache",
              (unsigned long long)room.total, strerror(-rc));
      if (!keep || !keep_temp_dir(dir, cache->root, kept_folder)) remove_temp_dir(dir);
      keep = false;
      free(dir);
      dir = NULL;
      cache = NULL;
    }
  }
  if (!dir) {
    const char *tmp = getenv("TMPDIR");
    dir = make_temp_dir(tmp && *tmp ? tmp : "/tmp", TOOL_NAME "-thinlto");
    int rc = check_results_room(dir, &room);
    if (rc)
      fatal(dir, "cannot write ThinLTO's results (%llu bytes) here: %s",
            (unsigned long long)room.total, strerror(-rc));
  }
  // libLTO names its results N.ARCH.thinlto.o in it, and its cache entries llvmcache-KEY
  // (with their temporaries, and llvmcache.timestamp): those are this run's to remove.
  const char *patterns[] = {"%s/*.thinlto.o", "%s/llvmcache*"};
  for (int i = 0; i < (cache ? 2 : 1); i++) {
    char *names = format(patterns[i], dir);
    own_expect(names);
    free(names);
  }
  thinlto_set_generated_objects_dir(cg, dir);
  // The results are read and removed by their names in it.
  int folder = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (folder < 0) fatal(dir, "cannot open the directory: %s", strerror(errno));
  StrMap linked_in = {0};
  if (cache) {
    // libLTO keys each backend's result by the module's hash, its imports and exports, and
    // the resolution; an unchanged image with unchanged imports is not optimized again.
    // What it costs a cold link is libLTO's own: each result it computes is written as an
    // llvm::sys::fs::TempFile, put on LLVM's process-wide list of files to remove on a signal
    // and taken off again, two walks of a list that only grows (one under a global mutex),
    // quadratic in the modules; nothing in the C API avoids it (bench/RESULTS.md, "Where a
    // cold link's time goes on 16 cores").
    thinlto_codegen_set_cache_dir(cg, dir);
    thinlto_codegen_set_cache_pruning_interval(cg, -1); // cache_prune prunes the entries
    // Which libLTO obeys only in a folder that holds a pruning timestamp: in this link's new
    // folder LLVM's pruneCache writes one and prunes by its default policy (a week since the
    // last access, 75% of the free space), after the backends. It stat'ed every entry, and
    // removed the names of entries last read over a week ago (every one on a noatime file
    // system), whose results read_back then took as damaged: every link optimized again.
    char *stamp = format("%s/llvmcache.timestamp", dir);
    int fd = own_create(stamp, 0666);
    if (fd >= 0) close(fd);
    free(stamp);
    double exported = now_seconds();
    if (reuse) cache_export_entries(cache, "thinlto", folder, entry_prefix, &linked_in, opts->jobs);
    trace_span("entries linked for libLTO", NULL, exported, now_seconds(), 0);
  }

  double start = now_seconds();
  if (linked) thinlto_codegen_process(cg);
  // libLTO's share of the stage, for --time-trace: combined index, imports, cache, backends.
  trace_span("libLTO", NULL, start, now_seconds(), 0);

  unsigned n = linked ? thinlto_module_get_num_object_files(cg) : 0;
  if (n != linked) fatal(NULL, "ThinLTO produced %u modules for %zu inputs", n, linked);
  StrMap named = {0};
  if (cache) name_entries(dir, &named);
  size_t count = r->num_modules ? r->num_modules : 1;
  ReadBack back = {cache,
                   optimized,
                   xcalloc(count, sizeof(char *)),
                   xcalloc(count, sizeof(int)),
                   xcalloc(count, sizeof(bool)),
                   xcalloc(count, sizeof(char *)),
                   {xcalloc(count, sizeof(StringList)), xcalloc(count, sizeof(bool)),
                    xcalloc(count, sizeof(bool)), xcalloc(count, CACHE_KEY_SIZE)},
                   NULL,
                   &linked_in,
                   &named,
                   folder,
                   keep};
  for (size_t i = 0, k = 0; i < r->num_modules; i++) {
    if (r->modules[i].dummy) {
      optimized[i] = r->modules[i].prepared;
      r->modules[i].prepared = (Buffer){0};
    } else {
      back.files[i] = xstrdup(thinlto_module_get_object_file(cg, (unsigned)k++));
    }
  }
  thinlto_codegen_dispose(cg);
  double reading = now_seconds();
  parallel_for(r->num_modules, opts->jobs, read_back, &back);
  trace_span("results read back", NULL, reading, now_seconds(), 0);
  size_t bad = 0;
  for (size_t i = 0; i < r->num_modules; i++) {
    if (!back.files[i]) continue;
    bad += back.damaged[i];
    const char *origin = r->modules[i].input->origin;
    if (back.rc[i] == -EINVAL) fatal(origin, "ThinLTO produced no output for this module");
    if (back.rc[i])
      fatal(back.files[i], "cannot read ThinLTO's output for %s: %s", origin,
            strerror(-back.rc[i]));
    free(back.files[i]);
  }
  // Indexing reads every module the cache did not give the definitions of, so it is also
  // where a result that does not read as bitcode shows (it is not adopted).
  *sources = (CompletionSources){.bitcode = optimized, .num_modules = r->num_modules};
  double indexed = now_seconds();
  bad += index_definitions(sources, r, cache, opts->jobs, &back.lists);
  trace_span("definitions index", NULL, indexed, now_seconds(), 0);
  back.content_key = sources->content_key;
  if (cache) parallel_for(r->num_modules, opts->jobs, adopt_result, &back);
  for (size_t i = 0; i < r->num_modules; i++) {
    free(back.pending[i]);
    strlist_free(&back.lists.defined[i]);
  }
  free(back.files);
  free(back.rc);
  free(back.damaged);
  free(back.pending);
  free(back.lists.defined);
  free((bool *)back.lists.given);
  free(back.lists.unreadable);
  free(back.lists.content_key);
  free_map_values(&linked_in);
  free_map_values(&named);
  close(folder);
  double removing = now_seconds();
  if (!keep || !keep_temp_dir(dir, cache->root, kept_folder)) remove_temp_dir(dir);
  trace_span("libLTO folder removed", NULL, removing, now_seconds(), 0);
  free(dir);
  return bad;
}

size_t thin_link(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized,
                 CompletionSources *sources) {
  set_debug_options(opts);
  return thin_link_once(r, opts, optimized, true, sources);
}

void thin_link_verify(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized,
                      size_t bad, CompletionSources *sources) {
  // A cache entry that fails its hash was removed by thin_link; one that passes it but does
  // not read as bitcode was found by indexing. Either way the link is redone without reusing
  // entries, and the ones it computes replace them.
  if (bad && opts->cache) {
    warning(opts->cache->dir, "damaged ThinLTO cache entries; optimizing again without them");
    completion_sources_free(sources);
    for (size_t i = 0; i < r->num_modules; i++) {
      if (!r->modules[i].dummy)
        buffer_free(&optimized[i]);
      else
        r->modules[i].prepared = optimized[i]; // thin_link_once takes it back
      optimized[i] = (Buffer){0};
    }
    thin_link_once(r, opts, optimized, false, sources);
  }
  // libLTO read the prepared bitcode in place; it is no longer needed.
  for (size_t i = 0; i < r->num_modules; i++) {
    free(r->modules[i].prepared.data);
    r->modules[i].prepared = (Buffer){0};
  }
}
