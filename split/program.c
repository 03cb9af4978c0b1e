// Whole-program facts (issue 14): what each function reaches through direct calls and
// "calls-indirectly" sets in any unit of the link, and so which aspects every kernel needs
// (regroup.c acts on them). It reads function bodies and changes no module but the one
// propagate_aspects marks.
#include "split/split_internal.h"

#include <stdlib.h>
#include <string.h>

//
// What one module says about its globals, by name (cached per bitcode hash)
//

bool is_local_linkage(LLVMValueRef gv) {
  LLVMLinkage l = LLVMGetLinkage(gv);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

static void add_name(StringList *l, LLVMValueRef gv) {
  size_t len;
  const char *name = LLVMGetValueName2(gv, &len);
  if (!len || !strncmp(name, "llvm.", 5)) return;
  for (size_t i = 0; i < l->count; i++)
    if (!strncmp(l->items[i], name, len) && !l->items[i][len]) return;
  strlist_push(l, xstrndup(name, len));
}

// The globals V refers to, through chains of constant expressions and aggregates.
static void add_references(StringList *uses, LLVMValueRef v, int depth) {
  if (!v || depth > 16) return;
  if (LLVMIsAGlobalValue(v)) {
    add_name(uses, v);
  } else if (LLVMIsAConstantExpr(v) || LLVMIsAConstantStruct(v) || LLVMIsAConstantArray(v) ||
             LLVMIsAConstantVector(v)) {
    int n = LLVMGetNumOperands(v);
    for (int i = 0; i < n; i++)
      add_references(uses, LLVMGetOperand(v, i), depth + 1);
  }
}

static void split_list(StringList *out, const char *text, size_t len) {
  char *copy = xstrndup(text, len);
  strlist_split_commas(out, copy);
  free(copy);
}

static GlobalFact *new_fact(ModuleFacts *mf, LLVMValueRef gv, uint8_t flags) {
  if (mf->count == mf->cap) {
    mf->cap = mf->cap ? mf->cap * 2 : 32;
    mf->items = xrealloc(mf->items, mf->cap * sizeof(GlobalFact));
  }
  size_t len;
  const char *name = LLVMGetValueName2(gv, &len);
  GlobalFact *f = &mf->items[mf->count++];
  *f = (GlobalFact){.name = xstrndup(name, len), .flags = flags};
  if (is_local_linkage(gv)) f->flags |= FACT_LOCAL;
  return f;
}

static void read_function(ModuleFacts *mf, LLVMValueRef fn) {
  GlobalFact *f = new_fact(mf, fn, FACT_FUNCTION);
  if (is_kernel(fn)) f->flags |= FACT_KERNEL;
  unsigned len;
  LLVMAttributeRef a =
      LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "indirectly-callable", 19);
  if (a) {
    const char *set = LLVMGetStringAttributeValue(a, &len); // before len is read
    f->set = xstrndup(set, len);
  }
  a = LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "calls-indirectly", 16);
  if (a) {
    const char *sets = LLVMGetStringAttributeValue(a, &len);
    split_list(&f->sets_called, sets, len);
  }
  function_aspects(fn, true, &f->aspects);
  function_declared_aspects(fn, &f->declared);
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      int n = LLVMGetNumOperands(i);
      LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
      if (callee && LLVMIsAFunction(callee)) {
        add_name(&f->calls, callee);
        n--; // the callee is the last operand; the arguments may still take its address
      }
      for (int k = 0; k < n; k++)
        add_references(&f->uses, LLVMGetOperand(i, k), 0);
    }
}

static void read_facts(LLVMModuleRef m, ModuleFacts *mf) {
  *mf = (ModuleFacts){.dummy = is_dummy_image(NULL, m)};
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn) && !LLVMGetIntrinsicID(fn)) read_function(mf, fn);
  for (LLVMValueRef v = LLVMGetFirstGlobal(m); v; v = LLVMGetNextGlobal(v)) {
    if (LLVMIsDeclaration(v)) continue;
    GlobalFact *f = new_fact(mf, v, is_image_scope_global(v) ? FACT_IMAGE_SCOPE : 0);
    add_references(&f->uses, LLVMGetInitializer(v), 0);
  }
}

static void facts_free(ModuleFacts *mf) {
  for (size_t i = 0; i < mf->count; i++) {
    GlobalFact *f = &mf->items[i];
    free(f->name);
    free(f->set);
    strlist_free(&f->aspects);
    strlist_free(&f->declared);
    strlist_free(&f->calls);
    strlist_free(&f->sets_called);
    strlist_free(&f->uses);
  }
  free(mf->items);
  *mf = (ModuleFacts){0};
}

// Serialized (cache entries, InputImage.facts): the dummy flag, a count, then per global its
// flags, name, set ("" for none) and four string lists.
static void facts_serialize(const ModuleFacts *mf, Buffer *b) {
  uint64_t head[2] = {mf->dummy, mf->count};
  buffer_append(b, head, sizeof head);
  for (size_t i = 0; i < mf->count; i++) {
    const GlobalFact *f = &mf->items[i];
    record_put(b, &f->flags, 1);
    record_put(b, f->name, strlen(f->name));
    record_put(b, f->set ? f->set : "", f->set ? strlen(f->set) : 0);
    record_put_strings(b, &f->aspects);
    record_put_strings(b, &f->declared);
    record_put_strings(b, &f->calls);
    record_put_strings(b, &f->sets_called);
    record_put_strings(b, &f->uses);
  }
}

static void store_facts(const Cache *c, const char *key, const ModuleFacts *mf) {
  Buffer b = {0};
  facts_serialize(mf, &b);
  cache_store(c, "facts", key, &b);
  free(b.data);
}

void module_facts(LLVMModuleRef m, Buffer *out) {
  ModuleFacts mf;
  read_facts(m, &mf);
  facts_serialize(&mf, out);
  facts_free(&mf);
}

// False (and MF empty) for bytes that are not what facts_serialize writes.
static bool facts_deserialize(const uint8_t *data, size_t size, ModuleFacts *mf) {
  uint64_t head[2] = {0, 0};
  bool ok = size >= sizeof head;
  if (ok) memcpy(head, data, sizeof head);
  ok = ok && head[1] <= size;
  RecordReader r = {data + sizeof head, data + size, !ok};
  *mf = (ModuleFacts){.dummy = head[0] != 0};
  for (uint64_t i = 0; ok && i < head[1]; i++) {
    if (mf->count == mf->cap) {
      mf->cap = mf->cap ? mf->cap * 2 : 32;
      mf->items = xrealloc(mf->items, mf->cap * sizeof(GlobalFact));
    }
    GlobalFact *f = &mf->items[mf->count++];
    *f = (GlobalFact){0};
    size_t n;
    const uint8_t *flags = record_get(&r, &n);
    f->flags = flags && n == 1 ? flags[0] : 0;
    f->name = record_get_string(&r);
    char *set = record_get_string(&r);
    if (set && *set)
      f->set = set;
    else
      free(set);
    ok = flags && n == 1 && f->name && record_get_strings(&r, &f->aspects) &&
         record_get_strings(&r, &f->declared) && record_get_strings(&r, &f->calls) && record_get_strings(&r, &f->sets_called) &&
         record_get_strings(&r, &f->uses);
  }
  ok = ok && !r.bad && r.p == r.end;
  if (!ok) facts_free(mf);
  return ok;
}

static bool load_facts(const Cache *c, const char *key, ModuleFacts *mf) {
  Buffer b;
  if (cache_get(c, "facts", key, &b)) return false;
  bool ok = facts_deserialize(b.data, b.size, mf);
  free(b.data);
  return ok;
}

//
// The whole program: a node per definition, edges by name (a module's own definitions
// first, then the one external definition of that name)
//

static Aspects intern_aspects(ProgramFacts *p, const StringList *names) {
  Aspects a = {{0, 0}};
  for (size_t i = 0; i < names->count; i++) {
    size_t k = 0;
    while (k < p->aspect_names.count && strcmp(p->aspect_names.items[k], names->items[i]))
      k++;
    if (k == p->aspect_names.count) {
      if (k == 128) die("more than 128 distinct aspects");
      strlist_push(&p->aspect_names, xstrdup(names->items[i]));
    }
    a.w[k / 64] |= 1ull << (k % 64);
  }
  return a;
}

static bool aspects_merge(Aspects *into, Aspects from) {
  Aspects old = *into;
  into->w[0] |= from.w[0];
  into->w[1] |= from.w[1];
  return into->w[0] != old.w[0] || into->w[1] != old.w[1];
}

bool aspects_equal(Aspects a, Aspects b) {
  return a.w[0] == b.w[0] && a.w[1] == b.w[1];
}

static int set_index(ProgramFacts *p, const char *set, bool add) {
  for (size_t i = 0; i < p->set_names.count; i++)
    if (!strcmp(p->set_names.items[i], set)) return (int)i;
  if (!add) return -1;
  strlist_push(&p->set_names, xstrdup(set));
  return (int)p->set_names.count - 1;
}

// The node NAME denotes in module M: M's own definition, else the external one; -1 if none.
int64_t program_lookup(const ProgramFacts *p, const StrMap *own, const char *name) {
  uintptr_t n = (uintptr_t)strmap_get(own, name);
  if (!n) n = (uintptr_t)strmap_get(&p->external, name);
  return n ? (int64_t)n - 1 : -1;
}

static uint32_t *resolve_names(const ProgramFacts *p, const StrMap *own, const StringList *names,
                               uint32_t *count) {
  uint32_t *out = xmalloc((names->count + 1) * sizeof(uint32_t));
  *count = 0;
  for (size_t i = 0; i < names->count; i++) {
    int64_t n = program_lookup(p, own, names->items[i]);
    if (n >= 0) out[(*count)++] = (uint32_t)n;
  }
  return out;
}

static void build_program(ProgramFacts *p) {
  p->first_node = xcalloc(p->num_modules + 1, sizeof(size_t));
  for (size_t m = 0; m < p->num_modules; m++)
    p->first_node[m + 1] = p->first_node[m] + p->modules[m].count;
  p->num_nodes = p->first_node[p->num_modules];
  p->nodes = xcalloc(p->num_nodes + 1, sizeof(FactNode));
  // External definitions in module order: the first one stands for every ODR copy. A dummy
  // image's empty bodies stand for nothing.
  for (size_t m = 0; m < p->num_modules; m++)
    for (size_t i = 0; i < p->modules[m].count; i++) {
      const GlobalFact *f = &p->modules[m].items[i];
      FactNode *n = &p->nodes[p->first_node[m] + i];
      *n = (FactNode){.fact = f, .module = (uint32_t)m, .set = -1};
      n->own = intern_aspects(p, &f->aspects);
      n->declared = intern_aspects(p, &f->declared);
      p->any_image_scope |= (f->flags & FACT_IMAGE_SCOPE) != 0;
      if (!(f->flags & FACT_LOCAL) && !p->modules[m].dummy && !strmap_get(&p->external, f->name))
        strmap_put(&p->external, f->name, (void *)(uintptr_t)(p->first_node[m] + i + 1));
    }
  for (size_t m = 0; m < p->num_modules; m++) {
    StrMap own = {0};
    for (size_t i = 0; i < p->modules[m].count; i++)
      strmap_put(&own, p->modules[m].items[i].name, (void *)(uintptr_t)(p->first_node[m] + i + 1));
    for (size_t i = 0; i < p->modules[m].count; i++) {
      FactNode *n = &p->nodes[p->first_node[m] + i];
      n->calls = resolve_names(p, &own, &n->fact->calls, &n->num_calls);
      n->uses = resolve_names(p, &own, &n->fact->uses, &n->num_uses);
      if (p->modules[m].dummy) continue;
      if (n->fact->set) n->set = set_index(p, n->fact->set, true);
      n->sets_called = xmalloc((n->fact->sets_called.count + 1) * sizeof(int32_t));
      for (size_t k = 0; k < n->fact->sets_called.count; k++)
        n->sets_called[n->num_sets_called++] = set_index(p, n->fact->sets_called.items[k], true);
    }
    strmap_free(&own);
  }
  // What a function reaches: its own aspects, its callees', and those of every function of
  // each set it calls into (seed 002: a set is available as a whole or not at all). Passes
  // until nothing changes: as many as the longest chain of calls.
  p->set_reach = xcalloc(p->set_names.count + 1, sizeof(Aspects));
  // The declared aspects go along direct calls only: the image holding a function holds
  // what it calls, not a set's other functions.
  for (size_t i = 0; i < p->num_nodes; i++) {
    p->nodes[i].reach = p->nodes[i].own;
    p->nodes[i].declared_reach = p->nodes[i].declared;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < p->num_nodes; i++) {
      FactNode *n = &p->nodes[i];
      for (uint32_t k = 0; k < n->num_calls; k++) {
        changed |= aspects_merge(&n->reach, p->nodes[n->calls[k]].reach);
        changed |= aspects_merge(&n->declared_reach, p->nodes[n->calls[k]].declared_reach);
      }
      for (uint32_t k = 0; k < n->num_sets_called; k++)
        changed |= aspects_merge(&n->reach, p->set_reach[n->sets_called[k]]);
      if (n->set >= 0) changed |= aspects_merge(&p->set_reach[n->set], n->reach);
    }
  }
}

typedef struct {
  const InputSet *inputs;
  ModuleFacts *modules;
  const Cache *cache;
  char **errors;
} FactsJob;

bool wants_facts(const InputImage *in) {
  return in->image_kind == IMG_BITCODE;
}

// Runs on a worker thread: touches only module I.
static void facts_one(void *arg, size_t i) {
  FactsJob *job = arg;
  const InputImage *in = &job->inputs->items[i];
  if (!wants_facts(in)) return;
  // The split stage wrote this image and read its facts then.
  if (in->facts && facts_deserialize(in->facts, in->facts_size, &job->modules[i])) return;
  char key[CACHE_KEY_SIZE];
  if (job->cache) {
    char content[CACHE_KEY_SIZE];
    cache_content_key(in->data, in->size, content);
    cache_derived_key("facts v4", content, key); // v4: declared aspects; verified modules only
    if (load_facts(job->cache, key, &job->modules[i])) return;
  }
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  reading_input_begin(in->origin, "bitcode");
  // The first stage that reads an image (unless the split stage did): LLVM's verifier runs
  // here, before any pass does; its cache entry stands for verified bytes.
  int unreadable =
      in->verified
          ? module_parse(ctx, in->data, in->size, in->origin, false, &m, &job->errors[i])
          : module_parse_verified(ctx, in->data, in->size, in->origin, &m, &job->errors[i]);
  reading_input_end();
  if (!unreadable) {
    read_facts(m, &job->modules[i]);
    if (job->cache) store_facts(job->cache, key, &job->modules[i]);
    LLVMDisposeModule(m);
  }
  context_dispose(ctx);
}

ProgramFacts *program_facts(const InputSet *inputs, const Cache *cache, int jobs) {
  ProgramFacts *p = xcalloc(1, sizeof *p);
  p->num_modules = inputs->count;
  p->modules = xcalloc(inputs->count + 1, sizeof(ModuleFacts));
  FactsJob job = {inputs, p->modules, cache, xcalloc(inputs->count + 1, sizeof(char *))};
  parallel_for(inputs->count, jobs, facts_one, &job);
  for (size_t i = 0; i < inputs->count; i++)
    if (job.errors[i]) {
      error(inputs->items[i].origin, "%s", job.errors[i]);
      free(job.errors[i]);
    }
  free(job.errors);
  exit_on_errors();
  build_program(p);
  return p;
}

// Everything P holds, not P itself.
static void program_release(ProgramFacts *p) {
  for (size_t i = 0; i < p->num_nodes; i++) {
    free(p->nodes[i].calls);
    free(p->nodes[i].uses);
    free(p->nodes[i].sets_called);
  }
  for (size_t m = 0; m < p->num_modules; m++)
    facts_free(&p->modules[m]);
  free(p->modules);
  free(p->nodes);
  free(p->first_node);
  free(p->set_reach);
  strmap_free(&p->external);
  strlist_free(&p->aspect_names);
  strlist_free(&p->set_names);
  for (size_t i = 0; i < p->num_kept; i++) {
    strlist_free(&p->kept_aspects[i]);
    strlist_free(&p->kept_declared[i]);
  }
  free(p->kept_aspects);
  free(p->kept_declared);
}

void program_facts_free(ProgramFacts *p) {
  if (!p) return;
  program_release(p);
  free(p);
}

static void aspect_list(const ProgramFacts *p, Aspects a, StringList *out) {
  for (size_t k = 0; k < p->aspect_names.count; k++)
    if (a.w[k / 64] & (1ull << (k % 64))) strlist_push(out, xstrdup(p->aspect_names.items[k]));
}

static void copy_list(const StringList *from, StringList *out) {
  for (size_t i = 0; i < from->count; i++)
    strlist_push(out, xstrdup(from->items[i]));
}

void program_aspects(const ProgramFacts *p, const char *name, StringList *out) {
  uintptr_t n = p ? (uintptr_t)strmap_get(&p->external, name) : 0;
  if (n && p->kept_aspects)
    copy_list(&p->kept_aspects[n - 1], out);
  else if (n)
    aspect_list(p, p->nodes[n - 1].reach, out);
}

void program_declared_aspects(const ProgramFacts *p, const char *name, StringList *out) {
  uintptr_t n = p ? (uintptr_t)strmap_get(&p->external, name) : 0;
  if (n && p->kept_declared)
    copy_list(&p->kept_declared[n - 1], out);
  else if (n)
    aspect_list(p, p->nodes[n - 1].declared_reach, out);
}

//
// Kept for a relink (tool/relink_program.c): what each external name reaches, the one result
// of the facts that the stages after regroup read, for a link whose modules' facts are the last
// link's in the same order.
//

void module_facts_key(const uint8_t *facts, size_t size, char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "facts interface 1");
  cache_hash_update(&h, facts, size);
  cache_hash_final(&h, key);
}

void program_module_key(const ProgramFacts *p, size_t m, char key[CACHE_KEY_SIZE]) {
  Buffer b = {0};
  facts_serialize(&p->modules[m], &b);
  module_facts_key(b.data, b.size, key);
  free(b.data);
}

bool program_keeps(const ProgramFacts *p) {
  return !p->any_image_scope && !p->kept_aspects;
}

void program_facts_save(const ProgramFacts *p, Buffer *out) {
  *out = (Buffer){0};
  for (size_t i = 0; i < p->external.cap; i++) {
    if (!p->external.keys || !p->external.keys[i]) continue;
    const FactNode *n = &p->nodes[(uintptr_t)p->external.values[i] - 1];
    if (!n->reach.w[0] && !n->reach.w[1] && !n->declared_reach.w[0] && !n->declared_reach.w[1])
      continue;
    StringList aspects = {0}, declared = {0};
    aspect_list(p, n->reach, &aspects);
    aspect_list(p, n->declared_reach, &declared);
    record_put(out, p->external.keys[i], strlen(p->external.keys[i]));
    record_put_strings(out, &aspects);
    record_put_strings(out, &declared);
    strlist_free(&aspects);
    strlist_free(&declared);
  }
}

ProgramFacts *program_facts_restore(const uint8_t *data, size_t size) {
  ProgramFacts *p = xcalloc(1, sizeof *p);
  RecordReader r = {data, data + size, false};
  size_t cap = 0;
  p->kept_aspects = xcalloc(1, sizeof(StringList));
  p->kept_declared = xcalloc(1, sizeof(StringList));
  while (!r.bad && r.p < r.end) {
    char *name = record_get_string(&r);
    if (!name) break;
    if (p->num_kept == cap) {
      cap = cap ? cap * 2 : 64;
      p->kept_aspects = xrealloc(p->kept_aspects, cap * sizeof(StringList));
      p->kept_declared = xrealloc(p->kept_declared, cap * sizeof(StringList));
    }
    size_t k = p->num_kept++;
    p->kept_aspects[k] = p->kept_declared[k] = (StringList){0};
    bool ok = record_get_strings(&r, &p->kept_aspects[k]) &&
              record_get_strings(&r, &p->kept_declared[k]) && !strmap_get(&p->external, name);
    if (ok) strmap_put(&p->external, name, (void *)(uintptr_t)(k + 1));
    free(name);
    if (!ok) r.bad = true;
  }
  if (r.bad) {
    program_facts_free(p);
    return NULL;
  }
  return p;
}

bool program_restored(const ProgramFacts *p) {
  return p && p->kept_aspects;
}

// Marks the kernels of module M (and with SETS its set functions) in MOD with the aspects
// they reach, as sycl_used_aspects: what DPC++'s aspect propagation writes; and with the
// aspects the functions they call declare, as sycl_declared_aspects, which the image's
// requirements take in (as sycl-post-link takes those of every function of its module) even
// once ThinLTO inlined the function that declared them.
void mark_reached_aspects(const ProgramFacts *p, size_t m, LLVMModuleRef mod, bool sets) {
  for (size_t i = p->first_node[m]; i < p->first_node[m + 1]; i++) {
    const FactNode *n = &p->nodes[i];
    if (!(n->fact->flags & FACT_KERNEL) && !(sets && n->fact->set)) continue;
    StringList aspects = {0}, declared = {0};
    aspect_list(p, n->reach, &aspects);
    aspect_list(p, n->declared_reach, &declared);
    LLVMValueRef f = LLVMGetNamedFunction(mod, n->fact->name);
    if (f && aspects.count) add_used_aspects(f, &aspects);
    if (f && declared.count) add_declared_aspects(f, &declared);
    strlist_free(&aspects);
    strlist_free(&declared);
  }
}

void propagate_aspects(LLVMModuleRef m) {
  ProgramFacts p = {.num_modules = 1, .modules = xcalloc(1, sizeof(ModuleFacts))};
  read_facts(m, &p.modules[0]);
  build_program(&p);
  mark_reached_aspects(&p, 0, m, true);
  program_release(&p);
}
