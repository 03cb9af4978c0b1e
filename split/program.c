// Whole-program facts (issue 14): what each function reaches through direct calls and
// "calls-indirectly" sets in any unit of the link, and so which aspects every kernel needs;
// images re-grouped where a compile-time or per-input grouping missed another unit's facts,
// one image per virtual-function set, device_image_scope globals in one image only.
// It reads function bodies but changes no module except the images it re-splits or merges.
#include "split/split.h"
#include <llvm-c/Linker.h>

#include <stdlib.h>
#include <string.h>


//
// What one module says about its globals, by name (cached per bitcode hash)
//

enum { FACT_FUNCTION = 1, FACT_LOCAL = 2, FACT_KERNEL = 4, FACT_IMAGE_SCOPE = 8 };

typedef struct {
  char *name;
  uint8_t flags;
  char *set;              // its "indirectly-callable" set, or NULL
  StringList aspects;     // its own: sycl_used_aspects, and double/half in its body
  StringList calls;       // functions it calls directly
  StringList sets_called; // its "calls-indirectly" sets
  StringList uses;        // other globals it refers to (address-taken functions, variables)
} GlobalFact;

typedef struct {
  GlobalFact *items;
  size_t count, cap;
  bool dummy; // a set's dummy image: it stands in for the set, it reaches nothing
} ModuleFacts;

static bool is_local_linkage(LLVMValueRef gv) {
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
         record_get_strings(&r, &f->calls) && record_get_strings(&r, &f->sets_called) &&
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

typedef struct {
  uint64_t w[2];
} Aspects; // a set of interned aspect names

typedef struct {
  const GlobalFact *fact;
  uint32_t module;
  uint32_t *calls, *uses; // nodes
  uint32_t num_calls, num_uses;
  int32_t *sets_called; // set indices
  uint32_t num_sets_called;
  int32_t set; // its set's index, or -1
  Aspects own, reach;
} Node;

struct ProgramFacts {
  ModuleFacts *modules; // per input image at the time the facts were read
  size_t num_modules;
  Node *nodes;
  size_t num_nodes;
  size_t *first_node; // per module: its nodes are [first_node[m], first_node[m + 1])
  StrMap external;    // name -> node + 1 of the first external definition
  StringList aspect_names;
  StringList set_names;
  Aspects *set_reach;
  bool any_image_scope;
};

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

static bool aspects_equal(Aspects a, Aspects b) {
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
static int64_t lookup(const ProgramFacts *p, const StrMap *own, const char *name) {
  uintptr_t n = (uintptr_t)strmap_get(own, name);
  if (!n) n = (uintptr_t)strmap_get(&p->external, name);
  return n ? (int64_t)n - 1 : -1;
}

static uint32_t *resolve_names(const ProgramFacts *p, const StrMap *own, const StringList *names,
                               uint32_t *count) {
  uint32_t *out = xmalloc((names->count + 1) * sizeof(uint32_t));
  *count = 0;
  for (size_t i = 0; i < names->count; i++) {
    int64_t n = lookup(p, own, names->items[i]);
    if (n >= 0) out[(*count)++] = (uint32_t)n;
  }
  return out;
}

static void build_program(ProgramFacts *p) {
  p->first_node = xcalloc(p->num_modules + 1, sizeof(size_t));
  for (size_t m = 0; m < p->num_modules; m++)
    p->first_node[m + 1] = p->first_node[m] + p->modules[m].count;
  p->num_nodes = p->first_node[p->num_modules];
  p->nodes = xcalloc(p->num_nodes + 1, sizeof(Node));
  // External definitions in module order: the first one stands for every ODR copy. A dummy
  // image's empty bodies stand for nothing.
  for (size_t m = 0; m < p->num_modules; m++)
    for (size_t i = 0; i < p->modules[m].count; i++) {
      const GlobalFact *f = &p->modules[m].items[i];
      Node *n = &p->nodes[p->first_node[m] + i];
      *n = (Node){.fact = f, .module = (uint32_t)m, .set = -1};
      n->own = intern_aspects(p, &f->aspects);
      p->any_image_scope |= (f->flags & FACT_IMAGE_SCOPE) != 0;
      if (!(f->flags & FACT_LOCAL) && !p->modules[m].dummy && !strmap_get(&p->external, f->name))
        strmap_put(&p->external, f->name, (void *)(uintptr_t)(p->first_node[m] + i + 1));
    }
  for (size_t m = 0; m < p->num_modules; m++) {
    StrMap own = {0};
    for (size_t i = 0; i < p->modules[m].count; i++)
      strmap_put(&own, p->modules[m].items[i].name, (void *)(uintptr_t)(p->first_node[m] + i + 1));
    for (size_t i = 0; i < p->modules[m].count; i++) {
      Node *n = &p->nodes[p->first_node[m] + i];
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
  for (size_t i = 0; i < p->num_nodes; i++)
    p->nodes[i].reach = p->nodes[i].own;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < p->num_nodes; i++) {
      Node *n = &p->nodes[i];
      for (uint32_t k = 0; k < n->num_calls; k++)
        changed |= aspects_merge(&n->reach, p->nodes[n->calls[k]].reach);
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

static bool wants_facts(const InputImage *in) {
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
    cache_derived_key("facts v3", content, key); // v3: only verified modules
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

void program_aspects(const ProgramFacts *p, const char *name, StringList *out) {
  uintptr_t n = p ? (uintptr_t)strmap_get(&p->external, name) : 0;
  if (n) aspect_list(p, p->nodes[n - 1].reach, out);
}

// Marks the kernels of module M (and with SETS its set functions) in MOD with the aspects
// they reach, as sycl_used_aspects: what DPC++'s aspect propagation writes.
static void mark_reached_aspects(const ProgramFacts *p, size_t m, LLVMModuleRef mod, bool sets) {
  for (size_t i = p->first_node[m]; i < p->first_node[m + 1]; i++) {
    const Node *n = &p->nodes[i];
    if (!(n->fact->flags & FACT_KERNEL) && !(sets && n->fact->set)) continue;
    StringList aspects = {0};
    aspect_list(p, n->reach, &aspects);
    LLVMValueRef f = LLVMGetNamedFunction(mod, n->fact->name);
    if (f && aspects.count) add_used_aspects(f, &aspects);
    strlist_free(&aspects);
  }
}

//
// Re-grouping: an image whose kernels reach different aspects is split again by source, its
// kernels first marked with what they reach (as DPC++'s aspect propagation marks them).
//

static bool needs_regroup(const ProgramFacts *p, size_t m) {
  const Node *first = NULL;
  for (size_t i = p->first_node[m]; i < p->first_node[m + 1]; i++) {
    const Node *n = &p->nodes[i];
    if (!(n->fact->flags & FACT_KERNEL)) continue;
    if (!first)
      first = n;
    else if (!aspects_equal(first->reach, n->reach))
      return true;
  }
  return false;
}

typedef struct {
  const ProgramFacts *p;
  const InputSet *inputs;
  const size_t *todo;
  SplitOptions options;
  SplitResult *results;
  char **errors;
} RegroupJob;

// Runs on a worker thread: touches only job T.
static void regroup_one(void *arg, size_t t) {
  RegroupJob *job = arg;
  size_t m = job->todo[t];
  const InputImage *in = &job->inputs->items[m];
  LLVMContextRef ctx = context_create();
  LLVMModuleRef mod;
  reading_input_begin(in->origin, "bitcode");
  int unreadable = module_parse(ctx, in->data, in->size, in->origin, false, &mod, &job->errors[t]);
  reading_input_end();
  if (!unreadable) {
    mark_reached_aspects(job->p, m, mod, false);
    split_module(mod, &job->options, &job->results[t], &job->errors[t]); // consumes MOD
  }
  context_dispose(ctx);
}

// A virtual-function set's image (or its dummy): no kernel, and "indirectly-callable"
// definitions of one set. Returns the set, or NULL.
static const char *set_of_image(const ProgramFacts *p, size_t m) {
  const char *set = NULL;
  for (size_t i = p->first_node[m]; i < p->first_node[m + 1]; i++) {
    const GlobalFact *f = p->nodes[i].fact;
    if (f->flags & FACT_KERNEL) return NULL;
    if (!f->set || (f->flags & FACT_LOCAL)) continue;
    if (set && strcmp(set, f->set)) return NULL;
    set = f->set;
  }
  return set;
}

// Links the images LIST (of one set, all real or all dummies) into one. The set's inline
// functions are weak_odr in each (split/split.c), so copies merge; two strong definitions of
// one name are the user's error. 0, or -1 after error().
static int merge_set_images(const InputSet *inputs, const size_t *list, size_t count, bool dummies,
                            Buffer *out) {
  LLVMContextRef ctx = context_create();
  LLVMModuleRef merged = NULL;
  StrMap defined = {0}; // name -> (index in LIST + 1) of its strong definition
  int status = 0;
  for (size_t k = 0; k < count && status == 0; k++) {
    const InputImage *in = &inputs->items[list[k]];
    LLVMModuleRef m;
    char *why;
    reading_input_begin(in->origin, "bitcode");
    int unreadable = module_parse(ctx, in->data, in->size, in->origin, false, &m, &why);
    reading_input_end();
    if (unreadable) {
      error(in->origin, "%s", why);
      free(why);
      status = -1;
      break;
    }
    for (LLVMValueRef gv = first_global_object(m); gv; gv = next_global_object(gv)) {
      if (LLVMIsDeclaration(gv) || is_local_linkage(gv)) continue;
      const char *name = LLVMGetValueName2(gv, &(size_t){0});
      uintptr_t prev = (uintptr_t)strmap_get(&defined, name);
      bool strong = LLVMGetLinkage(gv) == LLVMExternalLinkage;
      if (prev && strong && (prev & 1) && !dummies) { // (the real images report it)
        error(in->origin, "duplicate symbol: %s\n>>> defined in %s\n>>> defined in %s", name,
              inputs->items[list[(prev >> 1) - 1]].origin, in->origin);
        status = -1;
      } else if (prev) {
        bridge_make_declaration(gv); // a copy of a definition the merged image has
      } else {
        strmap_put(&defined, name, (void *)(uintptr_t)(((k + 1) << 1) | strong));
      }
    }
    if (status) {
      LLVMDisposeModule(m);
    } else if (!merged) {
      merged = m;
    } else if (LLVMLinkModules2(merged, m)) {
      error(in->origin, "cannot merge the images of virtual-functions set: %s",
            context_last_error(ctx) ? context_last_error(ctx) : "link failed");
      status = -1;
    }
  }
  if (status == 0) {
    char *why;
    if (bridge_write_bitcode_with_summary(merged, out, &why)) {
      error(inputs->items[list[0]].origin, "%s", why);
      free(why);
      status = -1;
    }
  }
  strmap_free(&defined);
  if (merged) LLVMDisposeModule(merged);
  context_dispose(ctx);
  return status;
}

// Each input's image list after the stage: the image itself, its re-split images, a merged
// set image, or nothing (merged into an earlier one).
typedef struct {
  SplitResult split; // re-split, or count 0
  Buffer merged;     // a merged set image's bitcode, or empty
  bool removed;
} Replacement;

static void add_image(InputSet *inputs, InputImage **items, size_t *count, size_t *cap,
                      InputImage image, Buffer *bytes) {
  if (*count == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    *items = xrealloc(*items, *cap * sizeof(InputImage));
  }
  if (bytes) {
    image.data = bytes->data;
    image.size = bytes->size;
    image.facts = NULL, image.facts_size = 0;
    inputs->files = xrealloc(inputs->files, (inputs->num_files + 1) * sizeof(Buffer));
    inputs->files[inputs->num_files++] = *bytes;
    *bytes = (Buffer){0};
  }
  (*items)[(*count)++] = image;
}

//
// device_image_scope across images: each emitted image is walked from its entry points; a
// global with the property reached from two images is an error (as within one unit).
//

typedef struct {
  size_t module;      // the facts the image was read with
  StringList roots;   // its kernels, or its set's functions
  const char *origin; // for messages
} ImageRoots;

static void check_image_scope(const ProgramFacts *p, const ImageRoots *images, size_t count,
                              bool allow_dependencies) {
  StrMap first_user = {0}; // global name -> "kernel (origin)" of the first image reaching it
  StrMap first_image = {0};
  uint32_t *stamp = xcalloc(p->num_nodes + 1, sizeof(uint32_t));
  uint32_t *queue = xmalloc((p->num_nodes + 1) * sizeof(uint32_t));
  for (size_t im = 0; im < count; im++) {
    const ImageRoots *img = &images[im];
    size_t m = img->module;
    StrMap own = {0};
    for (size_t i = p->first_node[m]; i < p->first_node[m + 1]; i++)
      strmap_put(&own, p->nodes[i].fact->name, (void *)(uintptr_t)(i + 1));
    for (size_t r = 0; r < img->roots.count; r++) {
      int64_t root = lookup(p, &own, img->roots.items[r]);
      if (root < 0) continue;
      size_t head = 0, tail = 0;
      uint32_t mark = (uint32_t)(im * 65536 + r + 1); // fresh per walk (wraps harmlessly)
      queue[tail++] = (uint32_t)root;
      stamp[root] = mark;
      while (head < tail) {
        const Node *n = &p->nodes[queue[head++]];
        if (n->fact->flags & FACT_IMAGE_SCOPE) {
          const char *name = n->fact->name;
          uintptr_t first = (uintptr_t)strmap_get(&first_image, name);
          char *user = format("%s (%s)", img->roots.items[r], img->origin);
          if (!first) {
            strmap_put(&first_image, name, (void *)(uintptr_t)(im + 1));
            strmap_put(&first_user, name, user);
          } else if (first != im + 1) {
            char *prev = strmap_get(&first_user, name);
            error(img->origin,
                  "device_global variable '%s' with property \"device_image_scope\" is used in "
                  "more than one device image. Reached from: %s, %s",
                  name, prev, user);
            free(user);
            strmap_put(&first_image, name, (void *)(uintptr_t)-1); // reported once
          } else {
            free(user);
          }
        }
        for (int pass = 0; pass < 2; pass++) {
          const uint32_t *to = pass ? n->uses : n->calls;
          uint32_t num = pass ? n->num_uses : n->num_calls;
          for (uint32_t k = 0; k < num; k++) {
            const Node *next = &p->nodes[to[k]];
            // Another image's set functions and, with image dependencies, other units'
            // definitions are linked at run time, not copied here.
            if (next->set >= 0 && next->module != m) continue;
            if (allow_dependencies && next->module != m) continue;
            if (stamp[to[k]] == mark) continue;
            stamp[to[k]] = mark;
            queue[tail++] = to[k];
          }
        }
      }
    }
    strmap_free(&own);
  }
  for (size_t i = 0; i < first_user.cap; i++)
    if (first_user.keys && first_user.keys[i]) free(first_user.values[i]);
  strmap_free(&first_user);
  strmap_free(&first_image);
  free(stamp);
  free(queue);
}

void program_regroup(InputSet *inputs, const ProgramFacts *p, const SplitOptions *o, int jobs) {
  assert_that(p->num_modules == inputs->count);
  Replacement *rep = xcalloc(inputs->count + 1, sizeof(Replacement));

  // Images whose kernels reach different aspects (a split never saw the other units); not
  // when the user asked for no split.
  size_t *todo = xmalloc((inputs->count + 1) * sizeof(size_t));
  size_t num_todo = 0;
  for (size_t m = 0; m < inputs->count && o->mode != SPLIT_NONE; m++)
    if (!inputs->items[m].is_library && wants_facts(&inputs->items[m]) && needs_regroup(p, m))
      todo[num_todo++] = m;
  RegroupJob job = {.p = p,
                    .inputs = inputs,
                    .todo = todo,
                    .options = *o,
                    .results = xcalloc(num_todo + 1, sizeof(SplitResult)),
                    .errors = xcalloc(num_todo + 1, sizeof(char *))};
  job.options.mode = SPLIT_SOURCE;
  job.options.cache = NULL;
  parallel_for(num_todo, jobs, regroup_one, &job);
  for (size_t t = 0; t < num_todo; t++) {
    if (job.errors[t]) {
      error(inputs->items[todo[t]].origin, "%s", job.errors[t]);
      free(job.errors[t]);
    }
    rep[todo[t]].split = job.results[t];
    note("%s: re-grouped into %zu image(s): its kernels reach different aspects",
         inputs->items[todo[t]].origin, job.results[t].count);
  }
  free(job.results);
  free(job.errors);
  exit_on_errors();

  // One image per virtual-function set, and one dummy: a set defined in several units (inline
  // virtual functions) was outlined by each. Under AOT nothing is outlined.
  for (size_t m = 0; m < inputs->count && !o->aot; m++) {
    const char *set = inputs->items[m].is_library ? NULL : set_of_image(p, m);
    if (!set || rep[m].removed || rep[m].merged.data) continue;
    size_t *list = xmalloc((inputs->count + 1) * sizeof(size_t)), count = 0;
    for (size_t k = m; k < inputs->count; k++) {
      const char *other = inputs->items[k].is_library ? NULL : set_of_image(p, k);
      if (other && !strcmp(other, set) && p->modules[k].dummy == p->modules[m].dummy)
        list[count++] = k;
    }
    if (count > 1 &&
        merge_set_images(inputs, list, count, p->modules[m].dummy, &rep[m].merged) == 0) {
      note("%s: virtual-functions set %s%s merged from %zu images", inputs->items[m].origin, set,
           p->modules[m].dummy ? " (dummy)" : "", count);
      for (size_t k = 1; k < count; k++)
        rep[list[k]].removed = true;
    }
    free(list);
  }
  exit_on_errors();

  // The images as they go on, and what each one's entry points are for the check below.
  InputImage *items = NULL;
  size_t count = 0, cap = 0;
  ImageRoots *roots = xcalloc(2 * inputs->count + 1, sizeof(ImageRoots));
  size_t num_roots = 0, roots_cap = 2 * inputs->count + 1;
  for (size_t m = 0; m < inputs->count; m++) {
    InputImage *in = &inputs->items[m];
    if (rep[m].removed) { // merged into the set's first image; its bytes stay among the files
      input_image_free(in);
      continue;
    }
    if (rep[m].split.count) {
      for (size_t k = 0; k < rep[m].split.count; k++) {
        SplitImage *image = &rep[m].split.images[k];
        InputImage out = input_image_derive(in);
        split_image_keys(image, SPLIT_SOURCE, in->keys, in->num_keys, &out.keys, &out.num_keys);
        if (num_roots == roots_cap) roots = xrealloc(roots, (roots_cap *= 2) * sizeof(ImageRoots));
        roots[num_roots] = (ImageRoots){.module = m, .origin = out.origin};
        for (size_t j = 0; j < image->kernels.count; j++)
          strlist_push(&roots[num_roots].roots, xstrdup(image->kernels.items[j]));
        num_roots++;
        add_image(inputs, &items, &count, &cap, out, &image->bitcode);
      }
      split_result_free(&rep[m].split);
      input_image_free(in); // replaced by its images
      continue;
    }
    if (!in->is_library && wants_facts(in) && !p->modules[m].dummy) {
      if (num_roots == roots_cap) roots = xrealloc(roots, (roots_cap *= 2) * sizeof(ImageRoots));
      roots[num_roots] = (ImageRoots){.module = m, .origin = in->origin};
      bool is_set = set_of_image(p, m) != NULL && !o->aot;
      for (size_t i = p->first_node[m]; i < p->first_node[m + 1]; i++) {
        const GlobalFact *f = p->nodes[i].fact;
        if ((f->flags & FACT_KERNEL) || (is_set && f->set && !(f->flags & FACT_LOCAL)))
          strlist_push(&roots[num_roots].roots, xstrdup(f->name));
      }
      num_roots++;
    }
    add_image(inputs, &items, &count, &cap, *in, rep[m].merged.data ? &rep[m].merged : NULL);
  }
  if (p->any_image_scope) check_image_scope(p, roots, num_roots, o->allow_dependencies);
  for (size_t i = 0; i < num_roots; i++)
    strlist_free(&roots[i].roots);
  free(roots);
  free(inputs->items);
  inputs->items = items;
  inputs->count = count;
  inputs->cap = cap;
  free(rep);
  free(todo);
  exit_on_errors();
}

void propagate_aspects(LLVMModuleRef m) {
  ProgramFacts p = {.num_modules = 1, .modules = xcalloc(1, sizeof(ModuleFacts))};
  read_facts(m, &p.modules[0]);
  build_program(&p);
  mark_reached_aspects(&p, 0, m, true);
  program_release(&p);
}
