// The clang-linker-wrapper personality: finds the device code among the host link's inputs,
// links it (our `link`), wraps it with its property sets and runs the host linker, each a
// step of one run (with --syclbin=, writes the linked images as a SYCLBIN file instead). It does not resolve host symbols: every archive member with device code is
// linked. Its options: linker_wrapper_options.c; ld's command line: linker_wrapper_ld.c.
#include "tool/linker_wrapper_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// Files the device link writes at the user's request (--device-linker=--reproduce=FILE):
// one at -o was left there by a failed host link, or replaced by the program unseen.
static void check_device_link_outputs(const StringList *device_link_args) {
  static const char *const writing[] = {"--reproduce=", "--time-trace=", "--time-trace-file="};
  for (size_t i = 0; i < device_link_args->count; i++) {
    const char *a = device_link_args->items[i];
    for (size_t k = 0; k < sizeof writing / sizeof *writing; k++) {
      size_t n = strlen(writing[k]);
      if (strncmp(a, writing[k], n) || !a[n]) continue;
      char *option = format("--device-linker=%.*s", (int)(n - 1), a);
      check_output_path(a + n, option);
      free(option);
    }
  }
}

// A map whose values are malloc'd strings, freed with it.
static void free_map_values(StrMap *m) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i]) free(m->values[i]);
  strmap_free(m);
}

//
// Host bitcode (host -flto): registration of uniquely identifiable objects (seed 004)
//
// Replaces every bitcode input of the host link with a copy that registers its uniquely
// identifiable variables before its other constructors (register_host.c), and writes the
// device code the module embeds (.llvm.offloading) beside it for the device link. The copies
// are named <temp_prefix>host<N>-<input>.bc and .offload, and added to the run's temporaries.
// 0, or -1 after error(): the first failure stops it.
static int rewrite_host_bitcode(WrapperRun *run) {
  WrapperOptions *o = &run->o;
  int rc = 0, n = 0;
  for (size_t i = 0; i < o->linker_args.count && !rc; i++) {
    const char *a = o->linker_args.items[i];
    if (a[0] == '-') {
      i += takes_separate_value(a);
      continue;
    }
    Buffer in = {0};
    int read = file_is_bitcode(a) ? read_file(a, &in) : -ENOENT;
    if (read == -EFBIG) error(a, "%s", read_error_text(read));
    if (read) continue;
    const char *slash = strrchr(a, '/');
    char *base = format("%shost%d-%s", o->temp_prefix, n++, slash ? slash + 1 : a);
    char *bitcode = format("%s.bc", base), *device = format("%s.offload", base);
    if (o->print_commands)
      fprintf(stderr, "\"%s\" register-host \"%s\" -o \"%s\"\n", TOOL_NAME, a, bitcode);
    Buffer out = {0}, embedded = {0};
    size_t registered = 0;
    char *why = NULL;
    int written = 0;
    const char *failed = bitcode;
    strlist_push(&run->temps, xstrdup(bitcode)); // removed after the link, if written at all
    strlist_push(&run->temps, xstrdup(device));
    if (register_host_bitcode(in.data, in.size, a, &out, &registered, &why) ||
        host_bitcode_offloading(in.data, in.size, a, &embedded, &why)) {
      error(a, "host registration step: %s", why);
      free(why);
      rc = -1;
    } else if ((written = write_file_atomic(bitcode, out.data, out.size)) ||
               (embedded.size &&
                (written = write_file_atomic(failed = device, embedded.data, embedded.size)))) {
      error(failed, "host registration step: cannot write it: %s", strerror(-written));
      rc = -1;
    } else {
      note("%s: %zu uniquely identifiable variable(s) registered%s", a, registered,
           embedded.size ? ", device code found" : "");
      if (embedded.size) {
        strmap_put(&run->host_bitcode_device_code, bitcode, xstrdup(device));
        show_as(run, device, a);
      }
      free(o->linker_args.items[i]);
      o->linker_args.items[i] = xstrdup(bitcode);
    }
    free(in.data);
    free(out.data);
    free(embedded.data);
    free(base);
    free(bitcode);
    free(device);
  }
  return rc;
}

//
// The three steps
//

static void print_command(const StringList *argv) {
  for (size_t i = 0; i < argv->count; i++)
    fprintf(stderr, "%s\"%s\"", i ? " " : "", argv->items[i]);
  fputc('\n', stderr);
}

// The input the failed device link's messages name first ("sycl-thinlto: error: app.o: ...",
// or a member "lib.a(x.o)" of it); else every input. Our own executable's path would tell
// the user nothing: the inputs are what they can fix.
static char *failing_input(const Buffer *output, const StringList *inputs) {
  static const char prefix[] = TOOL_NAME ": error: ";
  const char *text = (const char *)output->data, *end = text + output->size;
  for (const char *line = text; line < end;) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    if (!eol) eol = end;
    size_t n = strlen(prefix);
    if ((size_t)(eol - line) > n && !memcmp(line, prefix, n))
      for (size_t i = 0; i < inputs->count; i++) {
        const char *name = inputs->items[i];
        size_t len = strlen(name);
        const char *after = line + n + len;
        if (after < eol && !memcmp(line + n, name, len) && *after && strchr(":([", *after))
          return xstrdup(name);
      }
    line = eol + 1;
  }
  return strlist_join(inputs, ", ");
}

// Whether the step's OUTPUT holds an error of ours naming no file ("sycl-thinlto: error: -j:
// ...", an option passed through -Xoffload-linker): that message is the whole story, and a
// second one blaming every input would point at the wrong thing.
static bool failed_on_options(const Buffer *output) {
  static const char prefix[] = TOOL_NAME ": error: ";
  const char *text = (const char *)output->data, *end = text + output->size;
  for (const char *line = text; line < end;) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    if (!eol) eol = end;
    size_t n = strlen(prefix);
    if ((size_t)(eol - line) > n && !memcmp(line, prefix, n) &&
        (line[n] == '-' || !memcmp(line + n, "unknown option", 14)))
      return true;
    line = eol + 1;
  }
  return false;
}

// A command line longer than this goes to its program in a response file, as clang passes
// long ones (LLVM's commandLineFitsWithinSystemLimits): what clang gave us through one must
// not fail with E2BIG when we pass it on. Both our link and the host linkers read @FILE.
enum { MAX_COMMAND_LINE = 64 * 1024, MAX_ARGUMENT = 32 * 4096 };

static bool fits_command_line(const StringList *argv) {
  size_t length = 0;
  for (size_t i = 0; i < argv->count; i++) {
    size_t n = strlen(argv->items[i]);
    if (n >= MAX_ARGUMENT) return false;
    length += n + 1;
  }
  return length <= MAX_COMMAND_LINE;
}

// Runs ARGV; on failure records an error saying which STEP failed and with what output. It
// names INPUTS (the files the step reads) when given, else the program that ran.
static int run_step(const WrapperRun *run, const char *step, const StringList *argv,
                    const StringList *inputs) {
  const WrapperOptions *o = &run->o;
  if (o->print_commands) print_command(argv);
  if (o->dry_run) return 0;
  const char **list = xcalloc(argv->count + 1, sizeof *list);
  list[0] = argv->items[0];
  size_t count = 1;
  char *response = NULL;
  if (!fits_command_line(argv)) {
    Buffer text = {0};
    for (size_t i = 1; i < argv->count; i++)
      append_response_arg(&text, argv->items[i]);
    response = format("%s%s.rsp", o->temp_prefix, step);
    for (char *c = response + strlen(o->temp_prefix); *c; c++)
      if (*c == ' ') *c = '-';
    remove_on_failure(response);
    int written = write_file_atomic(response, text.data, text.size);
    free(text.data);
    if (written) {
      error(response, "%s step: cannot write its response file: %s", step, strerror(-written));
      free(response);
      free(list);
      return -1;
    }
    list[count++] = format("@%s", response);
  } else {
    for (size_t i = 1; i < argv->count; i++)
      list[count++] = argv->items[i];
  }
  Buffer output = {0};
  int status = 0;
  int rc = run_tool(list, &output, &status);
  if (response) {
    if (!o->save_temps) own_remove(response);
    free((char *)list[1]);
    free(response);
  }
  free(list);
  show_names(run, &output);
  if (output.size) fwrite(output.data, 1, output.size, stderr);
  StringList shown = {0}; // INPUTS by the names the user knows
  for (size_t i = 0; inputs && i < inputs->count; i++) {
    const char *name = strmap_get(&run->shown_names, inputs->items[i]);
    strlist_push(&shown, xstrdup(name ? name : inputs->items[i]));
  }
  char *culprit = rc >= 0 && status && inputs ? failing_input(&output, &shown) : NULL;
  strlist_free(&shown);
  const char *what = culprit ? culprit : argv->items[0];
  bool told = rc >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 1 && failed_on_options(&output);
  free(output.data);
  if (told)
    ; // the step's own message said what is wrong with an option
  else if (rc < 0)
    error(argv->items[0], "%s step: cannot run it: %s", step, strerror(-rc));
  else if (WIFSIGNALED(status))
    error(what, "%s step failed: killed by signal %d", step, WTERMSIG(status));
  else if (WEXITSTATUS(status))
    error(what, "%s step failed (exit status %d)", step, WEXITSTATUS(status));
  free(culprit);
  return rc < 0 || status ? -1 : 0;
}

// The device link runs as a child process of our own binary, not in this process: the link
// stage reports bad input through fatal() (it exits), keeps global state (error counts,
// removal lists, the SPIR-V worker pool), and LLVM's SPIR-V backend is reliable once per
// process only (ARCHITECTURE.md fact 9). A child gives the wrapper a clean exit status.
static int link_device_code(const WrapperRun *run, const StringList *inputs,
                            const char *device_binary) {
  const WrapperOptions *o = &run->o;
  StringList argv = {0};
  strlist_push(&argv, executable_path());
  strlist_push(&argv, xstrdup("link"));
  if (o->jobs > 0) strlist_push(&argv, format("-j%d", o->jobs));
  for (size_t i = 0; i < o->device_link_args.count; i++)
    strlist_push(&argv, xstrdup(o->device_link_args.items[i]));
  strlist_push(&argv, xstrdup("-o"));
  strlist_push(&argv, xstrdup(device_binary));
  strlist_push(&argv, xstrdup("--"));
  for (size_t i = 0; i < inputs->count; i++)
    strlist_push(&argv, xstrdup(inputs->items[i]));
  int rc = run_step(run, "device link", &argv, inputs);
  strlist_free(&argv);
  return rc;
}

static int wrap_device_code(const WrapperOptions *o, const StringList *device_binaries,
                            const char *wrapper_object) {
  const char *device_binary = device_binaries->items[0]; // the one a message names
  WrapOptions wo = {.host_triple = o->host_triple,
                    .compile_options = o->backend_compile_options,
                    .print_module = o->print_wrapped_module,
                    .compress = o->compress,
                    .compression_level = o->compression_level,
                    .compression_threshold = (size_t)o->compression_threshold,
                    .report_compression = o->print_commands,
                    .intel_layout = o->intel_layout};
  if (o->print_commands) {
    char *compress = !o->compress ? xstrdup("")
                     : o->compression_threshold
                         ? format(" --compress --compression-level=%d --compression-threshold=%ld",
                                  o->compression_level, o->compression_threshold)
                         : format(" --compress --compression-level=%d", o->compression_level);
    char *binaries = strlist_join(device_binaries, "\" \"");
    fprintf(stderr, "\"%s\" wrap --host-triple=%s%s%s \"%s\" -o \"%s\"\n", TOOL_NAME,
            o->host_triple ? o->host_triple : "default", compress,
            o->intel_layout ? " --image-layout=intel" : "", binaries, wrapper_object);
    free(binaries);
    free(compress);
  }
  if (o->dry_run) return 0;
  OffloadEntry *images;
  PropertySets *properties;
  Buffer *bytes;
  size_t count;
  if (read_images_to_wrap(device_binaries, &images, &properties, &count, &bytes)) {
    error(device_binary, "wrap step failed");
    return -1;
  }
  char *why;
  int rc = write_wrapper_object(wrapper_object, images, properties, count, &wo, &why);
  if (rc) {
    error(wrapper_object, "wrap step failed: %s", why);
    free(why);
  }
  note("wrapped %zu device image(s)", count);
  images_to_wrap_free(images, properties, count, bytes, device_binaries->count);
  return rc;
}

// --sycl-device-link (DPC++'s -fsycl-link): the wrapper object, registration and device
// images, is the output; there is no host link. Written beside -o and renamed over it.
static int write_device_object(const WrapperOptions *o, const char *wrapper_object,
                               const char *output) {
  if (o->print_commands) fprintf(stderr, "\"cp\" \"%s\" \"%s\"\n", wrapper_object, output);
  if (o->dry_run) return 0;
  Buffer object = {0};
  int rc = read_file(wrapper_object, &object);
  if (rc) {
    error(wrapper_object, "%s", read_error_text(rc));
    return -1;
  }
  rc = write_file_atomic(output, object.data, object.size);
  buffer_free(&object);
  if (rc) error(output, "cannot write the output: %s", strerror(-rc));
  return rc ? -1 : 0;
}

// intel's name of the target of an image of TRIPLE, as a triple: its runtime takes the text
// before the first '-' for the target ("spir64", "spir64_gen"), and knows no "spirv64".
static const char *intel_triple(const char *triple) {
  return !strncmp(triple, "spirv64", 7) ? "spir64-unknown-unknown" : triple;
}

// --syclbin=STATE (-fsyclbin=): the device link's images and their property sets as a
// SYCLBIN file at OUTPUT, each image an abstract module of its own (as intel's wrapper makes
// them): SPIR-V as an ir entry, a native (AOT) image as a native one. No wrapping, no host link.
static int write_syclbin(const WrapperOptions *o, const StringList *device_binaries,
                         const char *output) {
  if (o->print_commands) {
    char *binaries = strlist_join(device_binaries, "\" \"");
    fprintf(stderr, "\"%s\" syclbin --state=%s \"%s\" -o \"%s\"\n", TOOL_NAME,
            syclbin_state_name(o->syclbin_state), binaries, output);
    free(binaries);
  }
  if (o->dry_run) return 0;
  OffloadEntry *images;
  PropertySets *properties;
  Buffer *bytes;
  size_t count;
  if (read_images_to_wrap(device_binaries, &images, &properties, &count, &bytes)) {
    error(device_binaries->items[0], "SYCLBIN step failed");
    return -1;
  }
  SyclbinImage *modules = xcalloc(count + 1, sizeof *modules);
  for (size_t i = 0; i < count; i++) {
    propsets_order_as_intel(&properties[i]); // JSON sorted them; .prop text as intel writes it
    const char *triple = offload_entry_get(&images[i], "triple");
    bool native = images[i].image_kind == IMG_OBJECT;
    modules[i] = (SyclbinImage){.properties = &properties[i],
                                .native = native,
                                .triple = intel_triple(triple),
                                .arch = native ? offload_entry_get(&images[i], "arch") : NULL,
                                .image = images[i].image,
                                .size = images[i].image_size};
    if (native && (!modules[i].arch || !*modules[i].arch))
      fatal(device_binaries->items[0], "native image %zu has no arch", i); // our link wrote it
  }
  Buffer file = {0};
  char *why = NULL;
  int rc = syclbin_write(&file, o->syclbin_state, modules, count, &why);
  if (rc) {
    error(output, "SYCLBIN step failed: %s", why);
    free(why);
  } else if ((rc = write_file_atomic(output, file.data, file.size))) {
    error(output, "cannot write the output: %s", strerror(-rc));
  } else {
    note("SYCLBIN (%s): %zu abstract module(s)", syclbin_state_name(o->syclbin_state), count);
  }
  images_to_wrap_free(images, properties, count, bytes, device_binaries->count);
  free(file.data);
  free(modules);
  return rc ? -1 : 0;
}

// The host linker's temporary beside OUTPUT, made empty here, exclusively, under a name with
// a random part (base/owned.c): never a file, folder or symbolic link planted there. (It was
// only named, and ld wrote through a symbolic link found at that name, host and PID being
// all it took to guess it.) Its descriptor stays open (locked: no other run takes it for a
// dead one's) until the host link is over: ld writes into the file, lld renames its own over
// it. NULL after an error naming OUTPUT.
static char *make_partial_output(const char *output, int *fd) {
  char *name;
  *fd = own_create_temporary(output, &name);
  if (*fd >= 0) return name;
  error(output, "cannot write the output: %s", strerror(-*fd));
  return NULL;
}

// The host linker writes beside the output and the result is renamed over it: a failed
// link leaves no output. The wrapper object goes before the first -l, so the libraries
// after it (the runtime's among them) resolve __sycl_register_lib.
static int link_host(const WrapperRun *run, const char *wrapper_object, const char *output) {
  const WrapperOptions *o = &run->o;
  int fd = -1;
  char *partial_output = o->dry_run ? temporary_name(output) : make_partial_output(output, &fd);
  if (!partial_output) return -1;
  StringList argv = {0};
  strlist_push(&argv, xstrdup(o->linker_path));
  bool wrapper_added = !wrapper_object;
  for (size_t i = 0; i <= o->linker_args.count; i++) {
    if (i == o->output_at) {
      strlist_push(&argv, xstrdup("-o"));
      strlist_push(&argv, xstrdup(partial_output));
    }
    if (i == o->linker_args.count) break;
    const char *a = o->linker_args.items[i];
    if (!wrapper_added && (!strncmp(a, "-l", 2) || !strncmp(a, "--library", 9))) {
      strlist_push(&argv, xstrdup(wrapper_object));
      wrapper_added = true;
    }
    strlist_push(&argv, xstrdup(a));
  }
  if (!wrapper_added) strlist_push(&argv, xstrdup(wrapper_object));
  int rc = run_step(run, "host link", &argv, NULL);
  int moved;
  struct stat st;
  if (!o->dry_run) own_adopt(partial_output); // what the host linker left there is ours
  if (!rc && !o->dry_run && (lstat(partial_output, &st) != 0 || !st.st_size)) {
    // A "linker" that exits 0 and writes nothing (--linker-path=/bin/true): said as it is,
    // not as a failed rename, nor an empty output.
    error(o->linker_path, "the host linker exited 0 but wrote no output (%s)", partial_output);
    rc = -1;
  } else if (!rc && !o->dry_run && (moved = replace_file(partial_output, output))) {
    error(output, "cannot write the output: %s", strerror(-moved));
    rc = -1;
  }
  if (rc && !o->dry_run) own_remove(partial_output);
  if (fd >= 0) close(fd);
  strlist_free(&argv);
  free(partial_output);
  return rc;
}

int linker_wrapper_main(int argc, char **argv) {
  WrapperRun run = {.o = {.compression_level = WRAP_COMPRESSION_LEVEL}};
  WrapperOptions *o = &run.o;
  parse_wrapper_options(argc, argv, o);
  if (o->output) refuse_stdout_output(o->output);
  char *why;
  if (o->host_triple && check_host_triple(o->host_triple, &why))
    fatal(NULL, "--host-triple: %s", why);
  if (!o->linker_path) fatal(NULL, "host link step: no --linker-path=<host linker> given");
  if (access(o->linker_path, X_OK) != 0)
    fatal(o->linker_path, "host link step: the --linker-path cannot be run: %s", strerror(errno));
  const char *output = o->output ? o->output : "a.out";

  // The host linker's output never replaces one of its inputs (it writes a temporary that
  // is renamed over the output after a successful link): refused before any step runs.
  record_host_inputs(&o->linker_args);
  check_output_path(output, "-o");
  // The device link's bare --time-trace writes beside its output, in our temporary
  // directory, which it then kept from being removed (left in TMPDIR unseen): beside -o.
  for (size_t i = 0; i < o->device_link_args.count; i++) {
    char **a = &o->device_link_args.items[i];
    if (strcmp(*a, "--time-trace") && strcmp(*a, "-time-trace")) continue;
    free(*a);
    *a = format("--time-trace=%s.sycl.time-trace", output);
  }
  check_device_link_outputs(&o->device_link_args);
  char *temp_dir = NULL, *temp_prefix, *device_binary, *wrapper_object;
  if (o->save_temps) {
    temp_prefix = format("%s.sycl.", output);
  } else {
    const char *tmp = getenv("TMPDIR");
    temp_dir = make_temp_dir(tmp && *tmp ? tmp : "/tmp", TOOL_NAME "-wrapper");
    temp_prefix = format("%s/", temp_dir);
  }
  o->temp_prefix = temp_prefix;
  device_binary = format("%s%s", temp_prefix, o->save_temps ? "bin" : "device.bin");
  wrapper_object = format("%swrapper.o", temp_prefix);
  if (o->save_temps) {
    check_output_path(device_binary, "--save-temps");
    check_output_path(wrapper_object, "--save-temps");
  }

  // Host bitcode (host -flto) registers its uniquely identifiable variables (seed 004) and
  // may embed device code: rewritten first, so the steps below see the copies.
  int rc = rewrite_host_bitcode(&run);

  // Which inputs of the host link carry device code: objects, archives, -l archives.
  StringList device_inputs = {0};
  if (!rc) collect_device_inputs(&run, &device_inputs);
  exit_on_errors(); // damaged inputs, before anything is written
  if (!device_inputs.count) {
    free(wrapper_object);
    wrapper_object = NULL;
  }
  own_expect(device_binary); // the device link makes it (with -no-sycl-rdc: DEVICE_BINARY.N)
  if (temp_dir) { // and its temporaries there, if it is killed before it renames one
    char *made = format("%s*", device_binary);
    own_expect(made);
    free(made);
  }

  // One device link of every input's device code; with --no-sycl-rdc one per input, each
  // unit's code linked on its own (a SYCL_EXTERNAL function of another unit is undefined).
  StringList device_binaries = {0};
  if (!rc && device_inputs.count && !o->separate_units) {
    strlist_push(&device_binaries, xstrdup(device_binary));
    rc = link_device_code(&run, &device_inputs, device_binary);
  }
  for (size_t i = 0; !rc && o->separate_units && i < device_inputs.count; i++) {
    char *binary = format("%s.%zu", device_binary, i);
    if (o->save_temps) check_output_path(binary, "--save-temps");
    StringList unit = {.items = &device_inputs.items[i], .count = 1};
    strlist_push(&device_binaries, binary);
    own_expect(binary);
    rc = link_device_code(&run, &unit, binary);
  }
  if (!rc && (o->device_link_only || o->syclbin) && !device_inputs.count) {
    error(NULL, "%s: no device code in the inputs, nothing to link",
          o->syclbin ? o->syclbin : "--sycl-device-link");
    rc = -1;
  } else if (!rc && o->syclbin) {
    rc = write_syclbin(o, &device_binaries, output);
  } else if (!rc && device_inputs.count) {
    rc = wrap_device_code(o, &device_binaries, wrapper_object);
  } else if (!rc) {
    note("no device code in the inputs: host link only");
  }
  if (!rc && !o->syclbin)
    rc = o->device_link_only ? write_device_object(o, wrapper_object, output)
                            : link_host(&run, wrapper_object, output);

  if (temp_dir) {
    for (size_t i = 0; i < device_binaries.count; i++)
      own_remove(device_binaries.items[i]);
    if (wrapper_object) own_remove(wrapper_object);
    for (size_t i = 0; i < run.temps.count; i++)
      own_remove(run.temps.items[i]);
    remove_temp_dir(temp_dir);
  }
  strlist_free(&run.temps);
  free_map_values(&run.shown_names);
  strlist_free(&run.shown_paths);
  free_map_values(&run.host_bitcode_device_code);
  strlist_free(&device_binaries);
  strlist_free(&device_inputs);
  strlist_free(&o->device_link_args);
  strlist_free(&o->aot_devices);
  strlist_free(&o->ocloc_args);
  strlist_free(&o->linker_args);
  free(temp_dir);
  free(temp_prefix);
  free(device_binary);
  free(wrapper_object);
  // A failed link never wrote OUTPUT (only its temporary, removed): what stands there is
  // left as it was.
  if (rc) exit_on_errors();
  return rc ? 1 : 0;
}
