// The images the SYCL runtime links for one kernel: imported symbols followed to the images
// that export them (seed 000), virtual-function sets (seed 002). It compiles and links nothing.
#include "properties/properties.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// SYCL's aspect numbers: the one table of them (the split, the resolver, inspect and
// --aot-aspects all read it). The runtime's enum, sycl/include/sycl/info/aspects.def in
// intel/llvm (0..81 as its generated device_aspect_macros.hpp lists them; 71 is not listed
// there, and older aspects.def files numbered ext_intel_fpga_task_sequence 61), and the
// deprecated names of aspects_deprecated.def (host, int64_*_atomics, usm_restricted_shared_
// allocations, usm_system_allocator). The first name of a number is the one printed.
static const struct {
  const char *name;
  uint32_t value;
} aspect_names[] = {
    {"host", 0},
    {"cpu", 1},
    {"gpu", 2},
    {"accelerator", 3},
    {"custom", 4},
    {"fp16", 5},
    {"fp64", 6},
    {"int64_base_atomics", 7},
    {"int64_extended_atomics", 8},
    {"image", 9},
    {"online_compiler", 10},
    {"online_linker", 11},
    {"queue_profiling", 12},
    {"usm_device_allocations", 13},
    {"usm_host_allocations", 14},
    {"usm_shared_allocations", 15},
    {"usm_restricted_shared_allocations", 16},
    {"usm_system_allocations", 17},
    {"usm_system_allocator", 17},
    {"ext_intel_pci_address", 18},
    {"ext_intel_gpu_eu_count", 19},
    {"ext_intel_gpu_eu_simd_width", 20},
    {"ext_intel_gpu_slices", 21},
    {"ext_intel_gpu_subslices_per_slice", 22},
    {"ext_intel_gpu_eu_count_per_subslice", 23},
    {"ext_intel_max_mem_bandwidth", 24},
    {"ext_intel_mem_channel", 25},
    {"usm_atomic_host_allocations", 26},
    {"usm_atomic_shared_allocations", 27},
    {"atomic64", 28},
    {"ext_intel_device_info_uuid", 29},
    {"ext_oneapi_srgb", 30},
    {"ext_oneapi_native_assert", 31},
    {"host_debuggable", 32},
    {"ext_intel_gpu_hw_threads_per_eu", 33},
    {"ext_oneapi_cuda_async_barrier", 34},
    {"ext_oneapi_bfloat16_math_functions", 35},
    {"ext_intel_free_memory", 36},
    {"ext_intel_device_id", 37},
    {"ext_intel_memory_clock_rate", 38},
    {"ext_intel_memory_bus_width", 39},
    {"emulated", 40},
    {"ext_intel_legacy_image", 41},
    {"ext_oneapi_bindless_images", 42},
    {"ext_oneapi_bindless_images_shared_usm", 43},
    {"ext_oneapi_bindless_images_1d_usm", 44},
    {"ext_oneapi_bindless_images_2d_usm", 45},
    {"ext_oneapi_interop_memory_import", 46},
    {"ext_oneapi_interop_memory_export", 47},
    {"ext_oneapi_interop_semaphore_import", 48},
    {"ext_oneapi_interop_semaphore_export", 49},
    {"ext_oneapi_mipmap", 50},
    {"ext_oneapi_mipmap_anisotropy", 51},
    {"ext_oneapi_mipmap_level_reference", 52},
    {"ext_intel_esimd", 53},
    {"ext_oneapi_ballot_group", 54},
    {"ext_oneapi_fixed_size_group", 55},
    {"ext_oneapi_opportunistic_group", 56},
    {"ext_oneapi_tangle_group", 57},
    {"ext_intel_matrix", 58},
    {"ext_oneapi_is_composite", 59},
    {"ext_oneapi_is_component", 60},
    {"ext_oneapi_graph", 61},
    {"ext_intel_fpga_task_sequence", 62},
    {"ext_oneapi_limited_graph", 63},
    {"ext_oneapi_private_alloca", 64},
    {"ext_oneapi_cubemap", 65},
    {"ext_oneapi_cubemap_seamless_filtering", 66},
    {"ext_oneapi_bindless_sampled_image_fetch_1d_usm", 67},
    {"ext_oneapi_bindless_sampled_image_fetch_1d", 68},
    {"ext_oneapi_bindless_sampled_image_fetch_2d_usm", 69},
    {"ext_oneapi_bindless_sampled_image_fetch_2d", 70},
    {"ext_oneapi_bindless_sampled_image_fetch_3d", 72},
    {"ext_oneapi_queue_profiling_tag", 73},
    {"ext_oneapi_virtual_mem", 74},
    {"ext_oneapi_cuda_cluster_group", 75},
    {"ext_oneapi_image_array", 76},
    {"ext_oneapi_unique_addressing_per_dim", 77},
    {"ext_oneapi_bindless_images_sample_1d_usm", 78},
    {"ext_oneapi_bindless_images_sample_2d_usm", 79},
    {"ext_oneapi_atomic16", 80},
    {"ext_oneapi_virtual_functions", 81},
};

int aspect_value(const char *name, uint32_t *value) {
  for (size_t i = 0; i < sizeof aspect_names / sizeof *aspect_names; i++)
    if (!strcmp(aspect_names[i].name, name)) {
      *value = aspect_names[i].value;
      return 0;
    }
  char *end;
  unsigned long v = strtoul(name, &end, 10);
  if (!*name || *end || name[0] == '-' || v > UINT32_MAX) return -1;
  *value = (uint32_t)v;
  return 0;
}

const char *aspect_name(uint32_t value) {
  for (size_t i = 0; i < sizeof aspect_names / sizeof *aspect_names; i++)
    if (aspect_names[i].value == value) return aspect_names[i].name;
  return NULL;
}

//
// What an image says about itself
//

static const PropertySet *image_set(const ResolverImage *img, const char *set) {
  return img->properties ? propsets_find_set(img->properties, set) : NULL;
}

// A string-valued property as a NUL-terminated copy, or NULL.
static char *string_property(const ResolverImage *img, const char *set, const char *name) {
  const Property *p = img->properties ? propsets_find(img->properties, set, name) : NULL;
  if (!p || p->type != PROP_BYTES) return NULL;
  return xstrndup((const char *)p->bytes.data, p->bytes.size);
}

static bool is_dummy(const ResolverImage *img) {
  const Property *p = img->properties
                          ? propsets_find(img->properties, "SYCL/virtual functions", "dummy-image")
                          : NULL;
  return p && p->type == PROP_UINT32 && p->u32;
}

static bool exports(const ResolverImage *img, const char *symbol) {
  const PropertySet *s = image_set(img, "SYCL/exported symbols");
  for (size_t i = 0; s && i < s->count; i++)
    if (!strcmp(s->props[i].name, symbol)) return true;
  return false;
}

// Whether the comma-separated LIST names SET.
static bool list_names(const char *list, const char *set) {
  size_t n = strlen(set);
  for (const char *p = list; p && *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && !strncmp(p, set, n)) return true;
    p += len + (p[len] == ',');
  }
  return false;
}

static bool device_supports(const ResolverImage *img, const uint32_t *aspects, size_t count) {
  const Property *p = img->properties
                          ? propsets_find(img->properties, "SYCL/device requirements", "aspects")
                          : NULL;
  if (!p || p->type != PROP_BYTES) return true;
  for (size_t i = 0; i + 4 <= p->bytes.size; i += 4) {
    const uint8_t *b = p->bytes.data + i;
    uint32_t needed = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
    bool found = false;
    for (size_t k = 0; k < count && !found; k++)
      found = aspects[k] == needed;
    if (!found) return false;
  }
  return true;
}

//
// The collection
//

typedef struct {
  const ResolverImage *images;
  size_t count;
  bool *taken;
  size_t *order, num_taken;
  Buffer unresolved; // "a, b, c"
  Buffer problems;   // other failures, one per line
  ResolverNaming *naming;
} Collection;

static char *shown_name(const Collection *c, const char *symbol, bool kernel) {
  return c->naming ? c->naming(symbol, kernel) : xstrdup(symbol);
}

static void take(Collection *c, size_t i) {
  if (c->taken[i]) return;
  c->taken[i] = true;
  c->order[c->num_taken++] = i;
}

static void append_item(Buffer *b, const char *sep, const char *text) {
  if (b->size) buffer_append(b, sep, strlen(sep));
  buffer_append(b, text, strlen(text));
}

// Seed 000: for the first import no taken image exports, the first image of the same format
// that exports it is taken; the loop goes on until every import is resolved or known missing.
static void follow_imports(Collection *c, size_t from) {
  const ResolverImage *img = &c->images[from];
  const PropertySet *imports = image_set(img, "SYCL/imported symbols");
  for (size_t s = 0; imports && s < imports->count; s++) {
    const char *symbol = imports->props[s].name;
    bool resolved = false;
    for (size_t k = 0; k < c->num_taken && !resolved; k++)
      resolved = c->images[c->order[k]].image_kind == img->image_kind &&
                 exports(&c->images[c->order[k]], symbol);
    for (size_t i = 0; i < c->count && !resolved; i++)
      if (i != from && c->images[i].image_kind == img->image_kind &&
          exports(&c->images[i], symbol)) {
        take(c, i);
        resolved = true;
      }
    if (!resolved) {
      char *shown = shown_name(c, symbol, false);
      char *item = format("%s (imported by %s)", shown, img->name);
      append_item(&c->unresolved, ", ", item);
      free(item);
      free(shown);
    }
  }
}

// Seed 002. uses-virtual-functions-set (intel's name for the seed's calls-virtual-functions-set,
// still read from images written before): every real image of those sets (the kernel asserts
// the device supports them; their dummies would define the same functions again).
// creates-virtual-functions-set: each real image of the set if the device has its aspects,
// otherwise the set's dummy image.
static void follow_virtual_functions(Collection *c, size_t from, const uint32_t *aspects,
                                     size_t num_aspects) {
  const ResolverImage *img = &c->images[from];
  char *calls = string_property(img, "SYCL/virtual functions", "uses-virtual-functions-set");
  if (!calls) calls = string_property(img, "SYCL/virtual functions", "calls-virtual-functions-set");
  char *creates = string_property(img, "SYCL/virtual functions", "creates-virtual-functions-set");
  for (size_t i = 0; i < c->count; i++) {
    const ResolverImage *cand = &c->images[i];
    if (i == from || cand->image_kind != img->image_kind || is_dummy(cand)) continue;
    char *set = string_property(cand, "SYCL/virtual functions", "virtual-functions-set");
    if (!set) continue;
    if (calls && list_names(calls, set)) {
      take(c, i);
    } else if (creates && list_names(creates, set)) {
      if (device_supports(cand, aspects, num_aspects)) {
        take(c, i);
      } else {
        bool found = false;
        for (size_t d = 0; d < c->count && !found; d++) {
          char *dset =
              string_property(&c->images[d], "SYCL/virtual functions", "virtual-functions-set");
          if (dset && !strcmp(dset, set) && is_dummy(&c->images[d]) &&
              c->images[d].image_kind == img->image_kind) {
            take(c, d);
            found = true;
          }
          free(dset);
        }
        if (!found) {
          char *line = format("the device lacks aspects of virtual-functions set %s (image %s) "
                              "and no dummy image of that set exists",
                              set, cand->name);
          append_item(&c->problems, "\n", line);
          free(line);
        }
      }
    }
    free(set);
  }
  free(calls);
  free(creates);
}

// What an image defines, for the persistent-cache order of seed 000: its kernels and exported
// symbols, sorted; a virtual-functions image is named by its set (and whether it is a dummy).
static char *defined_names(const ResolverImage *img) {
  StringList names = {0};
  for (size_t i = 0; img->symbols && i < img->symbols->count; i++)
    strlist_push(&names, xstrdup(img->symbols->items[i]));
  const PropertySet *exported = image_set(img, "SYCL/exported symbols");
  for (size_t i = 0; exported && i < exported->count; i++)
    strlist_push(&names, xstrdup(exported->props[i].name));
  char *set = string_property(img, "SYCL/virtual functions", "virtual-functions-set");
  if (set)
    strlist_push(&names, format("virtual-functions-set=%s%s", set, is_dummy(img) ? " dummy" : ""));
  free(set);
  for (size_t i = 1; i < names.count; i++) // insertion sort: a handful of names
    for (size_t j = i; j > 0 && strcmp(names.items[j - 1], names.items[j]) > 0; j--) {
      char *t = names.items[j];
      names.items[j] = names.items[j - 1];
      names.items[j - 1] = t;
    }
  Buffer b = {0};
  for (size_t i = 0; i < names.count; i++) {
    append_item(&b, ",", names.items[i]);
    free(names.items[i]);
  }
  buffer_append(&b, "", 1);
  free(names.items);
  return (char *)b.data;
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *cache_key_of(const Collection *c) {
  char **keys = xcalloc(c->num_taken, sizeof *keys);
  for (size_t i = 0; i < c->num_taken; i++)
    keys[i] = defined_names(&c->images[c->order[i]]);
  qsort(keys, c->num_taken, sizeof *keys, compare_strings);
  uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the sorted strings, each NUL-terminated
  for (size_t i = 0; i < c->num_taken; i++) {
    for (const char *p = keys[i];; p++) {
      h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
      if (!*p) break;
    }
    free(keys[i]);
  }
  free(keys);
  return format("%016llx", (unsigned long long)h);
}

int resolve_kernel_images(const ResolverImage *images, size_t count, const char *kernel,
                          const StringList *device_aspects, ResolverNaming *naming,
                          size_t **chosen, size_t *num_chosen, char **cache_key, char **errmsg) {
  *chosen = NULL;
  *num_chosen = 0;
  *cache_key = NULL;
  *errmsg = NULL;
  size_t num_aspects = device_aspects ? device_aspects->count : 0;
  uint32_t *aspects = xcalloc(num_aspects, sizeof *aspects);
  for (size_t i = 0; i < num_aspects; i++)
    if (aspect_value(device_aspects->items[i], &aspects[i])) {
      *errmsg = format("unknown aspect '%s'", device_aspects->items[i]);
      free(aspects);
      return -1;
    }

  size_t start = count;
  for (size_t i = 0; i < count && start == count; i++)
    if (images[i].symbols && strlist_contains(images[i].symbols, kernel) && !is_dummy(&images[i]))
      start = i;
  if (start == count) {
    *errmsg = format("no image defines kernel '%s'", kernel);
    free(aspects);
    return -1;
  }

  Collection c = {.images = images, .count = count, .naming = naming};
  c.taken = xcalloc(count, sizeof *c.taken);
  c.order = xcalloc(count, sizeof *c.order);
  take(&c, start);
  // Images taken later are followed in turn: their imports and sets count too.
  for (size_t k = 0; k < c.num_taken; k++) {
    follow_imports(&c, c.order[k]);
    follow_virtual_functions(&c, c.order[k], aspects, num_aspects);
  }
  free(aspects);
  free(c.taken);

  if (c.unresolved.size || c.problems.size) {
    Buffer msg = {0};
    char *shown_kernel = shown_name(&c, kernel, true);
    if (c.unresolved.size) {
      buffer_append(&c.unresolved, "", 1);
      char *line = format("kernel '%s': unresolved imported symbol(s): %s", shown_kernel,
                          (char *)c.unresolved.data);
      append_item(&msg, "\n", line);
      free(line);
    }
    if (c.problems.size) {
      buffer_append(&c.problems, "", 1);
      char *line = format("kernel '%s': %s", shown_kernel, (char *)c.problems.data);
      append_item(&msg, "\n", line);
      free(line);
    }
    buffer_append(&msg, "", 1);
    *errmsg = (char *)msg.data;
    free(shown_kernel);
    free(c.unresolved.data);
    free(c.problems.data);
    free(c.order);
    return -1;
  }
  *cache_key = cache_key_of(&c);
  *chosen = c.order;
  *num_chosen = c.num_taken;
  return 0;
}
