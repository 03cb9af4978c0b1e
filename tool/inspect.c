// `sycl-thinlto inspect`: prints the device images read_input_file finds, as text or JSON.
// It reads a bitcode image's kernels when no "symbols" key lists them; it links nothing.
#include "tool/tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "OVERVIEW: print the SYCL device images found in files: their kernels, SYCL_EXTERNAL\n"
    "exports and imports, required aspects and property sets\n"
    "\n"
    "USAGE: sycl-thinlto inspect [options] FILE...\n"
    "\n"
    "FILE may be LLVM bitcode, an OffloadBinary, an ELF object with a .llvm.offloading\n"
    "section, a static archive of these, or a linked executable or shared library: the\n"
    "images it registers with the SYCL runtime (through sycl-thinlto's wrapper or clang's).\n"
    "A SYCLBIN file (the linker-wrapper mode's --syclbin=) is listed as its entries: the\n"
    "state, each abstract module's property sets (.prop text) and its images.\n"
    "\n"
    "OPTIONS:\n"
    "  --json    print one JSON document: {\"images\": [...]}\n"
    "  --prop    print each image's property sets in intel's .prop text (as sycl-post-link\n"
    "            writes them); with several images each starts with a line '# FILE'\n"
    "  --resolve=KERNEL  print the images the SYCL runtime links to run KERNEL (imported\n"
    "            symbols, virtual-function sets) and a cache key for that set; KERNEL is its\n"
    "            mangled name (_ZTS5Scale) or its name in the source (Scale, ns::Scale);\n"
    "            with --json as {\"kernel\": ..., \"images\": [{\"file\": ...}], \"cache_key\": ...}\n"
    "  --aspects=A,B,... the device's aspects for --resolve: names as the SYCL runtime's\n"
    "            aspect enum has them (fp64, fp16, ...) or their numbers\n"
    "  --no-demangle  name symbols in --resolve's errors as mangled only (--demangle: as\n"
    "            written, then mangled; the default)\n"
    "  -v        say on stderr which images are skipped and why\n"
    "  --help    print this help\n";

// Keys printed on lines of their own rather than among the other keys.
static bool is_shown_apart(const char *key) {
  return !strcmp(key, "triple") || !strcmp(key, "arch") || !strcmp(key, "symbols") ||
         !strcmp(key, "properties");
}

static const char *image_key(const InputImage *image, const char *key) {
  // Like offload_entry_get: the last of duplicate keys wins.
  for (size_t i = image->num_keys; i-- > 0;)
    if (!strcmp(image->keys[i].key, key)) return image->keys[i].value;
  return NULL;
}

static int compare_keys(const void *a, const void *b) {
  const OffloadString *x = *(const OffloadString *const *)a, *y = *(const OffloadString *const *)b;
  int c = strcmp(x->key, y->key);
  // Ties keep file order, so the last of duplicates can be found after sorting.
  return c ? c : (x < y ? -1 : x > y);
}

// The keys not shown apart, sorted by name, the last of duplicates only. *count set.
static const OffloadString **other_keys(const InputImage *image, size_t *count) {
  const OffloadString **sorted = xcalloc(image->num_keys, sizeof *sorted);
  size_t n = 0;
  for (size_t i = 0; i < image->num_keys; i++)
    if (!is_shown_apart(image->keys[i].key)) sorted[n++] = &image->keys[i];
  qsort(sorted, n, sizeof *sorted, compare_keys);
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    if (i + 1 < n && !strcmp(sorted[i]->key, sorted[i + 1]->key)) continue;
    sorted[kept++] = sorted[i];
  }
  *count = kept;
  return sorted;
}

//
// What inspect shows of an image beside its keys: its kernels, its SYCL_EXTERNAL exports and
// imports, the aspects it requires.
//

typedef struct {
  StringList kernels;      // the "symbols" key, or a bitcode module's kernels
  StringList exports;      // SYCL/exported symbols, or a module's SYCL_EXTERNAL definitions
  StringList imports;      // SYCL/imported symbols, or a module's importable declarations
  PropertySets properties; // decoded from the "properties" key (empty without one)
  bool has_aspects;        // SYCL/device requirements has "aspects"
  StringList aspects;      // its values by name ("fp64"), or the number when unnamed
} ImageFacts;

static void set_names(const PropertySets *p, const char *set, StringList *out) {
  const PropertySet *s = propsets_find_set(p, set);
  for (size_t i = 0; s && i < s->count; i++)
    strlist_push(out, xstrdup(s->props[i].name));
}

// A bitcode image without a "symbols" key: its kernels, and without property sets its
// SYCL_EXTERNAL definitions and the declarations it would import.
static void bitcode_facts(const InputImage *image, ImageFacts *out) {
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  char *why;
  // Whole and verified, as a link reads it: inspect says what a link would make of it.
  reading_input_begin(image->origin, "bitcode");
  if (module_parse_verified(ctx, image->data, image->size, image->origin, &m, &why))
    fatal(image->origin, "%s", why);
  bool module_ids = module_has_module_ids(m);
  bool from_module = !image_key(image, "properties");
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    StringList *list = NULL;
    if (!LLVMIsDeclaration(f) && is_kernel(f))
      list = &out->kernels;
    else if (!from_module)
      list = NULL;
    else if (!LLVMIsDeclaration(f) && is_sycl_external(f, module_ids))
      list = &out->exports;
    else if (LLVMIsDeclaration(f) && is_importable_declaration(f, module_ids))
      list = &out->imports;
    if (list) strlist_push(list, xstrndup(name, len));
  }
  LLVMDisposeModule(m);
  reading_input_end();
  context_dispose(ctx);
}

// STRICT (--prop, --resolve, which need the sets): property sets that do not decode are an
// error; listing the images, a warning, and the key is shown as it is.
static void image_facts(const InputImage *image, ImageFacts *out, bool strict) {
  *out = (ImageFacts){0};
  const char *json = image_key(image, "properties");
  char *why;
  if (json && propsets_from_json(json, &out->properties, &why)) {
    if (strict) fatal(image->origin, "invalid properties: %s", why);
    warning(image->origin, "invalid properties: %s", why);
    free(why);
  }
  // A kernel list: the "symbols" key (names separated by '\n', empty ones skipped), or for
  // bitcode without one (clang++ -fsycl -c, bare modules) the module's spir_kernel definitions.
  const char *s = image_key(image, "symbols");
  for (; s && *s;) {
    size_t len = strcspn(s, "\n");
    if (len) strlist_push(&out->kernels, xstrndup(s, len));
    s += len + (s[len] == '\n');
  }
  bool want_kernels = !image_key(image, "symbols");
  if (image->image_kind == IMG_BITCODE && want_kernels) bitcode_facts(image, out);
  set_names(&out->properties, "SYCL/exported symbols", &out->exports);
  set_names(&out->properties, "SYCL/imported symbols", &out->imports);
  const Property *a = propsets_find(&out->properties, "SYCL/device requirements", "aspects");
  if (a && a->type == PROP_BYTES) {
    out->has_aspects = true;
    for (size_t i = 0; i + 4 <= a->bytes.size; i += 4) {
      const uint8_t *b = a->bytes.data + i;
      uint32_t v = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
      const char *name = aspect_name(v);
      strlist_push(&out->aspects, name ? xstrdup(name) : format("%u", (unsigned)v));
    }
  }
}

static void image_facts_free(ImageFacts *f) {
  strlist_free(&f->kernels);
  strlist_free(&f->exports);
  strlist_free(&f->imports);
  strlist_free(&f->aspects);
  propsets_free(&f->properties);
}

//
// Text
//

// Everything printed is one line of valid UTF-8: a line break is \n, a backslash \\, other
// control bytes and each byte that begins no valid UTF-8 sequence \xNN (so a terminal shows
// what is there, and a name cannot forge a line of its own).
static void print_text_value(const char *text, size_t len) {
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < len;) {
    unsigned char c = s[i];
    size_t n = utf8_sequence_length(s + i, len - i);
    if (c == '\n')
      fputs("\\n", stdout);
    else if (c == '\\')
      fputs("\\\\", stdout);
    else if (c < 0x20 || c == 0x7f || !n)
      printf("\\x%02x", c);
    else
      fwrite(s + i, 1, n, stdout);
    i += n ? n : 1;
  }
}

static void print_text(const char *s) {
  print_text_value(s, strlen(s));
}

static void print_text_field(const char *label, const char *value) {
  printf("  %s:", label);
  if (value && *value) {
    putchar(' ');
    print_text(value);
  }
  putchar('\n');
}

// "  LABEL: shared_helper(int) (_Z13shared_helperi)", one line per name.
static void print_names(const char *label, const StringList *names, bool kernels) {
  for (size_t i = 0; i < names->count; i++) {
    const char *name = names->items[i];
    char *shown = kernels ? kernel_source_name(name) : symbol_for_message(name);
    printf("  %s: ", label);
    print_text(shown);
    if (kernels && strcmp(shown, name)) {
      fputs(" (", stdout);
      print_text(name);
      putchar(')');
    }
    putchar('\n');
    free(shown);
  }
}

// Native code for an Intel GPU, compiled ahead of time (issue 33): intel's spir64_gen triple,
// ImageKind Object (intel's runtime reads it as its native format), the device as arch.
static bool is_native_image(const InputImage *image) {
  const char *triple = image_key(image, "triple");
  return image->image_kind == IMG_OBJECT && triple && !strncmp(triple, "spir64_gen", 10);
}

static void print_image_text(const InputImage *image, const ImageFacts *facts) {
  print_text(image->origin);
  printf(": %s\n", image_kind_name(image->image_kind));
  print_text_field("triple", image->triple);
  const char *file_triple = image_key(image, "triple");
  if (file_triple && strcmp(file_triple, image->triple)) {
    // Canonicalized for the link (spir64* -> spirv64); say what the file had.
    print_text_field("file triple", file_triple);
  }
  print_text_field("arch", image->arch);
  if (is_native_image(image)) {
    printf("  format: native (Intel GPU binary, ocloc)\n");
    print_text_field("device", image->arch);
  }
  printf("  size: %zu\n", image->size);
  print_names("kernel", &facts->kernels, true);
  print_names("export", &facts->exports, false);
  print_names("import", &facts->imports, false);
  if (facts->has_aspects) {
    char *list = strlist_join(&facts->aspects, ", ");
    print_text_field("aspects", *list ? list : "none");
    free(list);
  }
  printf("  symbols:");
  for (size_t i = 0; i < facts->kernels.count; i++) {
    putchar(' ');
    print_text(facts->kernels.items[i]);
  }
  putchar('\n');
  const char *properties = image_key(image, "properties");
  if (properties) print_text_field("properties", properties);
  size_t count;
  const OffloadString **keys = other_keys(image, &count);
  for (size_t i = 0; i < count; i++) {
    fputs("  key ", stdout);
    print_text(keys[i]->key);
    fputs(": ", stdout);
    print_text(keys[i]->value);
    putchar('\n');
  }
  free(keys);
}

//
// JSON (jansson; every string valid UTF-8, see base/json.c)
//

// The "properties" key already holds a JSON object: it is shown as that object when it is
// one; anything else is shown as a string.
static json_t *properties_json(const char *properties) {
  if (!properties) return json_new_object();
  json_t *v = json_loads(properties, 0, NULL);
  if (json_is_object(v)) return v;
  json_decref(v);
  return json_text(properties);
}

// [{"symbol": MANGLED, "name": as people wrote it}, ...]
static json_t *names_json(const StringList *names, bool kernels) {
  json_t *array = json_new_array();
  for (size_t i = 0; i < names->count; i++) {
    json_t *o = json_new_object();
    char *name = kernels ? kernel_source_name(names->items[i]) : bridge_demangle(names->items[i]);
    json_put(o, "symbol", json_text(names->items[i]));
    json_put(o, "name", json_text(name ? name : names->items[i]));
    free(name);
    json_push(array, o);
  }
  return array;
}

static json_t *strings_json(const StringList *l) {
  json_t *array = json_new_array();
  for (size_t i = 0; i < l->count; i++)
    json_push(array, json_text(l->items[i]));
  return array;
}

static json_t *image_json(const InputImage *image, const ImageFacts *facts) {
  json_t *o = json_new_object();
  json_put(o, "file", json_text(image->origin));
  json_put(o, "kind", json_text(image_kind_name(image->image_kind)));
  json_put(o, "triple", json_text(image->triple));
  json_put(o, "arch", json_text(image->arch));
  if (is_native_image(image)) {
    json_put(o, "format", json_text("native"));
    json_put(o, "device", json_text(image->arch));
  }
  json_put(o, "size", json_uint(image->size));
  json_put(o, "symbols", strings_json(&facts->kernels));
  json_t *keys_object = json_new_object();
  size_t count;
  const OffloadString **keys = other_keys(image, &count);
  for (size_t i = 0; i < count; i++)
    json_put(keys_object, keys[i]->key, json_text(keys[i]->value));
  free(keys);
  json_put(o, "keys", keys_object);
  json_put(o, "properties", properties_json(image_key(image, "properties")));
  json_put(o, "kernels", names_json(&facts->kernels, true));
  json_put(o, "exports", names_json(&facts->exports, false));
  json_put(o, "imports", names_json(&facts->imports, false));
  json_put(o, "aspects", facts->has_aspects ? strings_json(&facts->aspects) : json_null());
  return o;
}

static void print_json(json_t *document) {
  char *text = json_dump_text(document);
  fputs(text, stdout);
  putchar('\n');
  free(text);
  json_decref(document);
}

//
// SYCLBIN files (what the linker-wrapper mode's --syclbin= writes): their entries, each
// abstract module's property sets as the file holds them (.prop text), each image's metadata.
//

// TEXT (SIZE bytes of .prop text) one line at a time, after INDENT.
static void print_prop_lines(const char *indent, const uint8_t *text, size_t size) {
  const char *p = (const char *)text, *end = p + size;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
    fputs(indent, stdout);
    print_text_value(p, len);
    putchar('\n');
    p += len + 1;
  }
}

static void print_syclbin(const char *path, const Syclbin *s) {
  print_text(path);
  printf(": SYCLBIN (OffloadBinary version 2, %zu entries)\n", s->num_entries);
  const char *state = syclbin_state_name(s->state);
  printf("  state: %u (%s)\n", s->state, state ? state : "unknown");
  const OffloadEntry *global = &s->entries[s->global_entry];
  printf("  global metadata (entry %zu):\n", s->global_entry);
  print_prop_lines("    ", global->image, global->image_size);
  printf("  abstract modules: %zu\n", s->num_modules);
  for (size_t m = 0; m < s->num_modules; m++) {
    const SyclbinModule *module = &s->modules[m];
    const OffloadEntry *meta = &s->entries[module->entry];
    printf("  abstract module %zu (entry %zu):\n", m, module->entry);
    print_prop_lines("    ", meta->image, meta->image_size);
    for (size_t i = 0; i < module->num_images; i++) {
      const SyclbinReadImage *image = &module->images[i];
      printf("    %s image (entry %zu): ", image->native ? "native" : "ir", image->entry);
      if (image->native) {
        fputs("arch ", stdout);
        print_text(image->arch);
      } else if (image->ir_type == SYCLBIN_IR_SPIRV) {
        fputs("SPIR-V", stdout);
      } else {
        printf("ir_type %u", image->ir_type);
      }
      fputs(", triple ", stdout);
      print_text(image->triple);
      printf(", %zu bytes\n", image->size);
      // The image's metadata, decoded (a byte array is a string here: arch, target).
      for (size_t k = 0; k < image->metadata.count; k++) {
        const PropertySet *set = &image->metadata.sets[k];
        printf("      [");
        print_text(set->name);
        printf("]\n");
        for (size_t j = 0; j < set->count; j++) {
          const Property *prop = &set->props[j];
          printf("      ");
          print_text(prop->name);
          fputs(": ", stdout);
          if (prop->type == PROP_UINT32)
            printf("%u", prop->u32);
          else
            print_text_value((const char *)prop->bytes.data, prop->bytes.size);
          putchar('\n');
        }
      }
    }
  }
}

// FIRST_IMAGE[f] is the first image of file f (FILES of them; the last one's end is
// inputs->count). A file without any is said to have none in the text form; JSON lists images.
// SYCLBINS[f]: file f's SYCLBIN file, printed as that (text only), or NULL.
static void print_images(const InputSet *inputs, const ImageFacts *facts, const StringList *files,
                         const size_t *first_image, Syclbin *const *syclbins, bool json) {
  if (json) {
    json_t *images = json_new_array();
    for (size_t i = 0; i < inputs->count; i++)
      json_push(images, image_json(&inputs->items[i], &facts[i]));
    json_t *document = json_new_object();
    json_put(document, "images", images);
    print_json(document);
    return;
  }
  for (size_t f = 0; f < files->count; f++) {
    size_t end = f + 1 < files->count ? first_image[f + 1] : inputs->count;
    if (syclbins[f]) {
      print_syclbin(files->items[f], syclbins[f]);
    } else if (first_image[f] == end) {
      print_text(files->items[f]);
      fputs(": no device images\n", stdout);
    }
    for (size_t i = first_image[f]; i < end; i++)
      print_image_text(&inputs->items[i], &facts[i]);
  }
}

static void print_prop_text(const InputSet *inputs, ImageFacts *facts) {
  for (size_t i = 0; i < inputs->count; i++) {
    PropertySets *p = &facts[i].properties;
    propsets_order_as_intel(p);
    char *why;
    char *text = propsets_to_prop(p, &why);
    if (!text) fatal(inputs->items[i].origin, "%s", why);
    if (inputs->count > 1) {
      fputs("# ", stdout);
      print_text(inputs->items[i].origin);
      putchar('\n');
    }
    fputs(text, stdout);
    free(text);
  }
}

// The first colon-colon-separated component after the last "::" outside template arguments:
// "ns::Scale" -> "Scale"; NULL when there is none.
static const char *unqualified(const char *name) {
  const char *last = NULL;
  int depth = 0;
  for (const char *p = name; *p; p++) {
    if (*p == '<' || *p == '(') depth++;
    else if ((*p == '>' || *p == ')') && depth) depth--;
    else if (!depth && p[0] == ':' && p[1] == ':') last = p + 2;
  }
  return last;
}

// KERNEL as the user wrote it: mangled (_ZTS5Scale), demangled in full ("typeinfo name for
// Scale"), the kernel's name in the source ("ns::Scale"), or that name unqualified ("Scale").
// The mangled name of the one kernel it names; fatal when it names several; KERNEL itself
// when it names none (the resolver then says no image defines it). Malloc'd.
// The resolver's messages name a kernel by its source name and any other symbol demangled,
// each with its mangled name beside (as the link's messages do).
static char *resolver_naming(const char *symbol, bool kernel) {
  if (!kernel || !demangle_names) return symbol_for_message(symbol);
  char *source = kernel_source_name(symbol);
  if (!strcmp(source, symbol)) return source;
  char *both = format("%s (%s)", source, symbol);
  free(source);
  return both;
}

static char *mangled_kernel(const ImageFacts *facts, size_t count, const char *kernel) {
  StringList matches = {0};
  for (size_t i = 0; i < count; i++)
    if (strlist_contains(&facts[i].kernels, kernel)) return xstrdup(kernel);
  for (size_t i = 0; i < count; i++)
    for (size_t k = 0; k < facts[i].kernels.count; k++) {
      const char *mangled = facts[i].kernels.items[k];
      char *full = bridge_demangle(mangled), *source = kernel_source_name(mangled);
      const char *short_name = unqualified(source);
      if (((full && !strcmp(full, kernel)) || !strcmp(source, kernel) ||
           (short_name && !strcmp(short_name, kernel))) &&
          !strlist_contains(&matches, mangled))
        strlist_push(&matches, xstrdup(mangled));
      free(full);
      free(source);
    }
  if (matches.count > 1) {
    Buffer list = {0};
    for (size_t i = 0; i < matches.count; i++) {
      char *source = kernel_source_name(matches.items[i]);
      char *item = format("%s%s (%s)", i ? ", " : "", source, matches.items[i]);
      buffer_append(&list, item, strlen(item));
      free(item);
      free(source);
    }
    buffer_append(&list, "", 1);
    fatal(NULL, "inspect: --resolve=%s names %zu kernels: %s; give one of the mangled names",
          kernel, matches.count, (char *)list.data);
  }
  char *found = matches.count ? matches.items[0] : xstrdup(kernel);
  free(matches.items);
  return found;
}

// Every image of the inputs is a candidate, in the order the files were given.
static void print_resolution(const InputSet *inputs, const ImageFacts *facts,
                             const char *user_kernel, const char *aspects, bool json) {
  char *kernel = mangled_kernel(facts, inputs->count, user_kernel);
  ResolverImage *images = xcalloc(inputs->count + 1, sizeof *images);
  for (size_t i = 0; i < inputs->count; i++) {
    const InputImage *image = &inputs->items[i];
    images[i] = (ResolverImage){.name = image->origin,
                                .image_kind = image->image_kind,
                                .symbols = &facts[i].kernels,
                                .properties = &facts[i].properties};
  }
  StringList device_aspects = {0};
  strlist_split_commas(&device_aspects, aspects ? aspects : "");
  size_t *chosen, num_chosen;
  char *key, *why;
  if (resolve_kernel_images(images, inputs->count, kernel, &device_aspects, resolver_naming,
                            &chosen, &num_chosen, &key, &why))
    fatal(NULL, "%s", why);
  if (json) {
    json_t *document = json_new_object(), *list = json_new_array();
    json_put(document, "kernel", json_text(kernel));
    for (size_t i = 0; i < num_chosen; i++) {
      json_t *file = json_new_object();
      json_put(file, "file", json_text(images[chosen[i]].name));
      json_push(list, file);
    }
    json_put(document, "images", list);
    json_put(document, "cache_key", json_text(key));
    print_json(document);
  } else {
    print_text_field("kernel", kernel);
    for (size_t i = 0; i < num_chosen; i++)
      print_text_field("image", images[chosen[i]].name);
    printf("cache key: %s\n", key);
  }
  free(chosen);
  free(key);
  free(images);
  free(kernel);
  strlist_free(&device_aspects);
}

//
// Linked programs
//

static void push_image(InputSet *set, InputImage image) {
  if (set->count == set->cap) {
    set->cap = set->cap ? set->cap * 2 : 16;
    set->items = xrealloc(set->items, set->cap * sizeof *set->items);
  }
  set->items[set->count++] = image;
}

static void add_key(InputImage *image, const char *key, char *value) {
  image->keys = xrealloc(image->keys, (image->num_keys + 1) * sizeof *image->keys);
  image->keys[image->num_keys++] = (OffloadString){xstrdup(key), value};
}

// The kind of a decompressed image, from its first bytes.
static uint16_t sniffed_kind(const uint8_t *data, size_t size) {
  if (size >= 4 && data[0] == 0x03 && data[1] == 0x02 && data[2] == 0x23 && data[3] == 0x07)
    return IMG_SPIRV;
  if (size >= 4 && !memcmp(data, "BC\xC0\xDE", 4)) return IMG_BITCODE;
  return IMG_NONE;
}

// The images a linked executable or shared library registers, as inspect's images: their
// entries as the "symbols" key, their property sets as the "properties" key (upstream JSON),
// the wrapper's target and options as keys. DATA stays alive until inspect ends.
static void read_linked_program(InputSet *set, const char *path, const Buffer *data) {
  LinkedImage *images;
  size_t count;
  char *why;
  reading_input_begin(path, "linked program");
  if (linked_images(data->data, data->size, &images, &count, &why)) fatal(path, "%s", why);
  reading_input_end();
  for (size_t i = 0; i < count; i++) {
    LinkedImage *li = &images[i];
    bool compressed = li->decompressed.data != NULL;
    InputImage image = {
        .origin = count > 1 ? format("%s[%zu]", path, i) : xstrdup(path),
        .offload_kind = li->offload_kind,
        // clang's wrapper registers clang-sycl-linker's images with format 0 (none):
        // the bytes say what they are.
        .image_kind = compressed        ? sniffed_kind(li->decompressed.data, li->decompressed.size)
                      : li->format == IMG_NONE ? sniffed_kind(li->image, li->image_size)
                                               : li->format,
        .triple = xstrdup(canonical_triple(li->target)),
        .arch = xstrdup(""),
        .keys_copied = true,
        // A decompressed image is kept by the LinkedImage, which is freed below: it is
        // shown by size only.
        .data = compressed ? NULL : li->image,
        .size = compressed ? li->decompressed.size : li->image_size,
    };
    add_key(&image, "triple", xstrdup(li->target));
    add_key(&image, "symbols", strlist_join(&li->entries, "\n"));
    if (li->properties.count) add_key(&image, "properties", propsets_to_json(&li->properties));
    if (*li->compile_options) add_key(&image, "compile-options", xstrdup(li->compile_options));
    if (*li->link_options) add_key(&image, "link-options", xstrdup(li->link_options));
    if (compressed) add_key(&image, "compressed-size", format("%zu", li->image_size));
    push_image(set, image);
  }
  linked_images_free(images, count);
}

int inspect_main(int argc, char **argv) {
  bool json = false, prop = false;
  const char *resolve = NULL, *aspects = NULL;
  StringList files = {0};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      return print_help(usage);
    }
    if (!strcmp(arg, "--json"))
      json = true;
    else if (!strcmp(arg, "--prop"))
      prop = true;
    else if (!strncmp(arg, "--resolve=", 10))
      resolve = arg + 10;
    else if (!strncmp(arg, "--aspects=", 10))
      aspects = arg + 10;
    else if (!strcmp(arg, "--no-demangle") || !strcmp(arg, "--demangle")) // lld's, as link's
      demangle_names = !strcmp(arg, "--demangle");
    else if (!strcmp(arg, "-v"))
      verbose = true;
    else if (!strcmp(arg, "--"))
      for (i++; i < argc; i++)
        strlist_push(&files, argv[i]);
    else if (arg[0] == '-' && arg[1])
      fatal(NULL, "inspect: unknown option '%s'; see 'sycl-thinlto inspect --help'", arg);
    else
      strlist_push(&files, argv[i]);
  }
  if (!files.count) fatal(NULL, "inspect: no input files; see 'sycl-thinlto inspect --help'");
  require_standard_output(); // the listing is the result
  // Every file is read before anything is printed, so a bad one leaves no partial output.
  // A linked executable or shared library is read for the images it registers (both
  // wrappers'); everything else as a link reads its inputs.
  InputSet inputs = {0};
  size_t *first_image = xcalloc(files.count, sizeof *first_image);
  Buffer *programs = xcalloc(files.count, sizeof *programs);
  Syclbin **syclbins = xcalloc(files.count, sizeof *syclbins);
  uint64_t bytes = 0;
  for (size_t i = 0; i < files.count; i++)
    bytes += file_size(files.items[i]);
  read_memory_ceiling_begin(bytes); // the whole command reads inputs
  for (size_t i = 0; i < files.count; i++) {
    first_image[i] = inputs.count;
    int rc = read_file(files.items[i], &programs[i]);
    if (rc < 0) fatal(files.items[i], "%s", read_error_text(rc));
    if (is_linked_elf(programs[i].data, programs[i].size)) {
      read_linked_program(&inputs, files.items[i], &programs[i]);
      continue;
    }
    if (is_syclbin(programs[i].data, programs[i].size)) {
      if (json || prop || resolve)
        fatal(files.items[i], "a SYCLBIN file: --json, --prop and --resolve read device images, "
                              "not SYCLBIN files (inspect lists one as text)");
      char *why;
      syclbins[i] = xcalloc(1, sizeof **syclbins);
      if (syclbin_read(programs[i].data, programs[i].size, syclbins[i], &why))
        fatal(files.items[i], "SYCLBIN file: %s", why);
      continue;
    }
    free(programs[i].data);
    programs[i] = (Buffer){0};
    read_input_file(&inputs, files.items[i], false);
  }
  ImageFacts *facts = xcalloc(inputs.count + 1, sizeof *facts);
  for (size_t i = 0; i < inputs.count; i++)
    image_facts(&inputs.items[i], &facts[i], resolve || prop);

  if (resolve) {
    print_resolution(&inputs, facts, resolve, aspects, json);
  } else if (prop) {
    print_prop_text(&inputs, facts);
  } else {
    print_images(&inputs, facts, &files, first_image, syclbins, json);
  }
  if (fflush(stdout) || ferror(stdout)) fatal(NULL, "inspect: cannot write the output");
  for (size_t i = 0; i < inputs.count; i++)
    image_facts_free(&facts[i]);
  free(facts);
  free(first_image);
  input_set_free(&inputs);
  for (size_t i = 0; i < files.count; i++) {
    if (syclbins[i]) syclbin_free(syclbins[i]);
    free(syclbins[i]);
    free(programs[i].data);
  }
  free(syclbins);
  free(programs);
  free(files.items); // the names are argv's
  return 0;
}
