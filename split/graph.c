// The use graph of one module: a node per function, variable, alias and indirectly called
// function type, an edge per "an image with A needs B". It groups and extracts nothing.
#include "split/split_internal.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>

//
// A map from LLVM pointers (values, types) to node numbers
//

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

void build_graph(Graph *g, LLVMModuleRef m, const VirtualSets *sets, bool outline) {
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

void graph_free(Graph *g) {
  free(g->nodes);
  ptrmap_free(&g->index);
  free(g->edge_start);
  free(g->edge_to);
}
