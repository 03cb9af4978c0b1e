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

#endif
