// The link-time split stage: every user image not split at compile time is split, in
// parallel across inputs, and replaced by its images. It does not resolve or link anything.
#include "split/split.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

// What the link refuses in a user module, as intel's sycl-post-link does (tool/post_link.c has
// the front's checks): ESIMD code (!sycl_explicit_simd), which DPC++'s -split-esimd and
// -lower-esimd would lower and this tool does not, naming the first ESIMD kernel (else
// function); a kernel asking for both a register allocation mode and a GRF size (intel's
// error: the two are one request, made twice).
static int check_supported(LLVMModuleRef m, char **errmsg) {
  LLVMValueRef esimd = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (global_metadata_node(f, "sycl_explicit_simd") &&
        (!esimd || (is_kernel(f) && !is_kernel(esimd))))
      esimd = f;
    if (LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "sycl-register-alloc-mode",
                                      24) &&
        LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "sycl-grf-size", 13)) {
      *errmsg = format("%s: Unsupported use of both register_alloc_mode and grf_size",
                       LLVMGetValueName2(f, &(size_t){0}));
      return -1;
    }
  }
  if (esimd) {
    *errmsg =
        format("%s '%s' is ESIMD code (!sycl_explicit_simd), which this tool does not "
               "support",
               is_kernel(esimd) ? "kernel" : "function", LLVMGetValueName2(esimd, &(size_t){0}));
    return -1;
  }
  return 0;
}

int split_bitcode(const uint8_t *data, size_t size, const char *name, const SplitOptions *o,
                  SplitResult *out, bool *already_split, char **errmsg) {
  *out = (SplitResult){0};
  *already_split = false;
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  reading_input_begin(name, "bitcode");
  int status = module_parse_verified(ctx, data, size, name, &m, errmsg);
  reading_input_end();
  if (status == 0 && check_supported(m, errmsg)) {
    status = -1;
    LLVMDisposeModule(m);
  } else if (status == 0 && module_is_split(m)) {
    *already_split = true;
    LLVMDisposeModule(m);
  } else if (status == 0) {
    if (o->canonical_triple) set_canonical_triple(m);
    status = split_module(m, o, out, errmsg);
  }
  context_dispose(ctx);
  return status;
}

// KEYS owns every text in it: VALUE is taken, KEY copied.
static void push_key(OffloadString **keys, size_t *count, const char *key, char *value) {
  for (size_t i = 0; i < *count; i++)
    if (!strcmp((*keys)[i].key, key)) {
      free((char *)(*keys)[i].value);
      (*keys)[i].value = value;
      return;
    }
  *keys = xrealloc(*keys, (*count + 1) * sizeof(OffloadString));
  (*keys)[(*count)++] = (OffloadString){xstrdup(key), value};
}

void split_image_keys(const SplitImage *image, SplitMode mode, const OffloadString *input_keys,
                      size_t num_input_keys, OffloadString **keys, size_t *count) {
  *keys = NULL;
  *count = 0;
  for (size_t i = 0; i < num_input_keys; i++)
    push_key(keys, count, input_keys[i].key, xstrdup(input_keys[i].value));
  push_key(keys, count, SPLIT_KEY, xstrdup(split_mode_name(mode)));
  // The kernels, as clang-sycl-linker lists them: names separated by '\n'.
  Buffer symbols = {0};
  for (size_t i = 0; i < image->kernels.count; i++) {
    if (i) buffer_append(&symbols, "\n", 1);
    buffer_append(&symbols, image->kernels.items[i], strlen(image->kernels.items[i]));
  }
  buffer_append(&symbols, "", 1);
  push_key(keys, count, "symbols", (char *)symbols.data);
  if (image->virtual_set) push_key(keys, count, SPLIT_VF_SET_KEY, xstrdup(image->virtual_set));
  if (image->dummy) push_key(keys, count, SPLIT_DUMMY_KEY, xstrdup("1"));
}

typedef struct {
  const InputImage *input;
  SplitResult result;
  bool split; // false: left as it is (library, not bitcode, split before)
  char *error;
  SplitEntryKey *entry; // or NULL
  Buffer file;          // an image without bytes whose entry missed: its file, read here
} SplitJob;

typedef struct {
  SplitJob *jobs;
  const SplitOptions *options;
} SplitStage;

// --cache-dir: a split input's images are reused while its bytes and the split options are
// the same. Entry: a flag "already split", then per image its bitcode, kernels, exports,
// set name ("" for none), dummy flag, facts (module_facts; empty if not asked for) and what
// resolution reads of it (SplitOptions.describe; empty without), each a u64-length record: a
// relink's facts and resolve stages read them here, not from an entry per image.
static void split_key(const InputImage *in, const SplitOptions *o, char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "split v11"); // v11: symbols; v10: facts; v9: no entries for malformed
                                    // SYCL metadata
  cache_hash_string(&h, o->describe ? "symbols" : "");
  char *options = format("mode=%d deps=%d aot=%d triple=%d", o->mode, o->allow_dependencies, o->aot,
                         o->canonical_triple);
  cache_hash_string(&h, options);
  free(options);
  for (size_t i = 0; i < o->aot_aspects.count; i++)
    cache_hash_string(&h, o->aot_aspects.items[i]);
  cache_hash_update(&h, in->data, in->size);
  cache_hash_final(&h, key);
}

static void store_split(const Cache *c, const char *key, bool already, const SplitResult *r) {
  Buffer b = {0};
  uint64_t head[2] = {already, r->count};
  buffer_append(&b, head, sizeof head);
  for (size_t i = 0; i < r->count; i++) {
    const SplitImage *im = &r->images[i];
    record_put(&b, im->bitcode.data, im->bitcode.size);
    record_put_strings(&b, &im->kernels);
    record_put_strings(&b, &im->exported);
    record_put(&b, im->virtual_set ? im->virtual_set : "",
               im->virtual_set ? strlen(im->virtual_set) : 0);
    record_put(&b, &(uint8_t){im->dummy}, 1);
    record_put(&b, im->facts.data ? (const void *)im->facts.data : "", im->facts.size);
    record_put(&b, im->symbols.data ? (const void *)im->symbols.data : "", im->symbols.size);
  }
  cache_store(c, "split", key, &b);
  free(b.data);
}

// The entry read whole becomes the result's: the images' bytes point into it, nothing is
// copied out (a relink reads every unchanged unit's entry, for the bitcode libLTO takes).
static bool load_split(const Cache *c, const char *key, bool *already, SplitResult *r) {
  Buffer b;
  if (cache_get(c, "split", key, &b)) return false;
  uint64_t head[2];
  bool ok = b.size >= sizeof head;
  if (ok) memcpy(head, b.data, sizeof head);
  RecordReader rd = {b.data + sizeof head, b.data + b.size, !ok};
  *r = (SplitResult){.entry = b};
  // Each image takes at least seven records (57 bytes) of the entry: the count is checked
  // against the entry's size before it sizes the array.
  if (ok && head[1] <= (b.size - sizeof head) / 57)
    r->images = xcalloc(head[1] + 1, sizeof(SplitImage));
  for (uint64_t i = 0; ok && r->images && i < head[1] && !rd.bad; i++) {
    SplitImage *im = &r->images[r->count++];
    size_t size;
    const uint8_t *data = record_get(&rd, &size);
    if (data) im->bitcode = (Buffer){(uint8_t *)data, size, false};
    record_get_strings(&rd, &im->kernels);
    record_get_strings(&rd, &im->exported);
    data = record_get(&rd, &size);
    if (data && size) im->virtual_set = xstrndup((const char *)data, size);
    data = record_get(&rd, &size);
    if (data && size == 1) im->dummy = data[0];
    data = record_get(&rd, &size);
    if (data && size) im->facts = (Buffer){(uint8_t *)data, size, false};
    data = record_get(&rd, &size);
    if (data && size) im->symbols = (Buffer){(uint8_t *)data, size, false};
  }
  ok = ok && !rd.bad && (head[1] == 0 || r->images) && r->count == head[1];
  if (ok)
    *already = head[0];
  else
    split_result_free(r);
  return ok;
}

// Runs on a worker thread: touches only job I.
static void split_one(void *arg, size_t i) {
  SplitStage *stage = arg;
  SplitJob *job = &stage->jobs[i];
  const Cache *cache = stage->options->cache;
  bool already_split;
  char key[CACHE_KEY_SIZE];
  const uint8_t *data = job->input->data;
  SplitEntryKey *entry = job->entry;
  if (!data) { // taken from a relink record: its entry, else its bytes from its file
    if (cache && entry && entry->key[0]) {
      memcpy(key, entry->key, CACHE_KEY_SIZE);
      if (load_split(cache, key, &already_split, &job->result)) {
        if (!already_split) {
          job->split = entry->split = true;
          return;
        }
        split_result_free(&job->result); // recorded as split: the entry is not this image's
      }
    }
    int rc = entry && entry->path ? read_file(entry->path, &job->file) : -EINVAL;
    if (rc < 0 || job->file.size < entry->offset ||
        job->file.size - entry->offset < job->input->size) {
      job->error = format("changed while the link read it (%s)",
                          rc < 0 ? read_error_text(rc) : "shorter than recorded");
      return;
    }
    data = job->file.data + entry->offset;
    InputImage in = *job->input;
    in.data = data;
    split_key(&in, stage->options, key);
    if (cache && entry->key[0] && strcmp(key, entry->key)) {
      job->error = xstrdup("changed while the link read it (not the recorded bytes)");
      return;
    }
  } else if (cache) {
    split_key(job->input, stage->options, key);
    if (entry) memcpy(entry->key, key, CACHE_KEY_SIZE);
    if (load_split(cache, key, &already_split, &job->result)) {
      job->split = !already_split;
      if (entry) entry->split = job->split;
      return;
    }
  }
  if (split_bitcode(data, job->input->size, job->input->origin, stage->options,
                    &job->result, &already_split, &job->error) == 0) {
    job->split = !already_split;
    for (size_t k = 0; cache && stage->options->describe && k < job->result.count; k++) {
      SplitImage *im = &job->result.images[k];
      if (stage->options->describe(im->bitcode.data, im->bitcode.size, &im->symbols))
        im->symbols = (Buffer){0}; // resolution reads the image itself
    }
    if (cache) store_split(cache, key, already_split, &job->result);
    if (entry) entry->split = job->split;
  }
  if (!job->split && !job->input->data && !job->error) // kept as it is: it has no bytes
    job->error = xstrdup("changed while the link read it (no longer split)");
}

static bool wants_split(const InputImage *in) {
  if (in->is_library || in->image_kind != IMG_BITCODE) return false;
  for (size_t k = 0; k < in->num_keys; k++)
    if (!strcmp(in->keys[k].key, SPLIT_KEY)) return false;
  return true;
}

static void add_input(InputImage **items, size_t *count, size_t *cap, InputImage image) {
  if (*count == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    *items = xrealloc(*items, *cap * sizeof(InputImage));
  }
  (*items)[(*count)++] = image;
}

void split_inputs(InputSet *inputs, const SplitOptions *o, int jobs, SplitEntryKey *keys) {
  SplitJob *work = xcalloc(inputs->count + 1, sizeof(SplitJob));
  size_t *todo = xmalloc((inputs->count + 1) * sizeof(size_t));
  size_t num_todo = 0;
  for (size_t i = 0; i < inputs->count; i++) {
    work[i].input = &inputs->items[i];
    if (wants_split(&inputs->items[i])) todo[num_todo++] = i;
  }
  SplitJob *batch = xcalloc(num_todo + 1, sizeof(SplitJob));
  for (size_t t = 0; t < num_todo; t++) {
    batch[t].input = &inputs->items[todo[t]];
    batch[t].entry = keys ? &keys[todo[t]] : NULL;
  }
  SplitStage stage = {batch, o};
  parallel_for(num_todo, jobs, split_one, &stage);
  for (size_t t = 0; t < num_todo; t++) {
    if (batch[t].error) error(batch[t].input->origin, "%s", batch[t].error);
    // An image left as it is was read whole and verified here (or by the link that wrote
    // its cache entry): the facts stage reads it without verifying again.
    if (!batch[t].split) inputs->items[todo[t]].verified = true;
    free(batch[t].file.data); // the split images have bytes of their own
    batch[t].file = (Buffer){0};
    work[todo[t]] = batch[t];
  }
  free(batch);
  free(todo);
  exit_on_errors();

  // Published here, on the main thread: each split input is replaced by its images, whose
  // bytes join the input files so that they live as long as the link needs them.
  InputImage *items = NULL;
  size_t count = 0, cap = 0;
  for (size_t i = 0; i < inputs->count; i++) {
    InputImage *in = &inputs->items[i];
    SplitJob *job = &work[i];
    // A set's dummy image is kept like any other: the runtime links it instead of the set on
    // a device without the set's aspects (resolution keeps it apart from the set).
    if (!job->split) {
      add_input(&items, &count, &cap, *in);
      continue;
    }
    note("%s: split into %zu image(s) (%s)", in->origin, job->result.count,
         split_mode_name(o->mode));
    for (size_t k = 0; k < job->result.count; k++) {
      SplitImage *image = &job->result.images[k];
      InputImage out = input_image_derive(in); // messages name the file the image came from
      split_image_keys(image, o->mode, in->keys, in->num_keys, &out.keys, &out.num_keys);
      out.link_ready = o->canonical_triple;
      out.data = image->bitcode.data;
      out.size = image->bitcode.size;
      out.facts = image->facts.data;
      out.facts_size = image->facts.size;
      out.symbols = image->symbols.data;
      out.symbols_size = image->symbols.size;
      // The buffers join the input files: they live as long as the link needs them.
      if (!job->result.entry.data) {
        inputs->files = xrealloc(inputs->files, (inputs->num_files + 3) * sizeof(Buffer));
        inputs->files[inputs->num_files++] = image->bitcode;
        if (image->facts.data) inputs->files[inputs->num_files++] = image->facts;
        if (image->symbols.data) inputs->files[inputs->num_files++] = image->symbols;
      }
      image->bitcode = (Buffer){0};
      image->facts = (Buffer){0};
      image->symbols = (Buffer){0};
      add_input(&items, &count, &cap, out);
    }
    if (job->result.entry.data) { // the images' bytes are the entry's
      inputs->files = xrealloc(inputs->files, (inputs->num_files + 1) * sizeof(Buffer));
      inputs->files[inputs->num_files++] = job->result.entry;
      job->result.entry = (Buffer){0};
    }
    split_result_free(&job->result);
    input_image_free(in); // its bytes stay among the files until they are released
  }
  free(inputs->items);
  inputs->items = items;
  inputs->count = count;
  inputs->cap = cap;
  free(work);
}
