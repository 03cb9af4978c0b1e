// `sycl-thinlto backend`: one distributed job of a link (hooks/distribute.c), as a DTLTO
// distributor runs it: its options name its files. It parses the command line only.
#include "tool/tool.h"

#include <stdio.h>
#include <string.h>

static const char backend_usage[] =
    "USAGE: sycl-thinlto backend --meta=<image.meta> [--log=<file>] <image.bc> -o <prefix>\n"
    "\n"
    "One image's backend, as a job of `sycl-thinlto link --distributor=...`: finalizes the\n"
    "completed module <image.bc> as <image.meta> says, computes its properties, emits and\n"
    "checks its SPIR-V, and writes <prefix>.result: what it was given (its inputs' hashes),\n"
    "the image's symbols, imports and properties, and its SPIR-V. The link writes the inputs\n"
    "and reads the result back.\n"
    "\n"
    "OPTIONS:\n"
    "  --meta=<file>   the image's spec, written by the link (required)\n"
    "  --log=<file>    where the job's stderr goes\n"
    "  -o <prefix>     the outputs' common prefix (required)\n";

int backend_main(int argc, char **argv) {
  const char *meta = NULL, *log = NULL, *input = NULL, *out = NULL, *v;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      return print_help(backend_usage);
    } else if ((v = option_value(argc, argv, &i, a, "meta"))) {
      meta = v;
    } else if ((v = option_value(argc, argv, &i, a, "log"))) {
      log = v;
    } else if (!strcmp(a, "-o")) {
      if (++i >= argc) fatal(NULL, "option '-o' needs a value");
      out = argv[i];
    } else if (a[0] == '-') {
      fatal(NULL, "unknown option '%s'; see 'sycl-thinlto backend --help'", a);
    } else if (input) {
      fatal(a, "one input only: %s is the input already", input);
    } else {
      input = a;
    }
  }
  if (!meta || !input || !out) fatal(NULL, "backend: --meta, an input and -o are required");
  refuse_stdout_output(out);
  return backend_job_main(meta, input, out, log);
}
