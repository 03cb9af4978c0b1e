// The `wrap` and `register-host` commands: their options, then one call into wrap/. They
// build no wrapper object and change no module themselves.
#include "tool/tool.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//
// `sycl-thinlto wrap IMAGES -o wrapper.o`
//

static const char wrap_usage[] =
    "USAGE: sycl-thinlto wrap [options] <images> -o <wrapper.o>\n"
    "\n"
    "Writes a host object registering the SYCL images of the given OffloadBinary files\n"
    "(what `sycl-thinlto link` writes) with __sycl_register_lib, each with its kernels\n"
    "and its property sets (the `properties` key).\n"
    "\n"
    "OPTIONS:\n"
    "  -o <file>                  the wrapper object (required)\n"
    "  --host-triple=<triple>     host target (default: LLVM's default triple; x86-64 only)\n"
    "  --compile-options=<text>   compile options recorded for every image\n"
    "  --link-options=<text>      link options recorded for every image\n"
    "  --compress                 register images of at least 512 bytes zstd-compressed, as\n"
    "                             intel's --offload-compress (Format 4; what intel's SYCL\n"
    "                             runtime decompresses)\n"
    "  --compression-level=<n>    zstd's level for --compress (default 10, intel's)\n"
    "  --compression-threshold=<bytes>  the smallest image --compress compresses (512)\n"
    "  --image-layout=llvm|intel  the image fields as upstream's SYCL runtime reads them\n"
    "                             (llvm, the default) or as intel's (DPC++'s libsycl: offload\n"
    "                             kind 4, format found from the bytes, target \"spir64\")\n";

int wrap_main(int argc, char **argv) {
  const char *output = NULL;
  WrapOptions o = {.compression_level = WRAP_COMPRESSION_LEVEL};
  StringList inputs = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      return print_help(wrap_usage);
    } else if (!strcmp(a, "-o")) {
      if (++i >= argc) fatal(NULL, "option '-o' needs a value");
      output = argv[i];
    } else if (!strncmp(a, "--host-triple=", 14)) {
      o.host_triple = a + 14;
    } else if (!strncmp(a, "--compile-options=", 18)) {
      o.compile_options = a + 18;
    } else if (!strncmp(a, "--link-options=", 15)) {
      o.link_options = a + 15;
    } else if (!strcmp(a, "--compress")) {
      o.compress = true;
    } else if (!strncmp(a, "--compression-level=", 20)) {
      char *end;
      long level = strtol(a + 20, &end, 10);
      if (!a[20] || *end || level < INT_MIN || level > INT_MAX)
        fatal(NULL, "%s: expected a compression level (a number), not '%s'", a, a + 20);
      o.compression_level = (int)level;
    } else if (!strncmp(a, "--compression-threshold=", 24)) {
      char *end;
      long bytes = strtol(a + 24, &end, 10);
      if (!a[24] || *end || bytes < 0)
        fatal(NULL, "%s: expected a size in bytes, not '%s'", a, a + 24);
      o.compression_threshold = bytes ? (size_t)bytes : 1;
    } else if (!strncmp(a, "--image-layout=", 15)) {
      if (parse_image_layout(a + 15, &o.intel_layout))
        fatal(NULL, "%s: expected llvm or intel, not '%s'", a, a + 15);
    } else if (!strcmp(a, "-v")) {
      verbose = true;
      o.report_compression = true;
    } else if (a[0] == '-' && a[1]) {
      fatal(NULL, "unknown option '%s'; see 'sycl-thinlto wrap --help'", a);
    } else {
      strlist_push(&inputs, xstrdup(a));
    }
  }
  char *why;
  if (o.host_triple && check_host_triple(o.host_triple, &why)) fatal(NULL, "--host-triple: %s", why);
  if (!output) fatal(NULL, "no output file; use -o <file>");
  refuse_stdout_output(output);
  if (!inputs.count) fatal(NULL, "no input files");
  for (size_t i = 0; i < inputs.count; i++)
    output_rule_input(inputs.items[i]);
  check_output_path(output, "-o");
  OffloadEntry *images;
  PropertySets *properties;
  Buffer *bytes;
  size_t count;
  if (read_images_to_wrap(&inputs, &images, &properties, &count, &bytes)) exit_on_errors();
  if (write_wrapper_object(output, images, properties, count, &o, &why)) fatal(output, "%s", why);
  note("wrapped %zu image(s)", count);
  images_to_wrap_free(images, properties, count, bytes, inputs.count);
  strlist_free(&inputs);
  return 0;
}

//
// `sycl-thinlto register-host IN.bc -o OUT.bc`
//

static const char register_usage[] =
    "USAGE: sycl-thinlto register-host [options] <input.bc> -o <output.bc>\n"
    "\n"
    "Adds to a host LLVM module one internal constructor, run before every other constructor\n"
    "of the module, that calls\n"
    "  void __register_uniquely_identifiable_object(void *address, const char *unique_id,\n"
    "                                               const char *kind)\n"
    "for each global variable it defines with \"sycl-unique-id\" and \"sycl-uid-kind\"\n"
    "attributes (device_global, specialization_id). A module without any is written unchanged.\n"
    "The linker-wrapper mode runs this on every host bitcode input (host -flto).\n"
    "\n"
    "OPTIONS:\n"
    "  -o <file>   the output bitcode (required)\n"
    "  -v          say how many variables were registered\n";

int register_host_main(int argc, char **argv) {
  const char *input = NULL, *output = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      return print_help(register_usage);
    } else if (!strcmp(a, "-o")) {
      if (++i >= argc) fatal(NULL, "option '-o' needs a value");
      output = argv[i];
    } else if (!strncmp(a, "-o", 2)) {
      output = a + 2;
    } else if (!strcmp(a, "-v")) {
      verbose = true;
    } else if (a[0] == '-' && a[1]) {
      fatal(NULL, "unknown option '%s'; see 'sycl-thinlto register-host --help'", a);
    } else if (input) {
      fatal(a, "register-host takes one input file (the first was %s)", input);
    } else {
      input = a;
    }
  }
  if (!input) fatal(NULL, "no input file");
  if (!output) fatal(NULL, "no output file; use -o <file>");
  refuse_stdout_output(output);
  output_rule_input(input);
  check_output_path(output, "-o");
  Buffer in = {0};
  int rc = read_file(input, &in);
  if (rc) fatal(input, "%s", read_error_text(rc));
  Buffer out;
  size_t registered;
  char *why;
  read_memory_ceiling_begin(in.size);
  if (register_host_bitcode(in.data, in.size, input, &out, &registered, &why))
    fatal(input, "%s", why);
  read_memory_ceiling_end();
  if ((rc = write_file_atomic(output, out.data, out.size)))
    fatal(output, "cannot write output: %s", strerror(-rc));
  note("%s: %zu variable(s) registered", input, registered);
  free(in.data);
  free(out.data);
  return 0;
}
