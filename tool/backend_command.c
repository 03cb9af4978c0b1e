// `sycl-thinlto backend`: one distributed job of a link (hooks/distribute.c), as a DTLTO
// distributor runs it: its options name its files. It parses the command line only.
#include "tool/tool.h"

#include <stdio.h>
#include <string.h>

static const char backend_usage[] =
    "USAGE: sycl-thinlto backend --meta=<job.meta> [--log=<file>] <job.bc> -o <prefix>\n"
    "\n"
    "The backends of one image or several, as a job of `sycl-thinlto link --distributor=...`:\n"
    "for each spec in <job.meta> and the completed module after the last one in <job.bc>,\n"
    "finalizes the module as its spec says, computes its properties, emits and checks its\n"
    "SPIR-V; then writes <prefix>.result: for each image, what it was given (its spec's and\n"
    "bitcode's hashes), the image's symbols, imports and properties, and its SPIR-V. The\n"
    "link writes the inputs and reads the result back.\n"
    "\n"
    "OPTIONS:\n"
    "  --meta=<file>   the images' specs, written by the link (required)\n"
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
