// Symbol resolution: what every module defines and uses, which definition prevails,
// which images are emitted, and what libLTO must preserve. It does not change modules.
#include "lto/lto.h"

#include <stdlib.h>
#include <string.h>


static DefKind def_kind(LLVMValueRef gv) {
  if (LLVMIsDeclaration(gv)) return DEF_NONE;
  switch (LLVMGetLinkage(gv)) {
  case LLVMExternalLinkage:
    return DEF_STRONG;
  case LLVMLinkOnceODRLinkage:
  case LLVMWeakODRLinkage:
    return DEF_LINKONCE;
  case LLVMWeakAnyLinkage:
  case LLVMLinkOnceAnyLinkage:
  case LLVMCommonLinkage:
    return DEF_WEAK;
  default:
    return DEF_NONE;
  }
}

static bool is_local(LLVMValueRef gv) {
  LLVMLinkage l = LLVMGetLinkage(gv);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage || l == LLVMAppendingLinkage ||
         l == LLVMAvailableExternallyLinkage;
}

typedef struct {
  ModuleSymbol *items;
  size_t count, cap;
} SymbolArray;

static void add_symbol(LinkModule *m, size_t *cap, LLVMValueRef gv, bool is_function,
                       bool module_ids) {
  if (is_local(gv)) return;
  size_t len;
  const char *name = LLVMGetValueName2(gv, &len);
  if (!len || !strncmp(name, "llvm.", 5)) return;
  if (m->num_symbols == *cap) {
    *cap = *cap ? *cap * 2 : 64;
    m->symbols = xrealloc(m->symbols, *cap * sizeof(ModuleSymbol));
  }
  ModuleSymbol *s = &m->symbols[m->num_symbols++];
  *s = (ModuleSymbol){.name = xstrndup(name, len), .def = def_kind(gv), .is_function = is_function};
  if (is_function) {
    s->is_kernel = s->def != DEF_NONE && is_kernel(gv);
    s->is_external = is_sycl_external(gv, module_ids);
  } else {
    const char *value;
    size_t n;
    s->is_device_global =
        s->def != DEF_NONE && bridge_global_attribute(gv, "sycl-unique-id", &value, &n);
  }
  if (s->is_kernel) strlist_push(&m->kernels, xstrdup(s->name));
}

// What resolution reads of a module besides its symbols. Seed 002: a module without kernels
// defining "indirectly-callable" functions holds an outlined set (the split gives each set an
// image of its own), or that set's dummy. And the level it was compiled at, for optLevel.
typedef struct {
  char *set;            // the first such function's set, or NULL
  StringList functions; // every such function
  bool dummy_metadata;  // SPLIT_DUMMY_METADATA
  int32_t opt_level;    // module_opt_level, read here: ThinLTO and finalization change it
} SetFacts;

static void find_virtual_set(LLVMModuleRef mod, SetFacts *out) {
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    LLVMAttributeRef set =
        LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "indirectly-callable", 19);
    if (!set || LLVMIsDeclaration(f) || is_local(f)) continue;
    unsigned len;
    const char *value = LLVMGetStringAttributeValue(set, &len);
    if (!out->set) out->set = xstrndup(value, len);
    size_t name_len;
    const char *name = LLVMGetValueName2(f, &name_len);
    strlist_push(&out->functions, xstrndup(name, name_len));
  }
  out->dummy_metadata = is_dummy_image(NULL, mod);
  out->opt_level = module_opt_level(mod);
}

// M takes its level and the set it holds, if it has no kernels and is no library; the facts
// are consumed.
static void take_facts(LinkModule *m, SetFacts *facts) {
  m->opt_level = facts->opt_level;
  if (!m->input->is_library && !m->kernels.count && facts->set) {
    m->virtual_set = facts->set;
    m->virtual_functions = facts->functions;
    m->dummy = facts->dummy_metadata || is_dummy_image(m->input, NULL);
  } else {
    free(facts->set);
    strlist_free(&facts->functions);
  }
  *facts = (SetFacts){0};
}

// Reads M's symbols (and kernels) and FACTS from MOD.
static void read_symbols(LinkModule *m, LLVMModuleRef mod, SetFacts *facts) {
  size_t cap = 0;
  bool module_ids = module_has_module_ids(mod);
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    if (!LLVMGetIntrinsicID(f)) add_symbol(m, &cap, f, true, module_ids);
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
    add_symbol(m, &cap, g, false, false);
  find_virtual_set(mod, facts);
}

//
// What resolution reads of a module, kept with the split's cache entry (module_symbols_record):
// on a relink only the images of inputs that changed are read. A record: the bitcode's content
// key, one byte of flags per symbol, the symbols' names, the set, its functions, the dummy
// flag, the opt level (int32, host order: the cache is local).
//

enum { SYM_DEF = 3, SYM_FUNCTION = 4, SYM_KERNEL = 8, SYM_EXTERNAL = 16, SYM_DEVICE_GLOBAL = 32 };

static void put_symbols(Buffer *b, const char *key, const LinkModule *m, const SetFacts *facts) {
  uint8_t *flags = xcalloc(m->num_symbols ? m->num_symbols : 1, 1);
  StringList names = {.items = xcalloc(m->num_symbols ? m->num_symbols : 1, sizeof(char *)),
                      .count = m->num_symbols};
  for (size_t i = 0; i < m->num_symbols; i++) {
    const ModuleSymbol *sym = &m->symbols[i];
    flags[i] = (uint8_t)(sym->def | (sym->is_function ? SYM_FUNCTION : 0) |
                         (sym->is_kernel ? SYM_KERNEL : 0) | (sym->is_external ? SYM_EXTERNAL : 0) |
                         (sym->is_device_global ? SYM_DEVICE_GLOBAL : 0));
    names.items[i] = sym->name; // borrowed
  }
  record_put(b, key, strlen(key));
  record_put(b, flags, m->num_symbols);
  record_put_strings(b, &names);
  record_put(b, facts->set ? facts->set : "", facts->set ? strlen(facts->set) : 0);
  record_put_strings(b, &facts->functions);
  uint8_t dummy = facts->dummy_metadata;
  record_put(b, &dummy, 1);
  record_put(b, &facts->opt_level, sizeof facts->opt_level);
  free(names.items);
  free(flags);
}

// True if the record is whole and of the bitcode whose content key is KEY: M's symbols and
// kernels, and FACTS, are filled from it.
static bool take_symbols(const uint8_t *data, size_t size, const char *key, LinkModule *m,
                         SetFacts *facts) {
  RecordReader r = {data, data + size, false};
  size_t key_size, count, one;
  const uint8_t *recorded = record_get(&r, &key_size);
  if (!recorded || key_size != strlen(key) || memcmp(recorded, key, key_size)) return false;
  const uint8_t *flags = record_get(&r, &count);
  StringList names = {0};
  bool ok = flags && record_get_strings(&r, &names) && names.count == count;
  char *set = ok ? record_get_string(&r) : NULL;
  ok = ok && set && record_get_strings(&r, &facts->functions);
  const uint8_t *dummy = ok ? record_get(&r, &one) : NULL;
  size_t level_size = 0;
  const uint8_t *level = ok && dummy && one == 1 ? record_get(&r, &level_size) : NULL;
  ok = ok && level && level_size == sizeof facts->opt_level && !r.bad && r.p == r.end;
  for (size_t i = 0; ok && i < count; i++)
    ok = (flags[i] & SYM_DEF) <= DEF_LINKONCE && flags[i] < 2 * SYM_DEVICE_GLOBAL;
  if (ok) {
    m->symbols = xcalloc(count ? count : 1, sizeof(ModuleSymbol));
    m->num_symbols = count;
    for (size_t i = 0; i < count; i++) {
      ModuleSymbol *sym = &m->symbols[i];
      *sym = (ModuleSymbol){.name = names.items[i],
                            .def = (DefKind)(flags[i] & SYM_DEF),
                            .is_function = flags[i] & SYM_FUNCTION,
                            .is_kernel = flags[i] & SYM_KERNEL,
                            .is_external = flags[i] & SYM_EXTERNAL,
                            .is_device_global = flags[i] & SYM_DEVICE_GLOBAL};
      names.items[i] = NULL; // the symbol owns it
      if (sym->is_kernel) strlist_push(&m->kernels, xstrdup(sym->name));
    }
    facts->set = *set ? set : NULL;
    if (!*set) free(set);
    facts->dummy_metadata = *dummy;
    memcpy(&facts->opt_level, level, sizeof facts->opt_level);
  } else {
    free(set);
    strlist_free(&facts->functions);
  }
  strlist_free(&names);
  return ok;
}

int module_symbols_record(const uint8_t *bitcode, size_t size, Buffer *out) {
  LLVMContextRef ctx = context_create();
  LLVMModuleRef mod;
  char *why;
  if (module_parse(ctx, bitcode, size, "split image", true, &mod, &why)) {
    free(why); // resolution reads the image itself, and reports it
    context_dispose(ctx);
    return -1;
  }
  LinkModule m = {0};
  SetFacts facts = {0};
  read_symbols(&m, mod, &facts);
  char key[CACHE_KEY_SIZE];
  cache_content_key(bitcode, size, key);
  *out = (Buffer){0};
  put_symbols(out, key, &m, &facts);
  for (size_t i = 0; i < m.num_symbols; i++)
    free(m.symbols[i].name);
  free(m.symbols);
  strlist_free(&m.kernels);
  free(facts.set);
  strlist_free(&facts.functions);
  LLVMDisposeModule(mod);
  context_dispose(ctx);
  return 0;
}

typedef struct {
  LinkModule *modules;
  const Cache *cache;
  bool *reused;                     // per module: read from its split's record
  char (*interface)[CACHE_KEY_SIZE]; // per module: what it resolves by (interface_key), or NULL
} SymbolJob;

void module_content_key(const InputImage *in, char key[CACHE_KEY_SIZE]) {
  if (in->symbols) {
    RecordReader r = {in->symbols, in->symbols + in->symbols_size, false};
    size_t size;
    const uint8_t *recorded = record_get(&r, &size);
    if (recorded && size == CACHE_KEY_SIZE - 1 && !memchr(recorded, 0, size)) {
      memcpy(key, recorded, size);
      key[size] = 0;
      return;
    }
  }
  cache_content_key(in->data, in->size, key);
}

// The hash of a symbols record's bytes after its content key: what resolution reads of the
// module.
static void interface_key(const uint8_t *data, size_t size, char key[CACHE_KEY_SIZE]) {
  RecordReader r = {data, data + size, false};
  size_t n;
  if (!record_get(&r, &n)) r.p = data;
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "symbols interface 1");
  cache_hash_update(&h, r.p, (size_t)(r.end - r.p));
  cache_hash_final(&h, key);
}

bool module_symbols_key(const InputImage *in, char key[CACHE_KEY_SIZE]) {
  if (!in->symbols) return false;
  interface_key(in->symbols, in->symbols_size, key);
  return true;
}

// Runs on a worker thread: touches only module I.
static void read_module_symbols(void *arg, size_t i) {
  SymbolJob *job = arg;
  LinkModule *m = &job->modules[i];
  SetFacts facts = {0};
  if (job->cache) {
    // The bitcode's hash, which the prepare stage's cache key uses too: the split's record
    // holds it (its cache entry is checked whole when read), else it is hashed.
    module_content_key(m->input, m->content_key);
    if (m->input->symbols &&
        take_symbols(m->input->symbols, m->input->symbols_size, m->content_key, m, &facts)) {
      job->reused[i] = true;
      if (job->interface) interface_key(m->input->symbols, m->input->symbols_size,
                                        job->interface[i]);
      take_facts(m, &facts);
      return;
    }
  }
  LLVMContextRef ctx = context_create();
  LLVMModuleRef mod;
  char *why;
  // Lazily: the symbol table needs no function bodies. LLVM reads the rest of the module
  // while it is walked, so a crash of its reader names the input until the module is gone.
  reading_input_begin(m->input->origin, "bitcode");
  if (module_parse(ctx, m->input->data, m->input->size, m->input->origin, true, &mod, &why)) {
    reading_input_end();
    m->prepare_error = why;
    context_dispose(ctx);
    return;
  }
  read_symbols(m, mod, &facts);
  if (job->interface) {
    Buffer b = {0};
    put_symbols(&b, "", m, &facts);
    interface_key(b.data, b.size, job->interface[i]);
    free(b.data);
  }
  take_facts(m, &facts);
  LLVMDisposeModule(mod);
  reading_input_end();
  context_dispose(ctx);
}

// Input definitions beat library ones; then strong beats weak beats ODR copies; then order.
static int strength(const LinkModule *m, DefKind def) {
  int rank = def == DEF_STRONG ? 3 : def == DEF_WEAK ? 2 : 1;
  return m->input->is_library ? rank : rank + 3;
}

static void resolve_one(Resolution *r, StrMap *defkind, LinkModule *m, const ModuleSymbol *s) {
  LinkModule *prev = strmap_get(&r->prevailing, s->name);
  if (!prev) {
    strmap_put(&r->prevailing, s->name, m);
    strmap_put(defkind, s->name, (void *)(intptr_t)s->def);
    return;
  }
  DefKind prev_def = (DefKind)(intptr_t)strmap_get(defkind, s->name);
  if (s->def == DEF_STRONG && prev_def == DEF_STRONG &&
      prev->input->is_library == m->input->is_library) {
    char *symbol = symbol_for_message(s->name);
    error(m->input->origin, "duplicate symbol: %s\n>>> defined in %s\n>>> defined in %s", symbol,
          prev->input->origin, m->input->origin);
    free(symbol);
    return;
  }
  if (strength(m, s->def) > strength(prev, prev_def)) {
    strmap_put(&r->prevailing, s->name, m);
    strmap_put(defkind, s->name, (void *)(intptr_t)s->def);
  }
}

void resolution_free(Resolution *r) {
  for (size_t i = 0; i < r->num_modules; i++) {
    LinkModule *m = &r->modules[i];
    for (size_t j = 0; j < m->num_symbols; j++)
      free(m->symbols[j].name);
    free(m->symbols);
    free(m->id);
    strlist_free(&m->kernels);
    strlist_free(&m->exported);
    strlist_free(&m->device_globals);
    strlist_free(&m->lost);
    buffer_free(&m->prepared);
    free(m->prepare_error);
    free(m->virtual_set);
    strlist_free(&m->virtual_functions);
  }
  free(r->modules);
  strmap_free(&r->prevailing);
  strlist_free(&r->must_preserve);
  strlist_free(&r->cross_referenced);
  *r = (Resolution){0};
}

void resolve_symbols(Resolution *r, InputSet *inputs, bool allow_dependencies, bool aot,
                     const Cache *cache, int jobs, char (*interface)[CACHE_KEY_SIZE]) {
  r->modules = xcalloc(inputs->count, sizeof(LinkModule));
  for (size_t i = 0; i < inputs->count; i++) {
    InputImage *in = &inputs->items[i];
    if (in->image_kind != IMG_BITCODE) {
      error(in->origin, "cannot link a %s image; only LLVM bitcode is linked",
            image_kind_name(in->image_kind));
      continue;
    }
    LinkModule *m = &r->modules[r->num_modules];
    m->index = (int)r->num_modules++;
    m->input = in;
    m->id = format("%d:%s", m->index, in->origin);
  }
  exit_on_errors();

  SymbolJob job = {r->modules, cache, xcalloc(r->num_modules ? r->num_modules : 1, sizeof(bool)),
                   interface};
  parallel_for(r->num_modules, jobs, read_module_symbols, &job);
  size_t reused = 0;
  for (size_t i = 0; i < r->num_modules; i++)
    reused += job.reused[i];
  free(job.reused);
  if (cache)
    note("cache: %zu of %zu module(s)' symbols kept with their split", reused, r->num_modules);
  for (size_t i = 0; i < r->num_modules; i++)
    if (r->modules[i].prepare_error) {
      error(r->modules[i].input->origin, "%s", r->modules[i].prepare_error);
      free(r->modules[i].prepare_error);
      r->modules[i].prepare_error = NULL;
    }
  exit_on_errors();
  // Under AOT the kernel images get the sets' functions by completion, like any callee; a
  // dummy (from a compile-time split) stays out of the link.
  for (size_t i = 0; i < r->num_modules && aot; i++) {
    LinkModule *m = &r->modules[i];
    free(m->virtual_set);
    m->virtual_set = NULL;
    strlist_free(&m->virtual_functions);
  }

  // Definitions, in module order so that ties go to the first input, as linkers do.
  StrMap defkind = {0}, users = {0};
  // A dummy image defines its set's functions again, with empty bodies: it stands in for the
  // set at run time only, so it neither wins nor conflicts here.
  for (size_t i = 0; i < r->num_modules; i++) {
    LinkModule *m = &r->modules[i];
    for (size_t j = 0; j < m->num_symbols && !m->dummy; j++) {
      ModuleSymbol *s = &m->symbols[j];
      if (s->def != DEF_NONE) resolve_one(r, &defkind, m, s);
      // A name seen in two modules is cross-referenced: libLTO must not drop it.
      LinkModule *seen = strmap_get(&users, s->name);
      if (!seen) {
        strmap_put(&users, s->name, m);
      } else if (seen != m && seen != (void *)r) {
        strmap_put(&users, s->name, r); // r marks "already listed"
        strlist_push(&r->cross_referenced, xstrdup(s->name));
      }
    }
  }
  exit_on_errors();
  // What of each module lost to a definition elsewhere (prepare drops it), in symbol order.
  for (size_t i = 0; i < r->num_modules; i++) {
    LinkModule *m = &r->modules[i];
    for (size_t j = 0; j < m->num_symbols; j++) {
      const ModuleSymbol *s = &m->symbols[j];
      if (s->def != DEF_STRONG && s->def != DEF_WEAK) continue;
      const LinkModule *winner = strmap_get(&r->prevailing, s->name);
      if (winner && winner != m) strlist_push(&m->lost, xstrdup(s->name));
    }
  }

  // What is emitted, and what libLTO must keep: kernels, and exports under dependencies.
  for (size_t i = 0; i < r->num_modules; i++) {
    LinkModule *m = &r->modules[i];
    if (m->input->is_library) continue;
    // An ODR kernel instantiated in several units is emitted once, where it prevails.
    StringList kernels = {0};
    for (size_t j = 0; j < m->kernels.count; j++) {
      if (strmap_get(&r->prevailing, m->kernels.items[j]) == m)
        strlist_push(&kernels, m->kernels.items[j]);
      else
        free(m->kernels.items[j]);
    }
    free(m->kernels.items);
    m->kernels = kernels;
    for (size_t j = 0; j < m->num_symbols; j++) {
      ModuleSymbol *s = &m->symbols[j];
      if (s->is_external && strmap_get(&r->prevailing, s->name) == m)
        strlist_push(&m->exported, xstrdup(s->name));
    }
    // A set image (and its dummy) is what the runtime links to kernels using the set.
    m->emit =
        m->kernels.count > 0 || m->virtual_set || (allow_dependencies && m->exported.count > 0);
    if (!m->emit) {
      note("%s: no kernel; used only as a source of definitions", m->input->origin);
      // Its device globals stay all the same (see below): other units' kernels use them, and
      // full LTO would fold an internalized one that no kernel stores to.
      for (size_t j = 0; j < m->num_symbols; j++)
        if (m->symbols[j].is_device_global && strmap_get(&r->prevailing, m->symbols[j].name) == m)
          strlist_push(&r->must_preserve, xstrdup(m->symbols[j].name));
      continue;
    }
    for (size_t j = 0; j < m->kernels.count; j++)
      strlist_push(&r->must_preserve, xstrdup(m->kernels.items[j]));
    // Device globals: nothing in the device code may show the host's use of them, so neither
    // ThinLTO nor finalization may internalize or drop them.
    for (size_t j = 0; j < m->num_symbols; j++)
      if (m->symbols[j].is_device_global && strmap_get(&r->prevailing, m->symbols[j].name) == m) {
        strlist_push(&m->device_globals, xstrdup(m->symbols[j].name));
        strlist_push(&r->must_preserve, xstrdup(m->symbols[j].name));
      }
    for (size_t j = 0; j < m->virtual_functions.count && !m->dummy; j++)
      strlist_push(&r->must_preserve, xstrdup(m->virtual_functions.items[j]));
    if (allow_dependencies)
      for (size_t j = 0; j < m->exported.count; j++)
        strlist_push(&r->must_preserve, xstrdup(m->exported.items[j]));
  }
  strmap_free(&defkind);
  strmap_free(&users);
}

//
// The resolution kept for a relink (tool/relink_program.c): what every module resolves to, for
// a link whose modules resolve by the same records in the same order (their interface keys),
// so that it is read back rather than worked out. Symbols are not kept: prepare needs only
// what each module lost (LinkModule.lost). Names end with their NUL, for the tables.
//

enum { KEPT_EMIT = 1, KEPT_DUMMY = 2, KEPT_SET = 4 };

static void put_name(Buffer *b, const char *s) {
  record_put(b, s, strlen(s) + 1);
}

static void put_names(Buffer *b, const StringList *l) {
  uint64_t n = l->count;
  buffer_append(b, &n, sizeof n);
  for (size_t i = 0; i < l->count; i++)
    put_name(b, l->items[i]);
}

// A name written by put_name, in place (NUL-terminated), or NULL (R marked bad).
static const char *get_name(RecordReader *r) {
  size_t n;
  const uint8_t *p = record_get(r, &n);
  if (!p || !n || p[n - 1] || memchr(p, 0, n - 1)) {
    r->bad = true;
    return NULL;
  }
  return (const char *)p;
}

static bool get_count(RecordReader *r, uint64_t *n) {
  size_t size;
  const uint8_t *p = record_get(r, &size);
  if (!p || size != sizeof *n) return !(r->bad = true);
  memcpy(n, p, sizeof *n);
  // Each item takes 8 bytes at least: a count the rest cannot hold is damage.
  if (*n > (uint64_t)(r->end - r->p) / 8) return !(r->bad = true);
  return true;
}

static bool get_names(RecordReader *r, StringList *l) {
  uint64_t n;
  if (r->bad || (size_t)(r->end - r->p) < sizeof n) return !(r->bad = true);
  memcpy(&n, r->p, sizeof n);
  r->p += sizeof n;
  if (n > (uint64_t)(r->end - r->p) / 8) return !(r->bad = true);
  for (uint64_t i = 0; i < n && !r->bad; i++) {
    const char *s = get_name(r);
    if (s) strlist_push(l, xstrdup(s));
  }
  return !r->bad;
}

void resolution_save(const Resolution *r, Buffer *out) {
  *out = (Buffer){0};
  uint64_t n = r->num_modules;
  record_put(out, &n, sizeof n);
  for (size_t i = 0; i < r->num_modules; i++) {
    const LinkModule *m = &r->modules[i];
    uint8_t flags = (uint8_t)((m->emit ? KEPT_EMIT : 0) | (m->dummy ? KEPT_DUMMY : 0) |
                              (m->virtual_set ? KEPT_SET : 0));
    int32_t level = m->opt_level;
    record_put(out, &flags, 1);
    record_put(out, &level, sizeof level);
    put_name(out, m->virtual_set ? m->virtual_set : "");
    put_names(out, &m->kernels);
    put_names(out, &m->exported);
    put_names(out, &m->device_globals);
    put_names(out, &m->virtual_functions);
    put_names(out, &m->lost);
  }
  put_names(out, &r->must_preserve);
  put_names(out, &r->cross_referenced);
  uint64_t count = r->prevailing.count;
  record_put(out, &count, sizeof count);
  for (size_t i = 0; i < r->prevailing.cap; i++) {
    if (!r->prevailing.keys || !r->prevailing.keys[i]) continue;
    uint32_t index = (uint32_t)((const LinkModule *)r->prevailing.values[i])->index;
    put_name(out, r->prevailing.keys[i]);
    record_put(out, &index, sizeof index);
  }
}

bool resolution_restore(Resolution *r, InputSet *inputs, const uint8_t *data, size_t size,
                        char (*content_keys)[CACHE_KEY_SIZE]) {
  RecordReader rd = {data, data + size, false};
  uint64_t n;
  *r = (Resolution){0};
  if (!get_count(&rd, &n) || n != inputs->count) return false;
  for (size_t i = 0; i < inputs->count; i++)
    if (inputs->items[i].image_kind != IMG_BITCODE) return false;
  r->modules = xcalloc(n ? n : 1, sizeof(LinkModule));
  for (size_t i = 0; i < n && !rd.bad; i++) {
    LinkModule *m = &r->modules[r->num_modules++];
    m->index = (int)i;
    m->input = &inputs->items[i];
    m->id = format("%d:%s", m->index, m->input->origin);
    memcpy(m->content_key, content_keys[i], CACHE_KEY_SIZE);
    size_t one;
    const uint8_t *flags = record_get(&rd, &one);
    if (!flags || one != 1) break;
    const uint8_t *level = record_get(&rd, &one);
    if (!level || one != sizeof(int32_t)) break;
    int32_t opt_level;
    memcpy(&opt_level, level, sizeof opt_level);
    m->opt_level = opt_level;
    m->emit = flags[0] & KEPT_EMIT;
    m->dummy = flags[0] & KEPT_DUMMY;
    const char *set = get_name(&rd);
    if (set && (flags[0] & KEPT_SET)) m->virtual_set = xstrdup(set);
    if (!get_names(&rd, &m->kernels) || !get_names(&rd, &m->exported) ||
        !get_names(&rd, &m->device_globals) || !get_names(&rd, &m->virtual_functions) ||
        !get_names(&rd, &m->lost))
      break;
  }
  bool ok = !rd.bad && r->num_modules == n && get_names(&rd, &r->must_preserve) &&
            get_names(&rd, &r->cross_referenced);
  uint64_t count = 0;
  ok = ok && get_count(&rd, &count);
  if (ok) strmap_reserve(&r->prevailing, (size_t)count);
  for (uint64_t i = 0; ok && i < count; i++) {
    const char *name = get_name(&rd);
    size_t one;
    const uint8_t *index = name ? record_get(&rd, &one) : NULL;
    uint32_t k;
    ok = index && one == sizeof k;
    if (ok) memcpy(&k, index, sizeof k);
    ok = ok && k < n;
    if (ok) strmap_put(&r->prevailing, name, &r->modules[k]);
  }
  ok = ok && !rd.bad && rd.p == rd.end;
  if (!ok) {
    resolution_free(r);
    return false;
  }
  for (size_t i = 0; i < r->num_modules; i++)
    if (!r->modules[i].input->is_library && !r->modules[i].emit)
      note("%s: no kernel; used only as a source of definitions", r->modules[i].input->origin);
  return true;
}
