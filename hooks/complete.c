// Completion: after ThinLTO an image may still declare what another module defines (a
// transitive callee, an address-taken function, a weak definition, a global table). This
// links those definitions in, and everything they need. It does not internalize or emit.
#include "hooks/hooks.h"

#include <llvm-c/Comdat.h>
#include <llvm-c/Linker.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_linkable_definition(LLVMValueRef gv) {
  if (LLVMIsDeclaration(gv)) return false;
  switch (LLVMGetLinkage(gv)) {
  case LLVMExternalLinkage:
  case LLVMWeakAnyLinkage:
  case LLVMWeakODRLinkage:
  case LLVMLinkOnceAnyLinkage:
  case LLVMLinkOnceODRLinkage:
  case LLVMCommonLinkage:
    return true;
  default:
    return false;
  }
}

static bool is_strong(LLVMValueRef gv) {
  return LLVMGetLinkage(gv) == LLVMExternalLinkage;
}

typedef struct {
  const Buffer *bitcode;
  StringList *defined; // per module: its linkable definitions; strong ones marked with '!'
  char (*content_key)[CACHE_KEY_SIZE]; // NULL without a cache
  bool *unreadable;                    // per module: not bitcode LLVM can read
  const bool *given;                   // per module: defined[i] is known (NULL: none is)
  char (*given_key)[CACHE_KEY_SIZE];   // per module given: its bitcode's content key
  char (*list_key)[CACHE_KEY_SIZE];    // per module: a key of defined[i] (NULL: not wanted)
} IndexJob;

// A key of one module's list of definitions (each entry with its NUL: no two lists alike).
static void list_key_of(const StringList *defined, char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  uint64_t n = defined->count;
  cache_hash_update(&h, &n, sizeof n);
  for (size_t j = 0; j < defined->count; j++)
    cache_hash_update(&h, defined->items[j], strlen(defined->items[j]) + 1);
  cache_hash_final(&h, key);
}

// Runs on a worker thread: reads module I lazily, writes only defined[i].
static void list_definitions(void *arg, size_t i) {
  IndexJob *job = arg;
  if (!job->bitcode[i].size) return; // not a source (full LTO indexes only the libraries)
  if (job->given && job->given[i]) {
    if (job->content_key) memcpy(job->content_key[i], job->given_key[i], CACHE_KEY_SIZE);
    if (job->list_key) list_key_of(&job->defined[i], job->list_key[i]);
    return;
  }
  // With a cache, the image cache's keys name the module by this hash.
  if (job->content_key)
    cache_content_key(job->bitcode[i].data, job->bitcode[i].size, job->content_key[i]);
  LLVMContextRef ctx = context_create();
  LLVMModuleRef mod;
  char *why;
  if (module_parse(ctx, job->bitcode[i].data, job->bitcode[i].size, "optimized", true, &mod,
                   &why)) {
    free(why); // the hook reports it if the module is needed
    job->unreadable[i] = true;
    if (job->list_key) list_key_of(&job->defined[i], job->list_key[i]);
    context_dispose(ctx);
    buffer_drop_pages(&job->bitcode[i]);
    return;
  }
  for (LLVMValueRef gv = first_global_object(mod); gv; gv = next_global_object(gv)) {
    if (!is_linkable_definition(gv)) continue;
    size_t len;
    const char *name = LLVMGetValueName2(gv, &len);
    strlist_push(&job->defined[i], format("%c%.*s", is_strong(gv) ? '!' : ' ', (int)len, name));
  }
  LLVMDisposeModule(mod);
  context_dispose(ctx);
  buffer_drop_pages(&job->bitcode[i]);
  if (job->list_key) list_key_of(&job->defined[i], job->list_key[i]);
}

// Seed 002: a set's functions stay in its image (the runtime links it), and a dummy image
// provides nothing: completion never copies them into another image.
static bool may_provide(const LinkModule *m, const char *name) {
  return !m->dummy && !strlist_contains(&m->virtual_functions, name);
}

// A relink's providers (R's kept_key set): a function of the resolution and of every module's
// list of definitions, in order, so kept in the cache under a key of both; a relink whose
// edit left every module's definitions as they were (an edited body, and the modules that
// import from it: what they import is no linkable definition), or one that went back to an
// earlier program, reads them back instead of going over every module's definitions. The
// entry: per provided name, the name (with its NUL) and the provider's index (u32).
static void providers_key(const CompletionSources *s, const Resolution *r,
                          char (*list_key)[CACHE_KEY_SIZE], char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "relink providers 1");
  cache_hash_string(&h, r->kept_key);
  uint64_t n = s->num_modules;
  cache_hash_update(&h, &n, sizeof n);
  for (size_t i = 0; i < s->num_modules; i++)
    cache_hash_string(&h, s->bitcode[i].size ? list_key[i] : "-"); // "-": not a source
  cache_hash_final(&h, key);
}

static bool read_providers(CompletionSources *s, const Cache *cache, const char *key) {
  Buffer b;
  if (cache_get(cache, "relinkdefs", key, &b)) return false;
  RecordReader rd = {b.data, b.data + b.size, false};
  uint64_t count = 0;
  bool ok = b.size >= sizeof count;
  if (ok) memcpy(&count, b.data, sizeof count);
  ok = ok && count <= b.size / 16; // a name and an index take 16 bytes at least
  rd.p += ok ? sizeof count : 0;
  if (ok) strmap_reserve(&s->provider, count);
  while (ok && rd.p < rd.end) {
    size_t n, four;
    const uint8_t *name = record_get(&rd, &n);
    const uint8_t *index = name ? record_get(&rd, &four) : NULL;
    uint32_t k = 0;
    ok = index && four == sizeof k && n > 0 && !name[n - 1] && !memchr(name, 0, n - 1);
    if (ok) memcpy(&k, index, sizeof k);
    ok = ok && k < s->num_modules;
    if (ok) strmap_put(&s->provider, (const char *)name, (void *)(uintptr_t)(k + 1));
  }
  ok = ok && s->provider.count == count;
  free(b.data);
  if (!ok) strmap_free(&s->provider);
  return ok;
}

static void keep_providers(const CompletionSources *s, const Cache *cache, const char *key) {
  Buffer b = {0};
  uint64_t count = s->provider.count;
  buffer_append(&b, &count, sizeof count);
  for (size_t i = 0; i < s->provider.cap; i++) {
    if (!s->provider.keys || !s->provider.keys[i]) continue;
    uint32_t k = (uint32_t)((uintptr_t)s->provider.values[i] - 1);
    record_put(&b, s->provider.keys[i], strlen(s->provider.keys[i]) + 1);
    record_put(&b, &k, sizeof k);
  }
  cache_store(cache, "relinkdefs", key, &b);
  free(b.data);
}

size_t index_definitions(CompletionSources *s, const Resolution *r, const Cache *cache, int jobs,
                         const DefinitionLists *lists) {
  size_t n = s->num_modules ? s->num_modules : 1;
  if (cache) s->content_key = xcalloc(n, CACHE_KEY_SIZE);
  bool keeps = cache && r->kept_key[0];
  IndexJob job = {.bitcode = s->bitcode,
                  .defined = lists ? lists->defined : xcalloc(n, sizeof(StringList)),
                  .content_key = s->content_key,
                  .unreadable = lists ? lists->unreadable : xcalloc(n, sizeof(bool)),
                  .given = lists ? lists->given : NULL,
                  .given_key = lists ? lists->content_key : NULL,
                  .list_key = keeps ? xcalloc(n, CACHE_KEY_SIZE) : NULL};
  parallel_for(s->num_modules, jobs, list_definitions, &job);
  size_t unreadable = 0, given = 0, indexed = 0;
  for (size_t i = 0; i < s->num_modules; i++) {
    unreadable += job.unreadable[i];
    given += job.given && job.given[i];
    indexed += s->bitcode[i].size > 0;
  }
  if (cache && job.given)
    note("cache: %zu of %zu module(s)' definitions reused", given, indexed);
  if (!lists) free(job.unreadable);
  char kept[CACHE_KEY_SIZE];
  if (keeps) providers_key(s, r, job.list_key, kept);
  free(job.list_key);
  if (keeps && read_providers(s, cache, kept)) {
    note("relink: the definitions index of the last link reused");
    for (size_t i = 0; i < s->num_modules && !lists; i++)
      strlist_free(&job.defined[i]);
    if (!lists) free(job.defined);
    return unreadable;
  }
  // Provider: the module symbol resolution chose, else the first strong, else the first.
  StrMap strong = {0};
  for (size_t i = 0; i < s->num_modules; i++) {
    for (size_t j = 0; j < job.defined[i].count; j++) {
      const char *entry = job.defined[i].items[j];
      const char *name = entry + 1;
      void *mine = (void *)(i + 1);
      LinkModule *winner = strmap_get(&r->prevailing, name);
      void *have = strmap_get(&s->provider, name);
      if (!may_provide(&r->modules[i], name)) {
        // a set's function, or a dummy's: never linked elsewhere
      } else if (winner && winner->index == (int)i) {
        strmap_put(&s->provider, name, mine);
        strmap_put(&strong, name, (void *)2); // resolution's choice is final
      } else if (!have || (entry[0] == '!' && !strmap_get(&strong, name))) {
        strmap_put(&s->provider, name, mine);
        if (entry[0] == '!') strmap_put(&strong, name, (void *)1);
      }
    }
    if (!lists) strlist_free(&job.defined[i]);
  }
  if (!lists) free(job.defined);
  strmap_free(&strong);
  if (keeps) keep_providers(s, cache, kept);
  return unreadable;
}

void completion_sources_free(CompletionSources *s) {
  strmap_free(&s->provider);
  free(s->content_key);
  s->content_key = NULL;
}

// The definitions M still lacks, grouped by the module that provides them.
static size_t collect_wanted(LLVMModuleRef m, const CompletionSources *s, StrMap *tried,
                             StringList *wanted, StringList *looked_up) {
  size_t found = 0;
  for (LLVMValueRef gv = first_global_object(m); gv; gv = next_global_object(gv)) {
    if (!LLVMIsDeclaration(gv) || (LLVMIsAFunction(gv) && LLVMGetIntrinsicID(gv))) continue;
    size_t len;
    const char *name = LLVMGetValueName2(gv, &len);
    if (!len || strmap_get(tried, name)) continue;
    strmap_put(tried, name, (void *)1);
    if (looked_up) strlist_push(looked_up, xstrndup(name, len));
    uintptr_t provider = (uintptr_t)strmap_get(&s->provider, name);
    if (!provider) continue;
    strlist_push(&wanted[provider - 1], xstrndup(name, len));
    found++;
  }
  return found;
}

// In the source, definitions M already has become declarations, and every other one
// becomes linkonce_odr: the linker then copies only what M ends up referencing. So do a
// set's functions that nothing provides (see may_provide): a use must not copy them along.
static void make_lazy(LLVMModuleRef src, LLVMModuleRef dst, const CompletionSources *s) {
  for (LLVMValueRef gv = first_global_object(src); gv; gv = next_global_object(gv)) {
    if (!is_linkable_definition(gv)) continue;
    size_t len;
    const char *name = LLVMGetValueName2(gv, &len);
    LLVMValueRef mine =
        LLVMIsAFunction(gv) ? LLVMGetNamedFunction(dst, name) : LLVMGetNamedGlobal(dst, name);
    bool outlined =
        LLVMIsAFunction(gv) && !strmap_get(&s->provider, name) &&
        LLVMGetStringAttributeAtIndex(gv, LLVMAttributeFunctionIndex, "indirectly-callable", 19);
    if ((mine && !LLVMIsDeclaration(mine)) || outlined) {
      bridge_make_declaration(gv);
    } else {
      LLVMSetComdat(gv, NULL);
      LLVMSetLinkage(gv, LLVMLinkOnceODRLinkage);
    }
  }
}

int complete_module(LLVMModuleRef m, const CompletionSources *s, char **errmsg) {
  return complete_module_recording(m, s, NULL, errmsg);
}

int complete_module_recording(LLVMModuleRef m, const CompletionSources *s, StringList *looked_up,
                              char **errmsg) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  StrMap tried = {0};
  StringList *wanted = xcalloc(s->num_modules, sizeof(StringList));
  int status = 0;
  // Each round links from every module that provides something still missing; what
  // those definitions need in turn is found by the next round.
  while (status == 0 && collect_wanted(m, s, &tried, wanted, looked_up)) {
    for (size_t i = 0; i < s->num_modules && status == 0; i++) {
      if (!wanted[i].count) continue;
      LLVMModuleRef src;
      if (module_parse(ctx, s->bitcode[i].data, s->bitcode[i].size, "completion", true, &src,
                       errmsg)) {
        status = -1;
        break;
      }
      make_lazy(src, m, s);
      if (LLVMLinkModules2(m, src)) {
        const char *why = context_last_error(ctx);
        char *symbol = symbol_for_message(wanted[i].items[0]);
        *errmsg = format("cannot link definitions of %s: %s", symbol, why ? why : "the linker failed");
        free(symbol);
        status = -1;
      }
      buffer_drop_pages(&s->bitcode[i]); // the linker has copied what it needed
    }
    for (size_t i = 0; i < s->num_modules; i++) {
      for (size_t j = 0; j < wanted[i].count; j++)
        free(wanted[i].items[j]);
      wanted[i].count = 0;
    }
  }
  for (size_t i = 0; i < s->num_modules; i++)
    free(wanted[i].items);
  free(wanted);
  strmap_free(&tried);
  return status;
}
