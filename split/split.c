// Early device-code split: entry points grouped per kernel or per source, each group's
// closure over a use graph built once per module, one image per group with a summary.
// It reads and writes no files (tool/split_command.c, split/stage.c) and links nothing.
#include "split/split_internal.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>

//
// Entry points
//

bool is_split_entry_point(LLVMValueRef f, bool module_ids) {
  if (LLVMIsDeclaration(f)) return false;
  if (is_kernel(f)) return true;
  return is_sycl_external(f, module_ids);
}

bool module_is_split(LLVMModuleRef m) {
  return LLVMGetNamedMetadata(m, SPLIT_MODE_METADATA, strlen(SPLIT_MODE_METADATA)) != NULL;
}

//
// Groups: which entry points share an image
//

// Category keys as intel's FunctionsCategorizer writes them: each rule's text followed by
// "-", so that sycl-post-link's module order (keys sorted, taken from the last) can be kept.

static void append_text(Buffer *key, const char *text, size_t len) {
  buffer_append(key, text, len);
}

static void append_number(Buffer *key, unsigned long long v) {
  char *s = format("-%llu", v);
  append_text(key, s, strlen(s));
  free(s);
}

static LLVMValueRef *node_operands(LLVMValueRef node, unsigned *n) {
  *n = node ? LLVMGetMDNodeNumOperands(node) : 0;
  LLVMValueRef *ops = xcalloc(*n + 1, sizeof(LLVMValueRef));
  if (node) LLVMGetMDNodeOperands(node, ops);
  return ops;
}

// "-a-b-c" for an integer list (reqd_work_group_size, ...), "-s-t" for a string list
// (sycl_joint_matrix, ...).
static void append_metadata_list(Buffer *key, LLVMValueRef f, const char *name) {
  unsigned n;
  LLVMValueRef *ops = node_operands(global_metadata_node(f, name), &n);
  for (unsigned i = 0; i < n; i++) {
    if (ops[i] && LLVMIsAConstantInt(ops[i])) {
      append_number(key, LLVMConstIntGetZExtValue(ops[i]));
    } else if (ops[i] && LLVMIsAMDString(ops[i])) {
      unsigned len;
      const char *s = LLVMGetMDString(ops[i], &len);
      append_text(key, "-", 1);
      append_text(key, s, len);
    }
  }
  free(ops);
  append_text(key, "-", 1);
}

static int compare_numbers(const void *a, const void *b) {
  unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return x < y ? -1 : x > y;
}

// sycl_used_aspects (after propagation): the aspect values, sorted, "-6-5" style. An operand
// is !{!"name", i32 value} or a bare value.
static void append_aspects(Buffer *key, LLVMValueRef f) {
  unsigned n;
  LLVMValueRef *ops = node_operands(global_metadata_node(f, "sycl_used_aspects"), &n);
  unsigned long long *values = xcalloc(n + 1, sizeof *values);
  size_t count = 0;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef v = ops[i];
    if (v && LLVMIsAMDNode(v) && LLVMGetMDNodeNumOperands(v) == 2) {
      LLVMValueRef pair[2];
      LLVMGetMDNodeOperands(v, pair);
      v = pair[1];
    }
    if (v && LLVMIsAConstantInt(v)) values[count++] = LLVMConstIntGetZExtValue(v);
  }
  if (count) qsort(values, count, sizeof *values, compare_numbers);
  for (size_t i = 0; i < count; i++)
    append_number(key, values[i]);
  free(values);
  free(ops);
  append_text(key, "-", 1);
}

static void append_attribute(Buffer *key, LLVMValueRef f, const char *name) {
  LLVMAttributeRef a =
      LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, name, strlen(name));
  if (a) {
    unsigned len;
    const char *value = LLVMGetStringAttributeValue(a, &len);
    append_text(key, value, len);
  }
  append_text(key, "-", 1);
}

// Per source: the module id, the virtual-function set, and the optional features (register
// allocation, aspects, work-group and sub-group sizes, optimization level, joint matrix) that
// would make one image unusable on some device or differently compiled.
static char *source_key(LLVMValueRef f) {
  Buffer key = {0};
  append_attribute(&key, f, "sycl-module-id");
  append_attribute(&key, f, "indirectly-callable");
  append_attribute(&key, f, "sycl-register-alloc-mode");
  append_attribute(&key, f, "sycl-grf-size");
  append_aspects(&key, f);
  append_metadata_list(&key, f, "reqd_work_group_size");
  append_metadata_list(&key, f, "work_group_num_dim");
  append_metadata_list(&key, f, "intel_reqd_sub_group_size");
  append_attribute(&key, f, "sycl-optlevel");
  append_metadata_list(&key, f, "sycl_joint_matrix");
  append_metadata_list(&key, f, "sycl_joint_matrix_mad");
  buffer_append(&key, "", 1);
  return (char *)key.data;
}

static char *category_key(LLVMValueRef f, SplitMode mode) {
  if (mode == SPLIT_KERNEL) return format("%s-", LLVMGetValueName2(f, &(size_t){0}));
  if (mode == SPLIT_SOURCE) return source_key(f);
  return xstrdup("<GLOBAL>-");
}

static void add_to_group(Groups *gs, Graph *g, uint32_t n, char *key, int virtual_set,
                         SplitMode mode) {
  uintptr_t index = (uintptr_t)strmap_get(&gs->by_key, key);
  if (!index) {
    if (gs->count == gs->cap) {
      gs->cap = gs->cap ? gs->cap * 2 : 16;
      gs->items = xrealloc(gs->items, gs->cap * sizeof(Group));
    }
    gs->items[gs->count++] = (Group){
        .key = key, .order_key = category_key(g->nodes[n].value, mode), .virtual_set = virtual_set};
    index = gs->count;
    strmap_put(&gs->by_key, key, (void *)index);
  } else {
    free(key);
  }
  Group *group = &gs->items[index - 1];
  group->entries = xrealloc(group->entries, (group->num_entries + 1) * sizeof(uint32_t));
  group->entries[group->num_entries++] = n;
  g->nodes[n].group = (int)(index - 1);
  g->nodes[n].owner = (int)(index - 1);
}

static int compare_order_keys(const void *a, const void *b) {
  const Group *x = a, *y = b;
  return -strcmp(x->order_key, y->order_key);
}

// sycl-post-link keeps its groups in a map by category key and takes them from the back: its
// modules are numbered in descending key order, which users and tools index by. Keys are
// distinct except for a virtual-function set, whose functions intel may spread over several.
static void order_as_intel(Groups *gs, Graph *g) {
  if (gs->count > 1) qsort(gs->items, gs->count, sizeof(Group), compare_order_keys);
  for (size_t gi = 0; gi < gs->count; gi++)
    for (size_t i = 0; i < gs->items[gi].num_entries; i++) {
      Node *node = &g->nodes[gs->items[gi].entries[i]];
      node->group = node->owner = (int)gi;
    }
}

// Groups in the order of their first entry point in the module, or intel's.
static void make_groups(Groups *gs, Graph *g, const SplitOptions *o, const VirtualSets *sets) {
  size_t kernels = 0;
  for (size_t n = 0; n < g->num_functions; n++)
    kernels += g->nodes[n].kernel;
  SplitMode mode = o->mode;
  if (mode == SPLIT_AUTO) mode = kernels <= 1 ? SPLIT_NONE : SPLIT_SOURCE;
  for (uint32_t n = 0; n < g->num_functions; n++) {
    Node *node = &g->nodes[n];
    // Seed 002: a set is one image. sycl-post-link instead keys a virtual function as any
    // entry point (its key holds the set's name), so its groups never mix sets or kernels.
    if (node->virtual_set >= 0 && !o->virtual_by_category) {
      add_to_group(gs, g, n, format("virtual %s", sets->names.items[node->virtual_set]),
                   node->virtual_set, mode);
      continue;
    }
    bool entry =
        node->kernel || node->virtual_set >= 0 ||
        (o->only_kernels ? has_fn_attribute(node->value, "indirectly-callable")
                         : node->sycl_external);
    if (!node->defined || !entry) continue;
    // Under AOT nothing is outlined: virtual functions go where the vtables take them.
    if (o->aot && has_fn_attribute(node->value, "indirectly-callable")) continue;
    char *key = mode == SPLIT_KERNEL
                    ? format("kernel %s", LLVMGetValueName2(node->value, &(size_t){0}))
                : mode == SPLIT_SOURCE ? source_key(node->value)
                                       : xstrdup("<global>");
    add_to_group(gs, g, n, key, node->virtual_set, mode);
  }
  if (o->post_link) order_as_intel(gs, g);
}

//
// Closures
//

typedef struct {
  uint32_t *stamp; // per node: the walk that last reached it
  uint32_t current;
  uint32_t *queue;
} Walk;

static void closure_push(Group *group, uint32_t entry) {
  if (group->closure_size == group->closure_cap) {
    group->closure_cap = group->closure_cap ? group->closure_cap * 2 : 16;
    group->closure = xrealloc(group->closure, group->closure_cap * sizeof(uint32_t));
  }
  group->closure[group->closure_size++] = entry;
}

// Whether group G's image only declares node N: another group's kernel, another set's
// virtual function, or (when images may import) another group's SYCL_EXTERNAL function that
// an image can import: not one named "__" by intel's rule, which SYCL/imported symbols never
// lists (so the runtime could never resolve it); such a function is copied, as intel does.
static bool only_declared(const Node *n, int g, const Group *group, const SplitOptions *o) {
  if (n->kind != NODE_FUNCTION || !n->defined) return n->kind == NODE_FUNCTION;
  if (n->kernel && n->group != g) return true;
  if (n->virtual_set >= 0 && n->virtual_set != group->virtual_set) return true;
  return o->allow_dependencies && n->sycl_external && n->group >= 0 && n->group != g &&
         !is_implementation_name(LLVMGetValueName2(n->value, &(size_t){0}));
}

static void walk_closure(Graph *g, Walk *w, Group *group, int gi, const uint32_t *roots,
                         size_t num_roots, const SplitOptions *o) {
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < num_roots; i++)
    if (w->stamp[roots[i]] != w->current) {
      w->stamp[roots[i]] = w->current;
      w->queue[tail++] = roots[i];
    }
  while (head < tail) {
    uint32_t n = w->queue[head++];
    const Node *node = &g->nodes[n];
    bool declared = only_declared(node, gi, group, o);
    if (node->kind != NODE_TYPE) closure_push(group, n | (declared ? CLOSURE_DECLARED : 0));
    if (declared) continue;
    if (node->kind != NODE_TYPE && node->owner < 0 && node->exported) g->nodes[n].owner = gi;
    for (uint32_t e = g->edge_start[n]; e < g->edge_start[n + 1]; e++) {
      uint32_t to = g->edge_to[e];
      if (w->stamp[to] == w->current) continue;
      w->stamp[to] = w->current;
      w->queue[tail++] = to;
    }
  }
}

// A defined variable LLVM may not drop when unused (isDiscardableIfUnused is false).
static bool is_kept_variable(const Node *n) {
  if (n->kind != NODE_VARIABLE || !n->defined) return false;
  switch (LLVMGetLinkage(n->value)) {
  case LLVMLinkOnceAnyLinkage:
  case LLVMLinkOnceODRLinkage:
  case LLVMInternalLinkage:
  case LLVMPrivateLinkage:
  case LLVMAvailableExternallyLinkage:
    return false;
  default:
    return true;
  }
}

static void compute_closures(Graph *g, Groups *gs, const SplitOptions *o) {
  Walk w = {.stamp = xcalloc(g->count, sizeof(uint32_t)),
            .queue = xmalloc(g->count * sizeof(uint32_t))};
  // For the post-link front also every variable that may not be discarded (external, weak,
  // common): intel's splitter starts each module's closure from them.
  uint32_t *everywhere = xmalloc(g->count * sizeof(uint32_t));
  size_t num_everywhere = 0;
  for (uint32_t n = 0; n < g->count; n++)
    if (g->nodes[n].everywhere || (o->post_link && is_kept_variable(&g->nodes[n])))
      everywhere[num_everywhere++] = n;
  uint32_t *roots = xmalloc(g->count * sizeof(uint32_t));
  for (size_t gi = 0; gi < gs->count; gi++) {
    Group *group = &gs->items[gi];
    size_t num_roots = 0;
    for (size_t i = 0; i < group->num_entries; i++)
      roots[num_roots++] = group->entries[i];
    memcpy(roots + num_roots, everywhere, num_everywhere * sizeof(uint32_t));
    w.current++;
    walk_closure(g, &w, group, (int)gi, roots, num_roots + num_everywhere, o);
  }
  // Exported variables no group uses still belong to the module's interface (another unit
  // may use them): the first image keeps them, with what they need.
  if (gs->count) {
    size_t num_roots = 0;
    for (size_t n = g->num_functions; n < g->num_functions + g->num_variables; n++)
      if (g->nodes[n].exported && g->nodes[n].owner < 0) roots[num_roots++] = (uint32_t)n;
    if (num_roots) {
      w.current++;
      Group *first = &gs->items[0];
      for (size_t i = 0; i < first->closure_size; i++)
        w.stamp[first->closure[i] & ~CLOSURE_DECLARED] = w.current;
      walk_closure(g, &w, first, 0, roots, num_roots, o);
    }
  }
  free(roots);
  free(everywhere);
  free(w.stamp);
  free(w.queue);
}

//
// Device globals with device_image_scope: one image only (intel's
// verifyNoCrossModuleDeviceGlobalUsage walks the users up to the entry points; so do we).
//

typedef struct {
  uint32_t *start, *from; // CSR of the reversed edges
} ReverseGraph;

static ReverseGraph reverse_graph(const Graph *g) {
  ReverseGraph r = {.start = xcalloc(g->count + 1, sizeof(uint32_t))};
  size_t num_edges = g->edge_start[g->count];
  for (size_t e = 0; e < num_edges; e++)
    r.start[g->edge_to[e] + 1]++;
  for (size_t n = 0; n < g->count; n++)
    r.start[n + 1] += r.start[n];
  r.from = xmalloc((num_edges ? num_edges : 1) * sizeof(uint32_t));
  uint32_t *fill = xmalloc((g->count + 1) * sizeof(uint32_t));
  memcpy(fill, r.start, (g->count + 1) * sizeof(uint32_t));
  for (uint32_t n = 0; n < g->count; n++)
    for (uint32_t e = g->edge_start[n]; e < g->edge_start[n + 1]; e++)
      r.from[fill[g->edge_to[e]]++] = n;
  free(fill);
  return r;
}

// 0, or -1 with *errmsg naming the global and the entry points, in more than one image,
// that use it.
static int check_image_scope_global(const Graph *g, const ReverseGraph *r, uint32_t target,
                                    char **errmsg) {
  bool *seen = xcalloc(g->count, sizeof(bool));
  uint32_t *queue = xmalloc(g->count * sizeof(uint32_t));
  size_t head = 0, tail = 0;
  queue[tail++] = target;
  seen[target] = true;
  Buffer users = {0};
  int first_group = -1;
  bool several = false;
  while (head < tail) {
    uint32_t n = queue[head++];
    const Node *node = &g->nodes[n];
    if (node->kind == NODE_FUNCTION && node->group >= 0) {
      if (first_group < 0) first_group = node->group;
      several |= node->group != first_group;
      char *shown = kernels_for_message(LLVMGetValueName2(node->value, &(size_t){0}));
      char *item = format("%s%s (image %d)", users.size ? ", " : "", shown, node->group);
      buffer_append(&users, item, strlen(item));
      free(item);
      free(shown);
    }
    for (uint32_t e = r->start[n]; e < r->start[n + 1]; e++)
      if (!seen[r->from[e]]) {
        seen[r->from[e]] = true;
        queue[tail++] = r->from[e];
      }
  }
  buffer_append(&users, "", 1);
  if (several) {
    char *global = symbol_for_message(LLVMGetValueName2(g->nodes[target].value, &(size_t){0}));
    *errmsg = format("device_global variable '%s' with property \"device_image_scope\" is used "
                     "in more than one device image. Reached from: %s",
                     global, (char *)users.data);
    free(global);
  }
  free(users.data);
  free(seen);
  free(queue);
  return several ? -1 : 0;
}

static int check_image_scope_globals(const Graph *g, char **errmsg) {
  ReverseGraph r = {0};
  int status = 0;
  for (size_t n = g->num_functions; n < g->num_functions + g->num_variables && !status; n++) {
    if (!g->nodes[n].image_scope) continue;
    if (!r.start) r = reverse_graph(g);
    status = check_image_scope_global(g, &r, (uint32_t)n, errmsg);
  }
  free(r.start);
  free(r.from);
  return status;
}

//
// The whole split
//

static void groups_free(Groups *gs) {
  for (size_t i = 0; i < gs->count; i++) {
    Group *group = &gs->items[i];
    free(group->key);
    free(group->order_key);
    free(group->entries);
    free(group->closure);
  }
  free(gs->items);
  strmap_free(&gs->by_key);
}

int split_module(LLVMModuleRef m, const SplitOptions *o, SplitResult *out, char **errmsg) {
  *out = (SplitResult){0};
  *errmsg = NULL;
  // What each kernel and set function reaches in this unit (intel's aspect propagation): the
  // groups and the dummies follow it. The link adds what other units contribute. Not for the
  // post-link front: DPC++ propagates while compiling, and sycl-post-link reads only what the
  // compiler left in !sycl_used_aspects.
  if (!o->post_link) propagate_aspects(m);
  VirtualSets sets = {0};
  virtual_sets_prepare(m, o, &sets);
  // Outlining is for JIT: under AOT the device's aspects are known and nothing is outlined;
  // `none` keeps one image per input.
  bool outline = !o->aot && o->mode != SPLIT_NONE;

  Graph g = {0};
  build_graph(&g, m, &sets, outline);
  Groups gs = {0};
  make_groups(&gs, &g, o, &sets);
  int status = 0;
  if (gs.count == 0) {
    // Nothing to group (no kernel, no SYCL_EXTERNAL function): one image, as it is.
    status = extract_whole_module(m, o, &sets, out, errmsg);
    goto done;
  }
  compute_closures(&g, &gs, o);
  if ((status = check_image_scope_globals(&g, errmsg))) {
    LLVMDisposeModule(m);
    goto done;
  }

  status = extract_images(m, &g, &gs, o, &sets, out, errmsg);
done:
  if (status) split_result_free(out);
  groups_free(&gs);
  graph_free(&g);
  virtual_sets_free(&sets);
  return status;
}

void split_result_free(SplitResult *r) {
  for (size_t i = 0; i < r->count; i++) {
    SplitImage *image = &r->images[i];
    if (!r->entry.data) {
      free(image->bitcode.data);
      free(image->facts.data);
      free(image->symbols.data);
    }
    strlist_free(&image->kernels);
    strlist_free(&image->exported);
    strlist_free(&image->entries);
    free(image->virtual_set);
  }
  free(r->images);
  free(r->entry.data);
  *r = (SplitResult){0};
}
