// Extraction: the module cut into one image per group by bisection, each image written with
// a summary (or handed to the split's consumer). It decides no groups and no closures.
#include "split/split_internal.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>

// The mode names: what the !sycl-split mark and the sycl-split key say.
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
      make_internal(f);
    }
  }
  LLVMValueRef v = LLVMGetFirstGlobal(m);
  for (size_t i = 0; i < p->num_variables; i++, v = LLVMGetNextGlobal(v)) {
    const Node *node = &g->nodes[p->variables[i]];
    if (!LLVMIsDeclaration(v) && node->exported && node->owner != (int)gi && !x->options->post_link)
      make_internal(v);
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

int extract_images(LLVMModuleRef m, Graph *g, Groups *gs, const SplitOptions *o,
                   const VirtualSets *sets, SplitResult *out, char **errmsg) {
  Positions p = {.functions = xmalloc((g->num_functions + 1) * sizeof(uint32_t)),
                 .variables = xmalloc((g->num_variables + 1) * sizeof(uint32_t)),
                 .num_functions = g->num_functions,
                 .num_variables = g->num_variables};
  for (uint32_t n = 0; n < g->num_functions; n++)
    p.functions[n] = n;
  for (uint32_t n = 0; n < g->num_variables; n++)
    p.variables[n] = (uint32_t)g->num_functions + n;
  Extraction x = {.graph = g,
                  .groups = gs,
                  .options = o,
                  .sets = sets,
                  .needed = xcalloc(g->count, sizeof(uint32_t)),
                  .defines = xcalloc(g->count, sizeof(uint32_t)),
                  .out = out};
  reduce_module(&x, m, &p, 0, gs->count);
  int status = extract_range(&x, m, &p, 0, gs->count);
  *errmsg = x.error;
  free(x.needed);
  free(x.defines);
  return status;
}

int extract_whole_module(LLVMModuleRef m, const SplitOptions *o, const VirtualSets *sets,
                         SplitResult *out, char **errmsg) {
  Extraction x = {.options = o, .sets = sets, .out = out};
  SplitImage image = {0};
  int status = write_image(&x, m, &image);
  *errmsg = x.error;
  LLVMDisposeModule(m);
  return status;
}
