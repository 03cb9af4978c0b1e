// A relink's whole-program results (issue 32): the facts stage's (what each entry point
// reaches) and the resolution (who defines what, what is emitted and kept), kept in the cache
// under keys of what they are computed from, so that a relink whose edit leaves every module's
// facts and symbols as they were reads them back instead of working them out over the whole
// program. What is per module is a lookup: a module's content key is in its split's record,
// and the keys of its facts and symbols are in the last link's list under that content key.
// Only the edited modules' records are hashed. An edit that changes a module's facts (the
// aspects it uses, what it calls) or symbols (a definition added, removed, made weak, ...)
// changes the key of the results, which are then computed whole, as in any link, and kept.
#include "tool/tool.h"

#include <stdlib.h>
#include <string.h>

enum { LIST_VERSION = 1 };

static bool all_known(char (*keys)[CACHE_KEY_SIZE], size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!keys[i][0]) return false;
  return true;
}

// A key (64 hex digits) from R into KEY, or false.
static bool get_key(RecordReader *r, char key[CACHE_KEY_SIZE]) {
  size_t size;
  const uint8_t *p = record_get(r, &size);
  if (!p || size != CACHE_KEY_SIZE - 1 || memchr(p, 0, size)) return false;
  memcpy(key, p, size);
  key[size] = 0;
  return true;
}

// The list: a version and a count, then per module its content, facts and interface keys.
static void read_list(ProgramRecord *pr, const Buffer *b) {
  RecordReader r = {b->data, b->data + b->size, false};
  size_t size;
  const uint8_t *p = record_get(&r, &size);
  uint64_t head[2];
  if (!p || size != sizeof head) return;
  memcpy(head, p, sizeof head);
  if (head[0] != LIST_VERSION || head[1] > b->size / (3 * CACHE_KEY_SIZE)) return;
  size_t n = (size_t)head[1];
  char(*keys)[CACHE_KEY_SIZE] = xcalloc(3 * n + 1, CACHE_KEY_SIZE);
  bool ok = true;
  for (size_t i = 0; ok && i < 3 * n; i++)
    ok = get_key(&r, keys[i]);
  ok = ok && !r.bad && r.p == r.end;
  StrMap listed = {0};
  for (size_t i = 0; ok && i < n; i++)
    strmap_put(&listed, keys[3 * i], (void *)(uintptr_t)(i + 1));
  for (size_t i = 0; ok && i < pr->count; i++) {
    uintptr_t k = (uintptr_t)strmap_get(&listed, pr->content[i]);
    if (!k) continue;
    memcpy(pr->facts[i], keys[3 * (k - 1) + 1], CACHE_KEY_SIZE);
    memcpy(pr->interface[i], keys[3 * (k - 1) + 2], CACHE_KEY_SIZE);
    pr->listed++;
  }
  strmap_free(&listed);
  free(keys);
}

void program_record_begin(ProgramRecord *pr, const Cache *cache, const char *link_key,
                          const InputSet *inputs, bool lists) {
  size_t n = inputs->count;
  *pr = (ProgramRecord){.active = true, .lists = lists, .cache = cache, .count = n};
  memcpy(pr->link_key, link_key, CACHE_KEY_SIZE);
  pr->content = xcalloc(n + 1, CACHE_KEY_SIZE);
  pr->facts = xcalloc(n + 1, CACHE_KEY_SIZE);
  pr->interface = xcalloc(n + 1, CACHE_KEY_SIZE);
  for (size_t i = 0; i < n; i++)
    module_content_key(&inputs->items[i], pr->content[i]);
  Buffer b;
  if (!cache_get(cache, "relinkmods", link_key, &b)) {
    read_list(pr, &b);
    free(b.data);
  }
  // The modules not in the list (the edited ones): their split's records, hashed.
  for (size_t i = 0; i < n; i++) {
    const InputImage *in = &inputs->items[i];
    if (!pr->facts[i][0]) {
      if (in->facts) module_facts_key(in->facts, in->facts_size, pr->facts[i]);
      if (!module_symbols_key(in, pr->interface[i])) pr->interface[i][0] = 0;
    }
  }
}

// The options the facts' results depend on besides the modules' facts, and per module what
// of the image itself they read.
static bool facts_key(const ProgramRecord *pr, const InputSet *inputs, const SplitOptions *split,
                      bool allow_dependencies, char key[CACHE_KEY_SIZE]) {
  if (!all_known(pr->facts, pr->count)) return false;
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "relink facts 1");
  uint8_t options[3] = {(uint8_t)split->mode, split->aot, allow_dependencies};
  cache_hash_update(&h, options, sizeof options);
  for (size_t i = 0; i < pr->count; i++) {
    const InputImage *in = &inputs->items[i];
    uint8_t kind[2] = {(uint8_t)in->image_kind, in->is_library};
    cache_hash_update(&h, kind, sizeof kind);
    cache_hash_string(&h, pr->facts[i]);
  }
  cache_hash_final(&h, key);
  return true;
}

ProgramFacts *program_record_facts(ProgramRecord *pr, const InputSet *inputs,
                                   const SplitOptions *split, bool allow_dependencies) {
  pr->inputs = inputs;
  pr->split = split;
  pr->allow_dependencies = allow_dependencies;
  if (!facts_key(pr, inputs, split, allow_dependencies, pr->facts_key)) return NULL;
  Buffer b;
  if (cache_get(pr->cache, "relinkfacts", pr->facts_key, &b)) return NULL;
  ProgramFacts *p = program_facts_restore(b.data, b.size);
  free(b.data);
  if (p)
    note("relink: the facts of the last link reused (%zu of %zu module(s) listed)", pr->listed,
         pr->count);
  return p;
}

void program_record_computed(ProgramRecord *pr, const ProgramFacts *p) {
  for (size_t i = 0; i < pr->count; i++)
    if (!pr->facts[i][0]) program_module_key(p, i, pr->facts[i]);
}

void program_record_keep_facts(ProgramRecord *pr, const ProgramFacts *p) {
  if (!pr->facts_key[0] &&
      !facts_key(pr, pr->inputs, pr->split, pr->allow_dependencies, pr->facts_key))
    return;
  if (!program_keeps(p)) return;
  Buffer b;
  program_facts_save(p, &b);
  cache_store(pr->cache, "relinkfacts", pr->facts_key, &b);
  free(b.data);
}

static bool resolution_key(const ProgramRecord *pr, const InputSet *inputs, bool aot,
                           bool allow_dependencies, char key[CACHE_KEY_SIZE]) {
  if (pr->count != inputs->count || !all_known(pr->interface, pr->count)) return false;
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "relink resolution 1");
  uint8_t options[2] = {aot, allow_dependencies};
  cache_hash_update(&h, options, sizeof options);
  for (size_t i = 0; i < pr->count; i++) {
    const InputImage *in = &inputs->items[i];
    uint8_t kind[3] = {(uint8_t)in->image_kind, in->is_library, is_dummy_image(in, NULL)};
    cache_hash_update(&h, kind, sizeof kind);
    cache_hash_string(&h, pr->interface[i]);
  }
  cache_hash_final(&h, key);
  return true;
}

bool program_record_resolution(ProgramRecord *pr, Resolution *r, InputSet *inputs, bool aot,
                               bool allow_dependencies) {
  char key[CACHE_KEY_SIZE];
  if (!resolution_key(pr, inputs, aot, allow_dependencies, key)) return false;
  Buffer b;
  if (cache_get(pr->cache, "relinkres", key, &b)) return false;
  bool ok = resolution_restore(r, inputs, b.data, b.size, pr->content);
  free(b.data);
  if (ok) {
    note("relink: the symbol resolution of the last link reused");
    memcpy(r->kept_key, key, CACHE_KEY_SIZE);
  }
  return ok;
}

void program_record_keep_resolution(ProgramRecord *pr, Resolution *r, InputSet *inputs,
                                    char (*interface)[CACHE_KEY_SIZE], bool aot,
                                    bool allow_dependencies) {
  if (pr->count != r->num_modules) return;
  for (size_t i = 0; i < pr->count; i++)
    if (!pr->interface[i][0]) memcpy(pr->interface[i], interface[i], CACHE_KEY_SIZE);
  char key[CACHE_KEY_SIZE];
  if (!resolution_key(pr, inputs, aot, allow_dependencies, key)) return;
  memcpy(r->kept_key, key, CACHE_KEY_SIZE);
  Buffer b;
  resolution_save(r, &b);
  cache_store(pr->cache, "relinkres", key, &b);
  free(b.data);
}

void program_record_end(ProgramRecord *pr) {
  if (!pr->active) return;
  if (pr->lists && pr->listed < pr->count && all_known(pr->facts, pr->count) &&
      all_known(pr->interface, pr->count)) {
    Buffer b = {0};
    uint64_t head[2] = {LIST_VERSION, pr->count};
    record_put(&b, head, sizeof head);
    for (size_t i = 0; i < pr->count; i++) {
      record_put(&b, pr->content[i], CACHE_KEY_SIZE - 1);
      record_put(&b, pr->facts[i], CACHE_KEY_SIZE - 1);
      record_put(&b, pr->interface[i], CACHE_KEY_SIZE - 1);
    }
    cache_store(pr->cache, "relinkmods", pr->link_key, &b);
    free(b.data);
  }
  free(pr->content);
  free(pr->facts);
  free(pr->interface);
  *pr = (ProgramRecord){0};
}
