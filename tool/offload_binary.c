// argv[0] ending in llvm-offload-binary: the compile-time split (issue 32). clang++ -fsycl -c
// packages device code with llvm-offload-binary, looked up on -B directories first: with ours
// there, SYCL images for a SPIR-V triple are split as `sycl-thinlto split` splits them before
// LLVM's llvm-offload-binary packages them. Every other use goes to LLVM's tool unchanged.
#include "tool/tool.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char program[] = "llvm-offload-binary";
// The split mode at compile time: clang 22 refuses DPC++'s -fsycl-device-code-split=, so the
// same words come through the environment.
static const char split_variable[] = "SYCL_THINLTO_DEVICE_CODE_SPLIT";

// Whether the file at PATH is the program running now (a link to it, or it under another
// name), or stands in the folder clang found us in (SELF: our argv[0]), a -B folder that may
// hold another copy of us.
static bool is_ourselves(const char *path, const char *self) {
  struct stat ours, theirs;
  if (stat("/proc/self/exe", &ours) == 0 && stat(path, &theirs) == 0 &&
      ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino)
    return true;
  const char *slash = strrchr(self, '/');
  if (!slash) return false; // found on PATH by the shell: no folder of ours to skip
  char *our_dir = xstrndup(self, (size_t)(slash - self));
  char *their_dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
  struct stat a, b;
  bool same = stat(our_dir, &a) == 0 && stat(their_dir, &b) == 0 && a.st_dev == b.st_dev &&
              a.st_ino == b.st_ino;
  free(our_dir);
  free(their_dir);
  return same;
}

static bool is_executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

// LLVM's llvm-offload-binary: where clang 22 looks after its -B directories (its own
// directory, which is LLVM_BINDIR for the LLVM we are built with), then PATH; never ourselves
// again (our folder may be on PATH too). Fatal if there is none.
static char *real_offload_binary(const char *self) {
  char *found = format("%s/%s", LLVM_BINDIR, program);
  if (is_executable_file(found) && !is_ourselves(found, self)) return found;
  free(found);
  const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
  for (const char *p = path;; p += strcspn(p, ":") + 1) {
    size_t n = strcspn(p, ":");
    found = format("%.*s/%s", (int)n, n ? p : ".", program);
    if (is_executable_file(found) && !is_ourselves(found, self)) return found;
    free(found);
    if (!p[n]) break;
  }
  fatal(NULL, "%s: LLVM's %s is neither in %s nor on PATH", program, program, LLVM_BINDIR);
}

// Runs LLVM's tool in our place with the same arguments, argv[0] included: what it writes and
// prints is what it would have written and printed called by that name.
__attribute__((noreturn)) static void pass_through(char **argv) {
  char *real = real_offload_binary(argv[0]);
  fflush(NULL);
  signal(SIGXFSZ, SIG_DFL); // main ignores it; an ignored signal would stay so across exec
  execv(real, argv);
  fatal(real, "cannot run it: %s", strerror(errno));
}

//
// The packaging command line: -o FILE and --image=KEY=VALUE,... (LLVM's cl spellings)
//

typedef struct {
  const char *output;
  const char **images; // each --image's value
  size_t num_images;
} PackageCommand;

// The value of -o or --image at ARGV[*I] in LLVM's spellings (one or two dashes, "=VALUE" or
// the next argument), or NULL for another argument.
static const char *cl_value(int argc, char **argv, int *i, const char *name) {
  const char *a = argv[*i];
  if (a[0] != '-') return NULL;
  a += a[1] == '-' ? 2 : 1;
  size_t n = strlen(name);
  if (strncmp(a, name, n)) return NULL;
  if (a[n] == '=') return a + n + 1;
  if (a[n] || *i + 1 >= argc) return NULL;
  return argv[++*i];
}

// True if ARGV packages images into -o and says nothing else: the one use that is split. An
// extraction (an input file), --archive, --help, a response file, or anything this parser does
// not know goes to LLVM's tool as it is.
static bool parse_package_command(int argc, char **argv, PackageCommand *c) {
  *c = (PackageCommand){0};
  c->images = xcalloc((size_t)argc, sizeof *c->images);
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = cl_value(argc, argv, &i, "o"))) {
      if (c->output) return false; // LLVM's tool refuses a second -o
      c->output = v;
    } else if ((v = cl_value(argc, argv, &i, "image"))) {
      c->images[c->num_images++] = v;
    } else {
      return false;
    }
  }
  return c->output && *c->output && c->num_images;
}

// One --image's keys as LLVM's tool reads them: split at ',', each at its first '=' (no '=':
// an empty value), a key given again joined to its value with ','.
static void parse_image_keys(const char *text, OffloadString **keys, size_t *count) {
  *keys = NULL;
  *count = 0;
  for (const char *p = text;; p += strcspn(p, ",") + 1) {
    size_t n = strcspn(p, ",");
    const char *eq = memchr(p, '=', n);
    char *key = xstrndup(p, eq ? (size_t)(eq - p) : n);
    char *value = eq ? xstrndup(eq + 1, n - (size_t)(eq + 1 - p)) : xstrdup("");
    size_t k = 0;
    while (k < *count && strcmp((*keys)[k].key, key))
      k++;
    if (k < *count) {
      char *joined = format("%s,%s", (*keys)[k].value, value);
      free((char *)(*keys)[k].value);
      (*keys)[k].value = joined;
      free(key);
      free(value);
    } else {
      *keys = xrealloc(*keys, (*count + 1) * sizeof **keys);
      (*keys)[(*count)++] = (OffloadString){key, value};
    }
    if (!p[n]) break;
  }
}

static const char *key_value(const OffloadString *keys, size_t count, const char *key) {
  for (size_t k = 0; k < count; k++)
    if (!strcmp(keys[k].key, key)) return keys[k].value;
  return NULL;
}

// Appends KEY=VALUE to an --image argument; a ',' in VALUE is written as the key given again,
// which LLVM's tool joins back with ','.
static void append_image_key(Buffer *arg, const char *key, const char *value) {
  for (const char *p = value;; p += strcspn(p, ",") + 1) {
    size_t n = strcspn(p, ",");
    if (arg->size) buffer_append(arg, ",", 1);
    buffer_append(arg, key, strlen(key));
    buffer_append(arg, "=", 1);
    buffer_append(arg, p, n);
    if (!p[n]) break;
  }
}

typedef struct {
  SplitMode mode;
  char *temp_dir; // the split images' files, made on the first split
  StringList temp_files;
} CompileSplit;

// The compile's split mode from SYCL_THINLTO_DEVICE_CODE_SPLIT: DPC++'s words for
// -fsycl-device-code-split= (per_kernel, per_source, auto, off) or the link's --split= words;
// unset or empty, the link's default (auto).
static SplitMode compile_split_mode(void) {
  const char *v = getenv(split_variable);
  if (!v || !*v) return SPLIT_AUTO;
  const char *word = !strcmp(v, "per_kernel") ? "kernel"
                     : !strcmp(v, "per_source") ? "source"
                     : !strcmp(v, "off")        ? "none"
                                                : v;
  SplitMode mode;
  if (split_mode_parse(word, &mode))
    fatal(NULL, "%s: expected per_kernel, per_source, auto or off, not '%s'", split_variable, v);
  return mode;
}

// A file of the split's temporary directory holding BYTES; its path (owned by S).
static const char *write_temp_image(CompileSplit *s, const Buffer *bytes) {
  if (!s->temp_dir) {
    const char *tmp = getenv("TMPDIR");
    s->temp_dir = make_temp_dir(tmp && *tmp ? tmp : "/tmp", TOOL_NAME "-offload");
    // LLVM's tool reads file=PATH up to the next ',': a path holding one cannot be given.
    if (strchr(s->temp_dir, ','))
      fatal(s->temp_dir, "a temporary directory whose path holds ',' cannot be given to %s",
            program);
  }
  char *path = format("%s/image.%zu.bc", s->temp_dir, s->temp_files.count);
  int rc = write_file_atomic(path, bytes->data, bytes->size);
  if (rc < 0) fatal(path, "cannot write: %s", strerror(-rc));
  strlist_push(&s->temp_files, path);
  return path;
}

// The --image arguments for one SYCL image file FILE (read into BYTES) with KEYS (those of
// its --image but file): its split images, each with the split's keys, appended to ARGS.
// Fatal with split's message if the unit cannot be split.
static void split_image_file(CompileSplit *s, const char *file, const Buffer *bytes,
                             const OffloadString *keys, size_t num_keys, StringList *args) {
  const char *kind = key_value(keys, num_keys, "kind");
  OffloadString *strings = xcalloc(num_keys + 1, sizeof *strings);
  size_t num_strings = 0;
  for (size_t k = 0; k < num_keys; k++) // "kind" is the entry's offload kind, not a string
    if (strcmp(keys[k].key, "kind")) strings[num_strings++] = keys[k];
  SplitOptions options = {.mode = s->mode};
  SplitResult result;
  bool already_split;
  char *why;
  if (split_bitcode(bytes->data, bytes->size, file, &options, &result, &already_split, &why))
    fatal(file, "%s", why);
  if (already_split) { // packaged as it is, with the keys it came with
    Buffer arg = {0};
    append_image_key(&arg, "file", file);
    append_image_key(&arg, "kind", kind);
    for (size_t k = 0; k < num_strings; k++)
      append_image_key(&arg, strings[k].key, strings[k].value);
    buffer_append(&arg, "", 1);
    strlist_push(args, format("--image=%s", (char *)arg.data));
    free(arg.data);
  }
  for (size_t i = 0; i < result.count; i++) {
    const SplitImage *image = &result.images[i];
    OffloadString *image_keys;
    size_t num_image_keys;
    split_image_keys(image, s->mode, strings, num_strings, &image_keys, &num_image_keys);
    Buffer arg = {0};
    append_image_key(&arg, "file", write_temp_image(s, &image->bitcode));
    append_image_key(&arg, "kind", kind);
    for (size_t k = 0; k < num_image_keys; k++)
      append_image_key(&arg, image_keys[k].key, image_keys[k].value);
    buffer_append(&arg, "", 1);
    strlist_push(args, format("--image=%s", (char *)arg.data));
    free(arg.data);
    offload_strings_free(image_keys, num_image_keys);
  }
  split_result_free(&result);
  free(strings);
}

// One --image's arguments for LLVM's tool: TEXT as it is, unless it is a SYCL image for a
// SPIR-V triple whose files are bitcode: then each file's split images. False if a file
// cannot be read (LLVM's tool then says why).
static bool image_arguments(CompileSplit *s, const char *text, StringList *args, bool *split) {
  OffloadString *keys;
  size_t num_keys;
  parse_image_keys(text, &keys, &num_keys);
  const char *kind = key_value(keys, num_keys, "kind");
  const char *triple = key_value(keys, num_keys, "triple");
  const char *files = key_value(keys, num_keys, "file");
  bool readable = true;
  if (!kind || strcmp(kind, "sycl") || !triple || !is_spirv_triple(triple) || !files) {
    strlist_push(args, format("--image=%s", text));
    goto done;
  }
  StringList file_list = {0}; // "file=a,file=b": one image each, as LLVM's tool makes them
  for (const char *p = files;; p += strcspn(p, ",") + 1) {
    strlist_push(&file_list, xstrndup(p, strcspn(p, ",")));
    if (!p[strcspn(p, ",")]) break;
  }
  Buffer *bytes = xcalloc(file_list.count + 1, sizeof *bytes);
  bool all_bitcode = true;
  for (size_t f = 0; f < file_list.count && readable; f++) {
    output_rule_input(file_list.items[f]); // -o may not name it (check_output_path)
    readable = read_file(file_list.items[f], &bytes[f]) == 0;
    all_bitcode = all_bitcode && readable && is_llvm_bitcode(bytes[f].data, bytes[f].size);
  }
  OffloadString *others = xcalloc(num_keys + 1, sizeof *others);
  size_t num_others = 0;
  for (size_t k = 0; k < num_keys; k++)
    if (strcmp(keys[k].key, "file")) others[num_others++] = keys[k];
  if (!readable) {
    ;
  } else if (all_bitcode) {
    for (size_t f = 0; f < file_list.count; f++)
      split_image_file(s, file_list.items[f], &bytes[f], others, num_others, args);
    *split = true;
  } else { // a SYCL image of another kind (SPIR-V, an object): packaged as it is
    strlist_push(args, format("--image=%s", text));
  }
  for (size_t f = 0; f < file_list.count; f++)
    buffer_free(&bytes[f]);
  free(bytes);
  free(others);
  strlist_free(&file_list);
done:
  offload_strings_free(keys, num_keys);
  return readable;
}

// The split images' files and their directory removed (before LLVM's tool runs in our place,
// or after it has packaged them): base/owned.c removes what this run made there.
static void remove_temp_images(CompileSplit *s) {
  strlist_free(&s->temp_files);
  if (s->temp_dir) remove_temp_dir(s->temp_dir);
  free(s->temp_dir);
  s->temp_dir = NULL;
}

int offload_binary_main(int argc, char **argv) {
  PackageCommand c;
  if (!parse_package_command(argc, argv, &c)) pass_through(argv);
  input_size_limit_init();
  CompileSplit s = {.mode = compile_split_mode()};
  StringList args = {0};
  strlist_push(&args, real_offload_binary(argv[0]));
  strlist_push(&args, format("-o=%s", c.output));
  bool split = false, readable = true;
  for (size_t i = 0; i < c.num_images && readable; i++)
    readable = image_arguments(&s, c.images[i], &args, &split);
  if (!split || !readable) {
    remove_temp_images(&s);
    pass_through(argv);
  }
  // LLVM's tool would write over an input named by -o; a compile never asks for that, and the
  // split images would then be lost with the unit's bitcode. Refused as every command does.
  check_output_path(c.output, "-o");
  strlist_push(&args, NULL);
  Buffer output;
  int status;
  int rc = run_tool((const char *const *)args.items, &output, &status);
  if (rc < 0) fatal(args.items[0], "cannot run it: %s", strerror(-rc));
  fwrite(output.data, 1, output.size, stderr);
  free(output.data);
  remove_temp_images(&s);
  if (WIFSIGNALED(status)) fatal(args.items[0], "killed by signal %d", WTERMSIG(status));
  strlist_free(&args);
  free(c.images);
  return WEXITSTATUS(status);
}
