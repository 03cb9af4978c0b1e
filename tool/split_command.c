// `sycl-thinlto split`: reads bitcode, an OffloadBinary or a fat object, splits its SYCL
// bitcode images, and writes them back in the same form. The splitting is split/split.c's.
#include "tool/tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char split_usage[] =
    "USAGE: sycl-thinlto split [options] <input> -o <output>\n"
    "\n"
    "Splits SYCL device code early: each image of the input becomes one image per kernel or\n"
    "per source, each written with a ThinLTO summary, so that the link imports only what\n"
    "each image needs. Input: LLVM bitcode, an OffloadBinary file, or a fat object (what\n"
    "clang++ -fsycl -c writes). Output: an OffloadBinary file for bitcode or OffloadBinary\n"
    "input; for a fat object, the same object with its .llvm.offloading section replaced.\n"
    "\n"
    "OPTIONS:\n"
    "  -o <file>                          output file (required)\n"
    "  --split=kernel|source|auto|none    how entry points are grouped (default: auto, which\n"
    "                                     is per source unless there is at most one kernel)\n"
    "  --allow-device-image-dependencies  SYCL_EXTERNAL functions are imported across images\n"
    "                                     instead of copied into each image that calls them\n"
    "  --aot-aspects=<a,b,...>            AOT: the device's aspects (fp64, fp16, ... or\n"
    "                                     numbers); virtual-function sets needing others are\n"
    "                                     dropped and none is outlined\n"
    "  -j <n>, --jobs=<n>                 parallel jobs (default: all cores)\n"
    "  --save-temps                       also write each split image as <output>.<n>.bc\n"
    "  --no-demangle                      name symbols in messages as mangled (--demangle:\n"
    "                                     as written, then mangled; the default)\n"
    "  -v                                 print what is done\n"
    "  --help\n";

static const char offloading_section[] = ".llvm.offloading";

typedef struct {
  SplitOptions split;
  const char *input, *output;
  int jobs;
  bool save_temps; // each split image also as OUTPUT.<n>.bc
} SplitCommand;

static void parse_split_command(int argc, char **argv, SplitCommand *c) {
  *c = (SplitCommand){.split = {.mode = SPLIT_AUTO}};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (a[0] != '-') {
      if (c->input) fatal(a, "only one input file is split at a time");
      c->input = a;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      exit(print_help(split_usage));
    } else if (!strcmp(a, "-v")) {
      verbose = true;
    } else if (!strcmp(a, "-o")) {
      if (++i >= argc) fatal(NULL, "option '-o' needs a value");
      c->output = argv[i];
    } else if ((v = option_value(argc, argv, &i, a, "split"))) {
      if (split_mode_parse(v, &c->split.mode))
        fatal(NULL, "--split: expected kernel, source, auto or none, not '%s'", v);
    } else if (!strcmp(a, "--save-temps")) {
      c->save_temps = true;
    } else if (!strcmp(a, "--no-demangle") || !strcmp(a, "--demangle")) { // lld's, as link's
      demangle_names = !strcmp(a, "--demangle");
    } else if (!strcmp(a, "--allow-device-image-dependencies")) {
      c->split.allow_dependencies = true;
    } else if ((v = option_value(argc, argv, &i, a, "aot-aspects"))) {
      c->split.aot = true;
      parse_aspects("--aot-aspects", v, &c->split.aot_aspects);
    } else if ((v = option_value(argc, argv, &i, a, "jobs"))) {
      c->jobs = parse_jobs("--jobs", v);
    } else if (!strncmp(a, "-j", 2)) {
      const char *n = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
      if (!n) fatal(NULL, "option '-j' needs a value");
      c->jobs = parse_jobs("-j", n);
    } else {
      fatal(NULL, "unknown option '%s'; see 'sycl-thinlto split --help'", a);
    }
  }
  if (!c->input) fatal(NULL, "no input file");
  if (!c->output) fatal(NULL, "no output file; use -o <file>");
  refuse_stdout_output(c->output);
  if (c->jobs <= 0) c->jobs = (int)uv_available_parallelism();
}

static bool is_bitcode(const uint8_t *data, size_t size) {
  return size >= 4 && (!memcmp(data, "BC\xC0\xDE", 4) || !memcmp(data, "\xDE\xC0\x17\x0B", 4));
}

static bool has_key(const OffloadEntry *e, const char *key) {
  return offload_entry_get(e, key) != NULL;
}

typedef struct {
  const OffloadEntry *entry;
  const char *name; // for messages
  bool wanted;      // a SYCL bitcode image not split before
  bool split;
  SplitResult result;
  char *error;
} EntryJob;

typedef struct {
  EntryJob *jobs;
  const SplitOptions *options;
} EntryStage;

// Runs on a worker thread: touches only job I.
static void split_entry(void *arg, size_t i) {
  EntryStage *stage = arg;
  EntryJob *job = &stage->jobs[i];
  if (!job->wanted) return;
  bool already_split;
  if (split_bitcode(job->entry->image, job->entry->image_size, job->name, stage->options,
                    &job->result, &already_split, &job->error) == 0)
    job->split = !already_split;
}

// Every entry, split where it is a SYCL bitcode image, appended to OUT in order.
static void split_entries(const SplitCommand *c, OffloadEntry *entries, size_t count, Buffer *out) {
  size_t saved_images = 0, *saved = &saved_images;
  EntryJob *jobs = xcalloc(count + 1, sizeof(EntryJob));
  for (size_t i = 0; i < count; i++) {
    jobs[i].entry = &entries[i];
    jobs[i].name = count > 1 ? format("%s[%zu]", c->input, i) : xstrdup(c->input);
    jobs[i].wanted = entries[i].offload_kind == OFK_SYCL && entries[i].image_kind == IMG_BITCODE &&
                     !has_key(&entries[i], SPLIT_KEY);
  }
  EntryStage stage = {jobs, &c->split};
  parallel_for(count, c->jobs, split_entry, &stage);
  for (size_t i = 0; i < count; i++)
    if (jobs[i].error) error(jobs[i].name, "%s", jobs[i].error);
  exit_on_errors();

  for (size_t i = 0; i < count; i++) {
    EntryJob *job = &jobs[i];
    if (!job->split) {
      note("%s: %s image left as it is", job->name, image_kind_name(job->entry->image_kind));
      offload_binary_append(out, job->entry);
      continue;
    }
    note("%s: split into %zu image(s) (%s)", job->name, job->result.count,
         split_mode_name(c->split.mode));
    for (size_t k = 0; k < job->result.count; k++) {
      const SplitImage *image = &job->result.images[k];
      OffloadEntry e = {.image_kind = IMG_BITCODE,
                        .offload_kind = OFK_SYCL,
                        .flags = job->entry->flags,
                        .image = image->bitcode.data,
                        .image_size = image->bitcode.size};
      split_image_keys(image, c->split.mode, job->entry->strings, job->entry->num_strings,
                       &e.strings, &e.num_strings);
      offload_binary_append(out, &e);
      offload_strings_free(e.strings, e.num_strings);
      if (c->save_temps) {
        char *path = format("%s.%zu.bc", c->output, (*saved)++);
        int rc = write_file_atomic(path, image->bitcode.data, image->bitcode.size);
        if (rc < 0) fatal(path, "cannot write: %s", strerror(-rc));
        free(path);
      }
    }
    split_result_free(&job->result);
  }
  for (size_t i = 0; i < count; i++)
    free((char *)jobs[i].name);
  free(jobs);
}

// The bitcode's triple, for the keys of the images made from it.
static char *bitcode_triple(const Buffer *file, const char *name) {
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  char *why;
  reading_input_begin(name, "bitcode");
  if (module_parse(ctx, file->data, file->size, name, true, &m, &why)) fatal(name, "%s", why);
  char *triple = xstrdup(LLVMGetTarget(m));
  LLVMDisposeModule(m);
  reading_input_end();
  context_dispose(ctx);
  return triple;
}

// The fat object with its .llvm.offloading section replaced, written by llvm-objcopy
// (--update-section keeps every other section and symbol as it is).
static void write_object(const SplitCommand *c, const Buffer *section) {
  char *section_file, *object_file;
  int rc = own_write_temporary(c->output, "", section->data, section->size, &section_file);
  if (rc < 0) fatal(c->output, "cannot write: %s", strerror(-rc));
  int error = 0;
  object_file = own_tool_output(c->output, &error); // llvm-objcopy makes it
  if (!object_file) fatal(c->output, "cannot write: %s", strerror(error));
  char *update = format("%s=%s", offloading_section, section_file);
  const char *argv[] = {
      LLVM_BINDIR "/llvm-objcopy", "--update-section", update, c->input, object_file, NULL};
  Buffer output;
  int status;
  rc = run_tool(argv, &output, &status);
  if (rc < 0) fatal(argv[0], "cannot run: %s", strerror(-rc));
  if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    buffer_append(&output, "", 1);
    fatal(c->input, "llvm-objcopy cannot replace the %s section: %s", offloading_section,
          (char *)output.data);
  }
  free(output.data);
  own_remove(section_file);
  int moved = replace_file(object_file, c->output);
  if (moved) fatal(c->output, "cannot write output: %s", strerror(-moved));
  keep_on_success(section_file);
  keep_on_success(object_file);
  free(update);
  free(section_file);
  free(object_file);
}

int split_main(int argc, char **argv) {
  SplitCommand c;
  parse_split_command(argc, argv, &c);
  // Like objcopy, split may rewrite its input in place (it reads it whole first, and the
  // result replaces it atomically): -o is checked before the input is recorded, the other
  // outputs after.
  check_output_path(c.output, "-o");
  output_rule_input(c.input);
  if (c.save_temps) check_derived_outputs(c.output, is_numbered_name, ".", "--save-temps");
  Buffer file = {0};
  int rc = read_file(c.input, &file);
  if (rc < 0) fatal(c.input, "%s", read_error_text(rc));
  read_memory_ceiling_begin(file.size); // the command reads and splits its input

  Buffer out = {0};
  OffloadEntry *entries = NULL;
  size_t count = 0;
  char *why;
  if (is_bitcode(file.data, file.size)) {
    char *triple = bitcode_triple(&file, c.input);
    if (!is_spirv_triple(triple))
      fatal(c.input, "bitcode for '%s': only spir64/spirv64 device code is split", triple);
    OffloadString keys[] = {{"triple", triple}, {"arch", ""}};
    OffloadEntry bare = {.image_kind = IMG_BITCODE,
                         .offload_kind = OFK_SYCL,
                         .strings = keys,
                         .num_strings = 2,
                         .image = file.data,
                         .image_size = file.size};
    split_entries(&c, &bare, 1, &out);
    free(triple);
  } else if (is_offload_binary(file.data, file.size)) {
    if (offload_binary_parse(file.data, file.size, &entries, &count, &why))
      fatal(c.input, "%s", why);
    split_entries(&c, entries, count, &out);
  } else if (file.size >= 4 && !memcmp(file.data, "\177ELF", 4)) {
    SectionBytes *sections;
    size_t num_sections;
    reading_input_begin(c.input, "object");
    int unreadable = elf_offloading_sections(file.data, file.size, &sections, &num_sections, &why);
    reading_input_end();
    if (unreadable) fatal(c.input, "%s", why);
    if (!num_sections) fatal(c.input, "no %s section: not a fat object", offloading_section);
    // llvm-objcopy --update-section, which writes the result back, updates one section of a
    // name; the objects `ld -r` joined are split one by one, before it.
    if (num_sections > 1)
      fatal(c.input, "%zu %s sections: split reads an object with one (split the objects "
                     "before joining them)",
            num_sections, offloading_section);
    if (offload_binary_parse(sections[0].data, sections[0].size, &entries, &count, &why))
      fatal(c.input, "%s: %s", offloading_section, why);
    free(sections);
    split_entries(&c, entries, count, &out);
    write_object(&c, &out);
    goto done;
  } else {
    fatal(c.input, "not a bitcode file, OffloadBinary or ELF object");
  }
  rc = write_file_atomic(c.output, out.data, out.size);
  if (rc < 0) fatal(c.output, "cannot write output: %s", strerror(-rc));
done:
  for (size_t i = 0; i < count; i++)
    free(entries[i].strings);
  free(entries);
  free(out.data);
  free(file.data);
  strlist_free(&c.split.aot_aspects);
  return 0;
}
