// Re-grouping over the whole program's facts: images split again where their kernels reach
// different aspects, one virtual-function set's images merged, image-scope globals checked.
// It computes no facts (program.c) and splits no module itself (split.c).
#include "split/split_internal.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Linker.h>

//
// Re-grouping: an image whose kernels reach different aspects is split again by source, its
// kernels first marked with what they reach (as DPC++'s aspect propagation marks them).
//

static bool needs_regroup(const ProgramFacts *p, size_t m) {
  const FactNode *first = NULL;
  for (size_t i = p->first_node[m]; i < p->first_node[m + 1]; i++) {
    const FactNode *n = &p->nodes[i];
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
        char *symbol = symbol_for_message(name);
        error(in->origin, "duplicate symbol: %s\n>>> defined in %s\n>>> defined in %s", symbol,
              inputs->items[list[(prev >> 1) - 1]].origin, in->origin);
        free(symbol);
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
    image.symbols = NULL, image.symbols_size = 0;
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
      int64_t root = program_lookup(p, &own, img->roots.items[r]);
      if (root < 0) continue;
      size_t head = 0, tail = 0;
      uint32_t mark = (uint32_t)(im * 65536 + r + 1); // fresh per walk (wraps harmlessly)
      queue[tail++] = (uint32_t)root;
      stamp[root] = mark;
      while (head < tail) {
        const FactNode *n = &p->nodes[queue[head++]];
        if (n->fact->flags & FACT_IMAGE_SCOPE) {
          const char *name = n->fact->name;
          uintptr_t first = (uintptr_t)strmap_get(&first_image, name);
          char *kernel = kernels_for_message(img->roots.items[r]);
          char *user = format("%s (%s)", kernel, img->origin);
          free(kernel);
          if (!first) {
            strmap_put(&first_image, name, (void *)(uintptr_t)(im + 1));
            strmap_put(&first_user, name, user);
          } else if (first != im + 1) {
            char *prev = strmap_get(&first_user, name), *global = symbol_for_message(name);
            error(img->origin,
                  "device_global variable '%s' with property \"device_image_scope\" is used in "
                  "more than one device image. Reached from: %s, %s",
                  global, prev, user);
            free(global);
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
            const FactNode *next = &p->nodes[to[k]];
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

bool program_regroup(InputSet *inputs, const ProgramFacts *p, const SplitOptions *o, int jobs) {
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
  bool changed = num_todo > 0;
  for (size_t m = 0; m < inputs->count; m++) {
    InputImage *in = &inputs->items[m];
    changed |= rep[m].removed || rep[m].merged.data;
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
  return changed;
}
