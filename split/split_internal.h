// Inside split/ only (the layer check refuses it elsewhere): the use graph (graph.c), the
// groups split.c makes on it, and the extraction of their images (extract.c).
#ifndef SYCL_THINLTO_SPLIT_INTERNAL_H
#define SYCL_THINLTO_SPLIT_INTERNAL_H

#include "split/split.h"

#include <string.h>

static inline bool has_fn_attribute(LLVMValueRef f, const char *name) {
  return LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, name, strlen(name)) != NULL;
}

// A map from LLVM pointers (values, types) to node numbers.
typedef struct {
  const void **keys;
  uint32_t *values;
  size_t cap, count;
} PtrMap;

// The use graph: one node per function, variable and alias, plus one per function type
// that is called indirectly. An edge A -> B means "an image with A needs B".
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

// split/graph.c: builds M's graph once (every group's closure walks it); OUTLINE: the sets'
// functions live in images of their own.
void build_graph(Graph *g, LLVMModuleRef m, const VirtualSets *sets, bool outline);
void graph_free(Graph *g);

// split/split.c: the groups, which entry points share an image, and each one's closure.
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

typedef struct {
  Group *items;
  size_t count, cap;
  StrMap by_key;
} Groups;

// split/extract.c: M (consumed) cut into one image per group of GS, appended to OUT. 0, or -1
// with *errmsg.
int extract_images(LLVMModuleRef m, Graph *g, Groups *gs, const SplitOptions *o,
                   const VirtualSets *sets, SplitResult *out, char **errmsg);
// M (consumed) as one image, for a module with nothing to group.
int extract_whole_module(LLVMModuleRef m, const SplitOptions *o, const VirtualSets *sets,
                         SplitResult *out, char **errmsg);

// split/program.c: the whole program's facts, shared with the regrouping (regroup.c).
enum { FACT_FUNCTION = 1, FACT_LOCAL = 2, FACT_KERNEL = 4, FACT_IMAGE_SCOPE = 8 };
typedef struct {
  char *name;
  uint8_t flags;
  char *set;              // its "indirectly-callable" set, or NULL
  StringList aspects;     // its own: sycl_used_aspects, and double/half in its body
  StringList declared;    // its sycl_declared_aspects
  StringList calls;       // functions it calls directly
  StringList sets_called; // its "calls-indirectly" sets
  StringList uses;        // other globals it refers to (address-taken functions, variables)
} GlobalFact;

typedef struct {
  GlobalFact *items;
  size_t count, cap;
  bool dummy; // a set's dummy image: it stands in for the set, it reaches nothing
} ModuleFacts;

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
  Aspects declared, declared_reach; // sycl_declared_aspects: its own, and those it reaches
} FactNode;

struct ProgramFacts {
  ModuleFacts *modules; // per input image at the time the facts were read
  size_t num_modules;
  FactNode *nodes;
  size_t num_nodes;
  size_t *first_node; // per module: its nodes are [first_node[m], first_node[m + 1])
  StrMap external;    // name -> node + 1 of the first external definition
  StringList aspect_names;
  StringList set_names;
  Aspects *set_reach;
  bool any_image_scope;
  // Read back from a relink's record (program_facts_restore): no modules or nodes, only
  // what each external name reaches (EXTERNAL maps it to its index + 1 here).
  StringList *kept_aspects, *kept_declared;
  size_t num_kept;
};

// A and B name the same aspects.
bool aspects_equal(Aspects a, Aspects b);
bool is_local_linkage(LLVMValueRef gv); // internal or private
// The node NAME denotes in a module whose own definitions are OWN: its own definition, else
// the external one; -1 if none.
int64_t program_lookup(const ProgramFacts *p, const StrMap *own, const char *name);
// Marks the kernels of module M (and with SETS its set functions) in MOD with the aspects
// they reach in the whole program.
void mark_reached_aspects(const ProgramFacts *p, size_t m, LLVMModuleRef mod, bool sets);
bool wants_facts(const InputImage *in); // a user image of bitcode: the facts read it

#endif
