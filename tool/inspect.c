// `sycl-thinlto inspect`: prints the device images read_input_file finds, as text or JSON.
// It reads a bitcode image's kernels when no "symbols" key lists them; it links nothing.
#include "tool/tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "OVERVIEW: print the SYCL SPIR-V device images found in files\n"
    "\n"
    "USAGE: sycl-thinlto inspect [options] FILE...\n"
    "\n"
    "FILE may be LLVM bitcode, an OffloadBinary, an ELF object with a .llvm.offloading\n"
    "section, or a static archive of these.\n"
    "\n"
    "OPTIONS:\n"
    "  --json    print one JSON document: {\"images\": [...]}\n"
    "  --prop    print each image's property sets in intel's .prop text (as sycl-post-link\n"
    "            writes them); with several images each starts with a line '# FILE'\n"
    "  --resolve=KERNEL  print the images the SYCL runtime links to run KERNEL (imported\n"
    "            symbols, virtual-function sets) and a cache key for that set; with --json\n"
    "            as {\"kernel\": ..., \"images\": [{\"file\": ...}], \"cache_key\": ...}\n"
    "  --aspects=A,B,... the device's aspects for --resolve (fp64, fp16, ... or numbers)\n"
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

// An image's kernels: its "symbols" key (names separated by '\n', empty ones skipped), or for
// bitcode without one (clang++ -fsycl -c, bare modules) the module's spir_kernel definitions.
static void image_symbols(const InputImage *image, StringList *out) {
  const char *s = image_key(image, "symbols");
  if (s || image->image_kind != IMG_BITCODE) {
    while (s && *s) {
      size_t len = strcspn(s, "\n");
      if (len) strlist_push(out, xstrndup(s, len));
      s += len + (s[len] == '\n');
    }
    return;
  }
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  char *why;
  // Whole and verified, as a link reads it: inspect says what a link would make of it.
  reading_input_begin(image->origin, "bitcode");
  if (module_parse_verified(ctx, image->data, image->size, image->origin, &m, &why))
    fatal(image->origin, "%s", why);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && is_kernel(f)) {
      size_t len;
      const char *name = LLVMGetValueName2(f, &len);
      strlist_push(out, xstrndup(name, len));
    }
  LLVMDisposeModule(m);
  reading_input_end();
  context_dispose(ctx);
}

//
// Text
//

// Values are printed on one line: newlines and other control bytes are escaped.
static void print_text_value(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = s[i];
    if (c == '\n')
      fputs("\\n", stdout);
    else if (c == '\\')
      fputs("\\\\", stdout);
    else if (c < 0x20 || c == 0x7f)
      printf("\\x%02x", c);
    else
      putchar(c);
  }
}

static void print_text_field(const char *label, const char *value) {
  printf("  %s:", label);
  if (value && *value) {
    putchar(' ');
    print_text_value(value, strlen(value));
  }
  putchar('\n');
}

static void print_image_text(const InputImage *image, const StringList *symbols) {
  printf("%s: %s\n", image->origin, image_kind_name(image->image_kind));
  print_text_field("triple", image->triple);
  const char *file_triple = image_key(image, "triple");
  if (file_triple && strcmp(file_triple, image->triple)) {
    // Canonicalized for the link (spir64* -> spirv64); say what the file had.
    printf("  file triple: ");
    print_text_value(file_triple, strlen(file_triple));
    putchar('\n');
  }
  print_text_field("arch", image->arch);
  printf("  size: %zu\n", image->size);
  printf("  symbols:");
  for (size_t i = 0; i < symbols->count; i++) {
    putchar(' ');
    print_text_value(symbols->items[i], strlen(symbols->items[i]));
  }
  putchar('\n');
  const char *properties = image_key(image, "properties");
  if (properties) print_text_field("properties", properties);
  size_t count;
  const OffloadString **keys = other_keys(image, &count);
  for (size_t i = 0; i < count; i++) {
    printf("  key %s: ", keys[i]->key);
    print_text_value(keys[i]->value, strlen(keys[i]->value));
    putchar('\n');
  }
  free(keys);
}

//
// JSON
//

// The length of the valid UTF-8 sequence at s, or 0 if it is not one.
static size_t utf8_sequence_length(const unsigned char *s, size_t left) {
  size_t len = s[0] >= 0xF0 && s[0] <= 0xF4   ? 4
               : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
               : s[0] >= 0xC2 && s[0] <= 0xDF ? 2
                                              : 0;
  if (!len || len > left) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  // No overlong forms, no UTF-16 surrogates, nothing past U+10FFFF.
  if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) ||
      (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] > 0x8F))
    return 0;
  return len;
}

// A JSON string; bytes that are not valid UTF-8 are written as the code points of their value.
static void print_json_string(const char *text, size_t len) {
  const unsigned char *s = (const unsigned char *)text;
  putchar('"');
  for (size_t i = 0; i < len; i++) {
    unsigned char c = s[i];
    const char *escape = c == '"'    ? "\\\""
                         : c == '\\' ? "\\\\"
                         : c == '\n' ? "\\n"
                         : c == '\r' ? "\\r"
                         : c == '\t' ? "\\t"
                                     : NULL;
    if (escape) {
      fputs(escape, stdout);
      continue;
    }
    if (c < 0x20 || c == 0x7f) {
      printf("\\u%04x", c);
    } else if (c < 0x80) {
      putchar(c);
    } else {
      size_t n = utf8_sequence_length(s + i, len - i);
      if (!n) {
        printf("\\u%04x", c);
        continue;
      }
      fwrite(s + i, 1, n, stdout);
      i += n - 1;
    }
  }
  putchar('"');
}

static void print_json_cstring(const char *s) {
  print_json_string(s, strlen(s));
}

// The "properties" key already holds a JSON object; anything else is shown as a string.
static void print_json_properties(const char *properties) {
  if (!properties) {
    fputs("{}", stdout);
    return;
  }
  const char *begin = properties + strspn(properties, " \t\r\n");
  size_t len = strlen(begin);
  while (len && strchr(" \t\r\n", begin[len - 1]))
    len--;
  if (len >= 2 && begin[0] == '{' && begin[len - 1] == '}')
    fwrite(begin, 1, len, stdout);
  else
    print_json_cstring(properties);
}

static void print_image_json(const InputImage *image, const StringList *symbols) {
  fputs("{\"file\":", stdout);
  print_json_cstring(image->origin);
  fputs(",\"kind\":", stdout);
  print_json_cstring(image_kind_name(image->image_kind));
  fputs(",\"triple\":", stdout);
  print_json_cstring(image->triple);
  fputs(",\"arch\":", stdout);
  print_json_cstring(image->arch);
  printf(",\"size\":%zu,\"symbols\":[", image->size);
  for (size_t i = 0; i < symbols->count; i++) {
    if (i) putchar(',');
    print_json_cstring(symbols->items[i]);
  }
  fputs("],\"keys\":{", stdout);
  size_t count;
  const OffloadString **keys = other_keys(image, &count);
  for (size_t i = 0; i < count; i++) {
    if (i) putchar(',');
    print_json_cstring(keys[i]->key);
    putchar(':');
    print_json_cstring(keys[i]->value);
  }
  free(keys);
  fputs("},\"properties\":", stdout);
  print_json_properties(image_key(image, "properties"));
  putchar('}');
}

// FIRST_IMAGE[f] is the first image of file f (FILES of them; the last one's end is
// inputs->count). A file without any is said to have none in the text form; JSON lists images.
static void print_images(const InputSet *inputs, const StringList *symbols, const StringList *files,
                         const size_t *first_image, bool json) {
  if (json) {
    fputs("{\"images\":[", stdout);
    for (size_t i = 0; i < inputs->count; i++) {
      if (i) putchar(',');
      print_image_json(&inputs->items[i], &symbols[i]);
    }
    fputs("]}\n", stdout);
    return;
  }
  for (size_t f = 0; f < files->count; f++) {
    size_t end = f + 1 < files->count ? first_image[f + 1] : inputs->count;
    if (first_image[f] == end) printf("%s: no device images\n", files->items[f]);
    for (size_t i = first_image[f]; i < end; i++)
      print_image_text(&inputs->items[i], &symbols[i]);
  }
}

// An image's property sets, decoded from its "properties" key (empty if it has none).
static void image_properties(const InputImage *image, PropertySets *out) {
  const char *json = image_key(image, "properties");
  char *why;
  if (json && propsets_from_json(json, out, &why))
    fatal(image->origin, "invalid properties: %s", why);
  if (!json) *out = (PropertySets){0};
}

static void print_prop_text(const InputSet *inputs) {
  for (size_t i = 0; i < inputs->count; i++) {
    PropertySets p;
    image_properties(&inputs->items[i], &p);
    propsets_order_as_intel(&p);
    char *why;
    char *text = propsets_to_prop(&p, &why);
    if (!text) fatal(inputs->items[i].origin, "%s", why);
    if (inputs->count > 1) printf("# %s\n", inputs->items[i].origin);
    fputs(text, stdout);
    free(text);
    propsets_free(&p);
  }
}

// Every image of the inputs is a candidate, in the order the files were given.
static void print_resolution(const InputSet *inputs, StringList *symbols, const char *kernel,
                             const char *aspects, bool json) {
  ResolverImage *images = xcalloc(inputs->count + 1, sizeof *images);
  PropertySets *props = xcalloc(inputs->count + 1, sizeof *props);
  for (size_t i = 0; i < inputs->count; i++) {
    const InputImage *image = &inputs->items[i];
    image_properties(image, &props[i]);
    images[i] = (ResolverImage){.name = image->origin,
                                .image_kind = image->image_kind,
                                .symbols = &symbols[i],
                                .properties = &props[i]};
  }
  StringList device_aspects = {0};
  for (const char *p = aspects; p && *p;) {
    size_t len = strcspn(p, ",");
    if (len) strlist_push(&device_aspects, xstrndup(p, len));
    p += len + (p[len] == ',');
  }
  size_t *chosen, num_chosen;
  char *key, *why;
  if (resolve_kernel_images(images, inputs->count, kernel, &device_aspects, &chosen, &num_chosen,
                            &key, &why))
    fatal(NULL, "%s", why);
  if (json) {
    fputs("{\"kernel\":", stdout);
    print_json_cstring(kernel);
    fputs(",\"images\":[", stdout);
    for (size_t i = 0; i < num_chosen; i++) {
      fputs(i ? ",{\"file\":" : "{\"file\":", stdout);
      print_json_cstring(images[chosen[i]].name);
      putchar('}');
    }
    fputs("],\"cache_key\":", stdout);
    print_json_cstring(key);
    fputs("}\n", stdout);
  } else {
    printf("kernel: %s\n", kernel);
    for (size_t i = 0; i < num_chosen; i++)
      printf("image: %s\n", images[chosen[i]].name);
    printf("cache key: %s\n", key);
  }
  free(chosen);
  free(key);
  for (size_t i = 0; i < inputs->count; i++)
    propsets_free(&props[i]);
  free(props);
  free(images);
  strlist_free(&device_aspects);
}

int inspect_main(int argc, char **argv) {
  bool json = false, prop = false;
  const char *resolve = NULL, *aspects = NULL;
  StringList files = {0};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      fputs(usage, stdout);
      return 0;
    }
    if (!strcmp(arg, "--json"))
      json = true;
    else if (!strcmp(arg, "--prop"))
      prop = true;
    else if (!strncmp(arg, "--resolve=", 10))
      resolve = arg + 10;
    else if (!strncmp(arg, "--aspects=", 10))
      aspects = arg + 10;
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

  // Every file is read before anything is printed, so a bad one leaves no partial output.
  InputSet inputs = {0};
  size_t *first_image = xcalloc(files.count, sizeof *first_image);
  uint64_t bytes = 0;
  for (size_t i = 0; i < files.count; i++)
    bytes += file_size(files.items[i]);
  read_memory_ceiling_begin(bytes); // the whole command reads inputs
  for (size_t i = 0; i < files.count; i++) {
    first_image[i] = inputs.count;
    read_input_file(&inputs, files.items[i], false);
  }
  StringList *symbols = xcalloc(inputs.count + 1, sizeof *symbols);
  for (size_t i = 0; i < inputs.count; i++)
    image_symbols(&inputs.items[i], &symbols[i]);

  if (resolve) {
    print_resolution(&inputs, symbols, resolve, aspects, json);
  } else if (prop) {
    print_prop_text(&inputs);
  } else {
    print_images(&inputs, symbols, &files, first_image, json);
  }
  if (fflush(stdout) || ferror(stdout)) fatal(NULL, "inspect: cannot write the output");
  for (size_t i = 0; i < inputs.count; i++)
    strlist_free(&symbols[i]);
  free(symbols);
  free(first_image);
  input_set_free(&inputs);
  free(files.items); // the names are argv's
  return 0;
}
