// Early device-code split: entry points grouped per kernel or per source, each group's
// closure over a use graph built once per module, one image per group with a summary.
// It reads and writes no files (split/command.c, split/stage.c) and links nothing.
#include "sycl_thinlto.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>

enum { CC_SPIR_FUNC = 75, CC_SPIR_KERNEL = 76 };

const char *split_mode_name(SplitMode mode) {
  static const char *const names[] = {"kernel", "source", "auto", "none"};
  return names[mode];
}

int split_mode_parse(const char *text, SplitMode *mode) {
  for (int m = SPLIT_KERNEL; m <= SPLIT_NONE; m++)
    if (!strcmp(text, split_mode_name((SplitMode)m))) {
      *mode = (SplitMode)m;
      return 0;
    }
  return -1;
}

//
// Entry points
//

static bool is_kernel(LLVMValueRef f) {
  return LLVMGetFunctionCallConv(f) == CC_SPIR_KERNEL;
}

static bool has_fn_attribute(LLVMValueRef f, const char *name) {
  return LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, name, strlen(name)) != NULL;
}

bool is_split_entry_point(LLVMValueRef f, bool module_ids) {
  if (LLVMIsDeclaration(f)) return false;
  if (is_kernel(f)) return true;
  return is_sycl_external(f, module_ids);
}

bool module_is_split(LLVMModuleRef m) {
  return LLVMGetNamedMetadata(m, SPLIT_MODE_METADATA, strlen(SPLIT_MODE_METADATA)) != NULL;
}

//
// A map from LLVM pointers (values, types) to node numbers
//

typedef struct {
  const void **keys;
  uint32_t *values;
  size_t cap, count;
} PtrMap;

static size_t ptr_hash(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

static void ptrmap_put(PtrMap *m, const void *key, uint32_t value);

static void ptrmap_grow(PtrMap *m) {
  PtrMap bigger = {.cap = m->cap ? m->cap * 2 : 256};
  bigger.keys = xcalloc(bigger.cap, sizeof(void *));
  bigger.values = xcalloc(bigger.cap, sizeof(uint32_t));
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i]) ptrmap_put(&bigger, m->keys[i], m->values[i]);
  free(m->keys);
  free(m->values);
  *m = bigger;
}

static void ptrmap_put(PtrMap *m, const void *key, uint32_t value) {
  if ((m->count + 1) * 2 > m->cap) ptrmap_grow(m);
  size_t i = ptr_hash(key) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key)
    i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->count++;
  m->keys[i] = key;
  m->values[i] = value;
}

static bool ptrmap_get(const PtrMap *m, const void *key, uint32_t *value) {
  if (!m->cap) return false;
  for (size_t i = ptr_hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
    if (m->keys[i] == key) {
      *value = m->values[i];
      return true;
    }
  return false;
}

static void ptrmap_free(PtrMap *m) {
  free(m->keys);
  free(m->values);
}

//
// The use graph: one node per function, variable and alias, plus one per function type
// that is called indirectly. An edge A -> B means "an image with A needs B". Built once per
// module; every group's closure walks it (intel/llvm PR 6689: building it per group made
// 13k kernels take 45 minutes).
//

typedef enum { NODE_FUNCTION, NODE_VARIABLE, NODE_ALIAS, NODE_TYPE } NodeKind;

typedef struct {
  LLVMValueRef value; // in the input module; NULL for a type node
  NodeKind kind;
  bool defined;
  bool kernel;
  bool sycl_external;
  bool exported;      // external linkage definition: only its owner's image keeps it so
  bool everywhere;    // appending variables and aliases: in every image
  bool address_taken; // a function used other than as a direct callee
  bool image_scope;   // a device global with the device_image_scope property
  int virtual_set;    // outlined set it belongs to, or -1
  int group;          // the group it is an entry point of, or -1
  int owner;          // the group whose image keeps its external linkage, or -1
} Node;

typedef struct {
  Node *nodes;
  size_t count, cap;
  size_t num_functions, num_variables, num_aliases; // nodes in this order, then types
  PtrMap index;                                     // value or type -> node
  uint32_t *edge_start;                             // CSR: edges of n are [start[n], start[n+1])
  uint32_t *edge_to;
} Graph;

typedef struct {
  uint32_t *from, *to;
  size_t count, cap;
} EdgeList;

static void add_edge(EdgeList *e, uint32_t from, uint32_t to) {
  if (from == to) return;
  if (e->count == e->cap) {
    e->cap = e->cap ? e->cap * 2 : 1024;
    e->from = xrealloc(e->from, e->cap * sizeof(uint32_t));
    e->to = xrealloc(e->to, e->cap * sizeof(uint32_t));
  }
  e->from[e->count] = from;
  e->to[e->count++] = to;
}

static uint32_t add_node(Graph *g, Node node, const void *key) {
  if (g->count == g->cap) {
    g->cap = g->cap ? g->cap * 2 : 256;
    g->nodes = xrealloc(g->nodes, g->cap * sizeof(Node));
  }
  node.group = node.owner = -1;
  if (node.kind != NODE_TYPE && node.kind != NODE_FUNCTION) node.virtual_set = -1;
  g->nodes[g->count] = node;
  ptrmap_put(&g->index, key, (uint32_t)g->count);
  return (uint32_t)g->count++;
}

static uint32_t node_of(const Graph *g, const void *key) {
  uint32_t n;
  if (!ptrmap_get(&g->index, key, &n)) die("value without a node");
  return n;
}

static bool is_call(LLVMValueRef inst) {
  return LLVMIsACallInst(inst) || LLVMIsAInvokeInst(inst) || LLVMIsACallBrInst(inst);
}

// F is the callee of CALL and not also one of its arguments.
static bool is_direct_callee(LLVMValueRef call, LLVMValueRef f) {
  if (!is_call(call) || LLVMGetCalledValue(call) != f) return false;
  unsigned args = LLVMGetNumArgOperands(call);
  for (unsigned i = 0; i < args; i++)
    if (LLVMGetOperand(call, i) == f) return false;
  return true;
}

// Every global object that uses node TARGET, through instructions, initializers and chains
// of constant expressions, gets an edge to it.
static void add_user_edges(Graph *g, EdgeList *edges, uint32_t target, LLVMValueRef **stack,
                           size_t *stack_cap) {
  size_t depth = 0;
  LLVMValueRef value = g->nodes[target].value;
  bool is_function = g->nodes[target].kind == NODE_FUNCTION;
  for (LLVMUseRef u = LLVMGetFirstUse(value); u; u = LLVMGetNextUse(u)) {
    if (depth == *stack_cap) {
      *stack_cap = *stack_cap ? *stack_cap * 2 : 64;
      *stack = xrealloc(*stack, *stack_cap * sizeof(LLVMValueRef));
    }
    (*stack)[depth++] = LLVMGetUser(u);
  }
  while (depth) {
    LLVMValueRef user = (*stack)[--depth];
    if (LLVMIsAInstruction(user)) {
      LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
      add_edge(edges, node_of(g, fn), target);
      if (is_function && !is_direct_callee(user, value)) g->nodes[target].address_taken = true;
    } else if (LLVMIsAGlobalValue(user)) {
      uint32_t from;
      if (ptrmap_get(&g->index, user, &from)) add_edge(edges, from, target);
      if (is_function) g->nodes[target].address_taken = true;
    } else if (LLVMIsAConstant(user)) {
      if (is_function) g->nodes[target].address_taken = true;
      for (LLVMUseRef u = LLVMGetFirstUse(user); u; u = LLVMGetNextUse(u)) {
        if (depth == *stack_cap) {
          *stack_cap *= 2;
          *stack = xrealloc(*stack, *stack_cap * sizeof(LLVMValueRef));
        }
        (*stack)[depth++] = LLVMGetUser(u);
      }
    }
  }
}

bool is_image_scope_global(LLVMValueRef v) {
  const char *scope, *size;
  size_t len, size_len;
  return bridge_global_attribute(v, "sycl-device-global-size", &size, &size_len) &&
         bridge_global_attribute(v, "sycl-device-image-scope", &scope, &len) &&
         !(len == 5 && !memcmp(scope, "false", 5));
}

static void build_graph(Graph *g, LLVMModuleRef m, const VirtualSets *sets, bool outline) {
  bool module_ids = module_has_module_ids(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    Node node = {.value = f, .kind = NODE_FUNCTION, .defined = !LLVMIsDeclaration(f)};
    node.kernel = node.defined && is_kernel(f);
    node.sycl_external = is_sycl_external(f, module_ids);
    node.exported = node.defined && LLVMGetLinkage(f) == LLVMExternalLinkage;
    node.virtual_set = outline && node.defined ? virtual_set_index(sets, f) : -1;
    add_node(g, node, f);
  }
  g->num_functions = g->count;
  for (LLVMValueRef v = LLVMGetFirstGlobal(m); v; v = LLVMGetNextGlobal(v)) {
    Node node = {.value = v, .kind = NODE_VARIABLE, .defined = !LLVMIsDeclaration(v)};
    node.exported = node.defined && LLVMGetLinkage(v) == LLVMExternalLinkage;
    node.everywhere = LLVMGetLinkage(v) == LLVMAppendingLinkage;
    node.image_scope = is_image_scope_global(v);
    add_node(g, node, v);
  }
  g->num_variables = g->count - g->num_functions;
  for (LLVMValueRef a = LLVMGetFirstGlobalAlias(m); a; a = LLVMGetNextGlobalAlias(a))
    add_node(g, (Node){.value = a, .kind = NODE_ALIAS, .defined = true, .everywhere = true}, a);
  g->num_aliases = g->count - g->num_functions - g->num_variables;

  EdgeList edges = {0};
  LLVMValueRef *stack = NULL;
  size_t stack_cap = 0, num_values = g->count;
  for (uint32_t n = 0; n < num_values; n++)
    add_user_edges(g, &edges, n, &stack, &stack_cap);
  free(stack);

  // An indirect call may reach any function of its type that is address-taken or marked
  // "referenced-indirectly" (DPC++'s device_indirectly_callable, intel's only candidates): the
  // caller needs the type's node, which needs every such function (kernels are never called).
  for (uint32_t n = 0; n < g->num_functions; n++) {
    if (!g->nodes[n].defined) continue;
    LLVMValueRef f = g->nodes[n].value;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
        if (!is_call(i)) continue;
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (LLVMIsAFunction(callee) || LLVMIsAInlineAsm(callee) || LLVMIsAGlobalAlias(callee))
          continue;
        LLVMTypeRef type = LLVMGetCalledFunctionType(i);
        uint32_t t;
        if (!ptrmap_get(&g->index, type, &t))
          t = add_node(g, (Node){.kind = NODE_TYPE, .virtual_set = -1}, type);
        add_edge(&edges, n, t);
      }
  }
  for (uint32_t n = 0; n < g->num_functions; n++) {
    Node *f = &g->nodes[n];
    uint32_t t;
    bool candidate = f->address_taken || has_fn_attribute(f->value, "referenced-indirectly");
    if (candidate && !f->kernel && ptrmap_get(&g->index, LLVMGlobalGetValueType(f->value), &t))
      add_edge(&edges, t, n);
  }

  // Compressed rows: edges of node n are edge_to[edge_start[n] .. edge_start[n + 1]).
  g->edge_start = xcalloc(g->count + 1, sizeof(uint32_t));
  for (size_t e = 0; e < edges.count; e++)
    g->edge_start[edges.from[e] + 1]++;
  for (size_t n = 0; n < g->count; n++)
    g->edge_start[n + 1] += g->edge_start[n];
  g->edge_to = xmalloc((edges.count ? edges.count : 1) * sizeof(uint32_t));
  uint32_t *fill = xmalloc((g->count + 1) * sizeof(uint32_t));
  memcpy(fill, g->edge_start, (g->count + 1) * sizeof(uint32_t));
  for (size_t e = 0; e < edges.count; e++)
    g->edge_to[fill[edges.from[e]]++] = edges.to[e];
  free(fill);
  free(edges.from);
  free(edges.to);
}

static void graph_free(Graph *g) {
  free(g->nodes);
  ptrmap_free(&g->index);
  free(g->edge_start);
  free(g->edge_to);
}

//
// Groups: which entry points share an image
//

typedef struct {
  char *key;
  char *order_key; // intel's category key of its first entry point (SplitOptions.post_link)
  uint32_t *entries;
  size_t num_entries;
  int virtual_set; // an outlined set's group, or -1
  // The closure: node numbers, each with CLOSURE_DECLARED set where the image only
  // declares it.
  uint32_t *closure;
  size_t closure_size, closure_cap;
} Group;

#define CLOSURE_DECLARED 0x80000000u

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

typedef struct {
  Group *items;
  size_t count, cap;
  StrMap by_key;
} Groups;

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
      char *item = format("%s%s (image %d)", users.size ? ", " : "",
                          LLVMGetValueName2(node->value, &(size_t){0}), node->group);
      buffer_append(&users, item, strlen(item));
      free(item);
    }
    for (uint32_t e = r->start[n]; e < r->start[n + 1]; e++)
      if (!seen[r->from[e]]) {
        seen[r->from[e]] = true;
        queue[tail++] = r->from[e];
      }
  }
  buffer_append(&users, "", 1);
  if (several)
    *errmsg = format("device_global variable '%s' with property \"device_image_scope\" is used "
                     "in more than one device image. Reached from: %s",
                     LLVMGetValueName2(g->nodes[target].value, &(size_t){0}), (char *)users.data);
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
// Extraction. Cloning the whole module once per group would cost groups x module size, so
// the groups are bisected: a module reduced to the union of a range of groups is cloned once,
// each copy reduced to one half of the range, down to single groups. Every level together
// holds about one module's worth of code, so the whole costs module size x log(groups).
//

// Positions: the node of every function, variable and alias of a module, in module order
// (LLVMCloneModule keeps the order; deletions are mirrored here).
typedef struct {
  uint32_t *functions, *variables;
  size_t num_functions, num_variables;
} Positions;

static Positions positions_copy(const Positions *p) {
  Positions c = *p;
  c.functions = xmalloc((p->num_functions + 1) * sizeof(uint32_t));
  c.variables = xmalloc((p->num_variables + 1) * sizeof(uint32_t));
  memcpy(c.functions, p->functions, p->num_functions * sizeof(uint32_t));
  memcpy(c.variables, p->variables, p->num_variables * sizeof(uint32_t));
  return c;
}

static void positions_free(Positions *p) {
  free(p->functions);
  free(p->variables);
}

typedef struct {
  Graph *graph;
  Groups *groups;
  const SplitOptions *options;
  const VirtualSets *sets;
  uint32_t *needed;  // per node: stamp of the last range that needs it
  uint32_t *defines; // per node: stamp of the last range that defines it
  uint32_t stamp;
  SplitResult *out;
  char *error;
} Extraction;

// Whether something that stays uses V. A constant expression whose user went away (a
// deleted body, a removed initializer) lives on in the context, unused; it does not count.
static bool has_live_use(LLVMValueRef v, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAConstant(user) || LLVMIsAGlobalValue(user)) return true;
    if (depth > 16 || has_live_use(user, depth + 1)) return true;
  }
  return false;
}

// Deletes GV if nothing that stays uses it; its dead constant users are rebuilt around
// poison first (LLVM destroys a replaced constant). True if deleted.
static bool delete_if_unused(LLVMValueRef gv) {
  if (has_live_use(gv, 0)) return false;
  if (LLVMGetFirstUse(gv)) LLVMReplaceAllUsesWith(gv, LLVMGetPoison(LLVMTypeOf(gv)));
  if (LLVMIsAFunction(gv))
    LLVMDeleteFunction(gv);
  else
    LLVMDeleteGlobal(gv);
  return true;
}

// Definitions a range of groups does not need become declarations, then are deleted once
// nothing uses them; what the range needs only declared loses its body.
static void reduce_module(Extraction *x, LLVMModuleRef m, Positions *p, size_t lo, size_t hi) {
  uint32_t stamp = ++x->stamp;
  for (size_t gi = lo; gi < hi; gi++) {
    const Group *group = &x->groups->items[gi];
    for (size_t i = 0; i < group->closure_size; i++) {
      uint32_t n = group->closure[i] & ~CLOSURE_DECLARED;
      x->needed[n] = stamp;
      if (!(group->closure[i] & CLOSURE_DECLARED)) x->defines[n] = stamp;
    }
  }
  LLVMValueRef *doomed = xmalloc((p->num_functions + p->num_variables + 1) * sizeof(LLVMValueRef));
  size_t num_doomed = 0;
  LLVMValueRef f = LLVMGetFirstFunction(m);
  for (size_t i = 0; i < p->num_functions; i++, f = LLVMGetNextFunction(f)) {
    uint32_t n = p->functions[i];
    if (x->needed[n] != stamp) doomed[num_doomed++] = f;
    if (x->defines[n] != stamp && !LLVMIsDeclaration(f)) bridge_make_declaration(f);
  }
  LLVMValueRef v = LLVMGetFirstGlobal(m);
  for (size_t i = 0; i < p->num_variables; i++, v = LLVMGetNextGlobal(v)) {
    uint32_t n = p->variables[i];
    if (x->needed[n] != stamp) doomed[num_doomed++] = v;
    if (x->defines[n] != stamp && !LLVMIsDeclaration(v)) bridge_make_declaration(v);
  }
  // What is still used (only by other doomed values' leftovers, which the declarations
  // above removed) stays; everything else goes, and the positions follow.
  size_t kept_f = 0, kept_v = 0;
  size_t d = 0;
  f = LLVMGetFirstFunction(m);
  for (size_t i = 0; i < p->num_functions; i++) {
    LLVMValueRef next = LLVMGetNextFunction(f);
    bool is_doomed = d < num_doomed && doomed[d] == f;
    d += is_doomed;
    if (!is_doomed || !delete_if_unused(f)) p->functions[kept_f++] = p->functions[i];
    f = next;
  }
  v = LLVMGetFirstGlobal(m);
  for (size_t i = 0; i < p->num_variables; i++) {
    LLVMValueRef next = LLVMGetNextGlobal(v);
    bool is_doomed = d < num_doomed && doomed[d] == v;
    d += is_doomed;
    if (!is_doomed || !delete_if_unused(v)) p->variables[kept_v++] = p->variables[i];
    v = next;
  }
  p->num_functions = kept_f;
  p->num_variables = kept_v;
  free(doomed);
}

static void internalize(LLVMValueRef gv) {
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMSetVisibility(gv, LLVMDefaultVisibility);
  LLVMSetComdat(gv, NULL);
}

static void export_virtual_function(LLVMValueRef f) {
  LLVMLinkage l = LLVMGetLinkage(f);
  if (l == LLVMExternalLinkage || l == LLVMWeakODRLinkage) return;
  LLVMSetLinkage(f, l == LLVMLinkOnceODRLinkage ? LLVMWeakODRLinkage : LLVMExternalLinkage);
  LLVMSetVisibility(f, LLVMDefaultVisibility);
  LLVMSetComdat(f, NULL);
}

static void add_mark(LLVMModuleRef m, const char *name, const char *text) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMMetadataRef s = LLVMMDStringInContext2(ctx, text, strlen(text));
  LLVMAddNamedMetadataOperand(m, name, LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, &s, 1)));
}

static int write_image(Extraction *x, LLVMModuleRef m, SplitImage *image) {
  char *why;
  if (x->options->emit) {
    if (x->options->emit(x->options->emit_arg, m, image, &why)) {
      x->error = why;
      return -1;
    }
  } else {
    add_mark(m, SPLIT_MODE_METADATA, split_mode_name(x->options->mode));
    if (bridge_write_bitcode_with_summary(m, &image->bitcode, &why)) {
      x->error = why;
      return -1;
    }
    if (x->options->facts) module_facts(m, &image->facts);
  }
  SplitResult *out = x->out;
  out->images = xrealloc(out->images, (out->count + 1) * sizeof(SplitImage));
  out->images[out->count++] = *image;
  return 0;
}

// Deletes declarations that nothing uses any more (as StripDeadPrototypes would) and, with
// LOCALS, local definitions too (the dummy's emptied bodies leave those), until none is left.
// A group's own unused local definitions stay: an indirect call may reach them.
static void delete_dead_globals(LLVMModuleRef m, bool locals) {
  for (bool changed = true; changed;) {
    changed = false;
    for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
      next = LLVMGetNextFunction(f);
      LLVMLinkage l = LLVMGetLinkage(f);
      bool local = locals && (l == LLVMInternalLinkage || l == LLVMPrivateLinkage);
      if ((local || LLVMIsDeclaration(f)) && !is_kernel(f)) changed |= delete_if_unused(f);
    }
    for (LLVMValueRef v = LLVMGetFirstGlobal(m), next; v; v = next) {
      next = LLVMGetNextGlobal(v);
      LLVMLinkage l = LLVMGetLinkage(v);
      bool local = locals && (l == LLVMInternalLinkage || l == LLVMPrivateLinkage);
      if (local || LLVMIsDeclaration(v)) changed |= delete_if_unused(v);
    }
  }
}

// One group's module: linkage fixed up, written; an outlined set using optional features
// also gets its dummy image (not in virtual_by_category mode).
static int finish_group(Extraction *x, LLVMModuleRef m, const Positions *p, size_t gi) {
  const Group *group = &x->groups->items[gi];
  const Graph *g = x->graph;
  SplitImage image = {.virtual_set = group->virtual_set >= 0
                                         ? xstrdup(x->sets->names.items[group->virtual_set])
                                         : NULL};
  LLVMValueRef f = LLVMGetFirstFunction(m);
  for (size_t i = 0; i < p->num_functions; i++, f = LLVMGetNextFunction(f)) {
    const Node *node = &g->nodes[p->functions[i]];
    if (LLVMIsDeclaration(f)) continue;
    const char *name = LLVMGetValueName2(f, &(size_t){0});
    if (node->group == (int)gi) {
      strlist_push(&image.entries, xstrdup(name));
      if (node->kernel) {
        strlist_push(&image.kernels, xstrdup(name));
      } else {
        // Outlined virtual functions are what their image is for: always exported. An inline
        // one (linkonce_odr) stays mergeable with its copies in other units' set images.
        if (node->virtual_set >= 0) export_virtual_function(f);
        LLVMLinkage linkage = LLVMGetLinkage(f);
        if (linkage == LLVMExternalLinkage || linkage == LLVMWeakODRLinkage)
          strlist_push(&image.exported, xstrdup(name));
      }
    } else if (node->exported && node->owner != (int)gi && !x->options->post_link) {
      // A copy of what another image exports: that image is the one others link against.
      internalize(f);
    }
  }
  LLVMValueRef v = LLVMGetFirstGlobal(m);
  for (size_t i = 0; i < p->num_variables; i++, v = LLVMGetNextGlobal(v)) {
    const Node *node = &g->nodes[p->variables[i]];
    if (!LLVMIsDeclaration(v) && node->exported && node->owner != (int)gi && !x->options->post_link)
      internalize(v);
  }

  delete_dead_globals(m, false); // positions are not needed past this point
  // (the post-link front makes sycl-post-link's dummies itself, on the cleaned-up module)
  bool needs_dummy = group->virtual_set >= 0 && !x->options->virtual_by_category &&
                     x->sets->aspects[group->virtual_set].count;
  LLVMModuleRef dummy = needs_dummy ? LLVMCloneModule(m) : NULL;
  if (write_image(x, m, &image)) return -1;
  if (!dummy) return 0;

  SplitImage empty = {.virtual_set = xstrdup(image.virtual_set), .dummy = true};
  for (LLVMValueRef d = LLVMGetFirstFunction(dummy); d; d = LLVMGetNextFunction(d)) {
    if (LLVMIsDeclaration(d) || virtual_set_index(x->sets, d) != group->virtual_set) continue;
    empty_function_body(d);
    strlist_push(&empty.exported, xstrdup(LLVMGetValueName2(d, &(size_t){0})));
    strlist_push(&empty.entries, xstrdup(LLVMGetValueName2(d, &(size_t){0})));
  }
  delete_dead_globals(dummy, true);
  add_mark(dummy, SPLIT_DUMMY_METADATA, empty.virtual_set);
  int status = write_image(x, dummy, &empty);
  LLVMDisposeModule(dummy);
  return status;
}

// M is reduced to the union of groups [lo, hi); takes ownership of M and P.
static int extract_range(Extraction *x, LLVMModuleRef m, Positions *p, size_t lo, size_t hi) {
  int status = 0;
  if (hi - lo == 1) {
    status = finish_group(x, m, p, lo);
  } else {
    size_t mid = lo + (hi - lo) / 2;
    LLVMModuleRef left = LLVMCloneModule(m);
    Positions left_positions = positions_copy(p);
    reduce_module(x, left, &left_positions, lo, mid);
    status = extract_range(x, left, &left_positions, lo, mid);
    if (status == 0) {
      reduce_module(x, m, p, mid, hi);
      status = extract_range(x, m, p, mid, hi);
      return status; // the recursion disposed of M
    }
  }
  LLVMDisposeModule(m);
  positions_free(p);
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
    Extraction x = {.options = o, .sets = &sets, .out = out};
    SplitImage image = {0};
    status = write_image(&x, m, &image);
    *errmsg = x.error;
    LLVMDisposeModule(m);
    goto done;
  }
  compute_closures(&g, &gs, o);
  if ((status = check_image_scope_globals(&g, errmsg))) {
    LLVMDisposeModule(m);
    goto done;
  }

  Positions p = {.functions = xmalloc((g.num_functions + 1) * sizeof(uint32_t)),
                 .variables = xmalloc((g.num_variables + 1) * sizeof(uint32_t)),
                 .num_functions = g.num_functions,
                 .num_variables = g.num_variables};
  for (uint32_t n = 0; n < g.num_functions; n++)
    p.functions[n] = n;
  for (uint32_t n = 0; n < g.num_variables; n++)
    p.variables[n] = (uint32_t)g.num_functions + n;
  Extraction x = {.graph = &g,
                  .groups = &gs,
                  .options = o,
                  .sets = &sets,
                  .needed = xcalloc(g.count, sizeof(uint32_t)),
                  .defines = xcalloc(g.count, sizeof(uint32_t)),
                  .out = out};
  reduce_module(&x, m, &p, 0, gs.count);
  status = extract_range(&x, m, &p, 0, gs.count);
  *errmsg = x.error;
  free(x.needed);
  free(x.defines);
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
    free(image->bitcode.data);
    free(image->facts.data);
    strlist_free(&image->kernels);
    strlist_free(&image->exported);
    strlist_free(&image->entries);
    free(image->virtual_set);
  }
  free(r->images);
  *r = (SplitResult){0};
}
