// Makes every module ready for the thin link: the canonical SPIR-V triple, overridden
// definitions dropped, and a ThinLTO summary written with it. Resolution is decided elsewhere.
#include "lto/lto.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  const ProgramFacts *program;
  const Cache *cache;
  Buffer *files;  // the input set's buffers
  size_t *owner;  // per module: the buffer that is its bytes, whole and its own, + 1; or 0
} PrepareJob;

static const char declared_prefix[] = "declared:";

// The entry points of M that reach aspects in the whole program, as "name=a,b" (kernels, a
// set's functions, exports), and those whose callees declare aspects as "declared:name=a,b":
// what they are marked with, and so part of the cache key.
static void entry_aspects(const LinkModule *m, const ProgramFacts *program, StringList *out) {
  const StringList *lists[] = {&m->kernels, &m->virtual_functions, &m->exported};
  for (size_t l = 0; l < 3 && program && !m->dummy; l++)
    for (size_t i = 0; i < lists[l]->count; i++)
      for (int declared = 0; declared < 2; declared++) {
        StringList aspects = {0};
        if (declared)
          program_declared_aspects(program, lists[l]->items[i], &aspects);
        else
          program_aspects(program, lists[l]->items[i], &aspects);
        if (aspects.count) {
          char *joined = strlist_join(&aspects, ",");
          strlist_push(out, format("%s%s=%s", declared ? declared_prefix : "",
                                   lists[l]->items[i], joined));
          free(joined);
        }
        strlist_free(&aspects);
      }
}

// Marks each entry point with what it reaches in other units too (sycl_used_aspects), before
// ThinLTO inlines or imports anything: the properties and, under full LTO, the split read it.
// The aspects declared by what they call go with them as sycl_declared_aspects, which the
// image's requirements take in although ThinLTO may inline the function that declared them.
static void mark_entry_aspects(LLVMModuleRef mod, const StringList *entries) {
  for (size_t i = 0; i < entries->count; i++) {
    const char *entry = entries->items[i];
    bool declared = !strncmp(entry, declared_prefix, sizeof declared_prefix - 1);
    if (declared) entry += sizeof declared_prefix - 1;
    const char *eq = strchr(entry, '=');
    char *name = xstrndup(entry, (size_t)(eq - entry));
    LLVMValueRef f = LLVMGetNamedFunction(mod, name);
    StringList aspects = {0};
    strlist_split_commas(&aspects, eq + 1);
    if (f && !LLVMIsDeclaration(f))
      (declared ? add_declared_aspects : add_used_aspects)(f, &aspects);
    strlist_free(&aspects);
    free(name);
  }
}

// Whether some definition of M lost to one elsewhere: drop_overridden would change M.
static bool loses_definitions(const LinkModule *m) {
  return !m->dummy && m->lost.count > 0;
}

// The prepared bitcode depends on the input's bytes and on which of its definitions lost
// (drop_overridden decides from the same resolution).
static void prepare_key(const LinkModule *m, const StringList *aspects,
                        char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "prepare v5");
  for (size_t i = 0; i < aspects->count; i++) // facts of other units: an input of this module
    cache_hash_string(&h, aspects->items[i]);
  cache_hash_string(&h, m->content_key); // the bitcode's hash, taken by resolve_symbols
  for (size_t i = 0; i < m->lost.count; i++) // in symbol order (resolve_symbols)
    cache_hash_string(&h, m->lost.items[i]);
  cache_hash_final(&h, key);
}

// An image split before this link (the sycl-split key: by `split`, or at compile time by
// tool/offload_binary.c) is as the link's own split writes it when its bitcode has a ThinLTO
// summary and the canonical triple: both read from the bitcode (its header and block list,
// not its module), not from keys, which anyone can write.
static bool split_before(const InputImage *in) {
  bool marked = false, thin = false;
  for (size_t k = 0; k < in->num_keys && !marked; k++)
    marked = !strcmp(in->keys[k].key, SPLIT_KEY);
  if (!marked || bridge_bitcode_is_thinlto(in->data, in->size, &thin) || !thin) return false;
  char *triple = bridge_bitcode_triple(in->data, in->size);
  bool canonical = triple && !strcmp(triple, SPIRV_TRIPLE);
  free(triple);
  return canonical;
}

// Runs on a worker thread: reads the shared resolution, writes only module I.
static void prepare_one(void *arg, size_t i) {
  const PrepareJob *job = arg;
  Resolution *r = job->r;
  const Cache *cache = job->cache;
  LinkModule *m = &r->modules[i];
  StringList aspects = {0};
  entry_aspects(m, job->program, &aspects);
  // An image the link's split wrote (or one split before) is parsed and written again only
  // to change it: most have nothing to drop, mark or make noinline, and go to libLTO as the
  // split wrote them.
  if ((m->input->link_ready || split_before(m->input)) && !aspects.count &&
      !loses_definitions(m) &&
      (m->dummy || !m->virtual_functions.count)) {
    m->passed_on = true;
    if (job->owner[i]) { // the buffer holding its bytes, its alone: taken, not copied
      Buffer *b = &job->files[job->owner[i] - 1];
      memmove(b->data, m->input->data, m->input->size);
      m->prepared = (Buffer){b->data, m->input->size, false};
      *b = (Buffer){0};
    } else {
      m->prepared.size = m->input->size;
      m->prepared.data = xmalloc(m->input->size);
      memcpy(m->prepared.data, m->input->data, m->input->size);
    }
    strlist_free(&aspects);
    return;
  }
  char key[CACHE_KEY_SIZE];
  if (cache) {
    prepare_key(m, &aspects, key);
    if (cache_get(cache, "prepared", key, &m->prepared) == 0) {
      strlist_free(&aspects);
      return;
    }
  }
  LLVMContextRef ctx = context_create();
  LLVMModuleRef mod;
  char *why;
  reading_input_begin(m->input->origin, "bitcode");
  int unreadable = module_parse(ctx, m->input->data, m->input->size, m->id, false, &mod, &why);
  reading_input_end();
  if (unreadable) {
    m->prepare_error = why;
    context_dispose(ctx);
    strlist_free(&aspects);
    return;
  }
  mark_entry_aspects(mod, &aspects);
  strlist_free(&aspects);
  set_canonical_triple(mod);
  LLVMSetModuleIdentifier(mod, m->id, strlen(m->id));
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    if (!m->dummy) drop_overridden(f, m, r); // the real set prevails: a dummy keeps its own
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
    if (!m->dummy) drop_overridden(g, m, r);
  // A set's functions live in its image only; the runtime links it to the kernels (seed 002).
  // libLTO imports no noinline function (FunctionImport's NoInline rule), so no kernel image
  // gets a copy of one, not even a devirtualized direct callee.
  for (size_t k = 0; k < m->virtual_functions.count && !m->dummy; k++) {
    LLVMValueRef f = LLVMGetNamedFunction(mod, m->virtual_functions.items[k]);
    if (!f) continue;
    LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                   LLVMGetEnumAttributeKindForName("alwaysinline", 12));
    unsigned kind = LLVMGetEnumAttributeKindForName("noinline", 8);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(LLVMGetModuleContext(mod), kind, 0));
  }
  if (bridge_write_bitcode_with_summary(mod, &m->prepared, &why))
    m->prepare_error = why;
  else if (cache)
    cache_store(cache, "prepared", key, &m->prepared);
  LLVMDisposeModule(mod);
  context_dispose(ctx);
}

// The input buffer holding each module's bytes (+ 1; 0: none), where no other module's bytes
// are in it and it is malloc'd: a split's entry of one image (the image's bytes point into it,
// split/stage.c), or a bitcode buffer of its own. A module passed on takes that buffer, its
// bytes moved to the front (pages already there, not new ones as a copy's); the input set frees
// the rest of its buffers before the thin link (release_input_bytes), and nothing reads the
// inputs' bytes after this stage.
static size_t *buffer_owners(const Resolution *r, const InputSet *inputs) {
  size_t *owner = xcalloc(r->num_modules + 1, sizeof(size_t));
  if (!inputs) return owner;
  FileSpans held = file_spans(inputs, inputs->num_files, true);
  size_t *users = xcalloc(inputs->num_files + 1, sizeof(size_t));
  for (size_t i = 0; i < r->num_modules; i++) {
    const InputImage *in = r->modules[i].input;
    size_t f = file_holding(&held, in->data, in->size);
    if (f == SIZE_MAX) continue;
    owner[i] = f + 1;
    users[f]++;
  }
  for (size_t i = 0; i < r->num_modules; i++)
    if (owner[i] && users[owner[i] - 1] != 1) owner[i] = 0;
  free(users);
  free(held.spans);
  return owner;
}

void prepare_modules(Resolution *r, const ProgramFacts *program, const Cache *cache,
                     InputSet *inputs, int jobs) {
  PrepareJob job = {r, program, cache, inputs ? inputs->files : NULL, buffer_owners(r, inputs)};
  parallel_for(r->num_modules, jobs, prepare_one, &job);
  free(job.owner);
  size_t passed_on = 0;
  for (size_t i = 0; i < r->num_modules; i++) {
    passed_on += r->modules[i].passed_on;
    if (r->modules[i].prepare_error)
      error(r->modules[i].input->origin, "%s", r->modules[i].prepare_error);
  }
  note("prepare: %zu of %zu module(s) passed on as the split wrote them", passed_on,
       r->num_modules);
  exit_on_errors();
}
