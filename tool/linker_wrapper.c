// The clang-linker-wrapper personality: finds the device code among the host link's inputs,
// links it (our `link`), wraps it with its property sets and runs the host linker. It does
// not resolve host symbols: every archive member with device code is linked.
#include "tool/tool.h"

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

static const char wrapper_usage[] =
    "USAGE: clang-linker-wrapper [options] [--] <host linker arguments>\n"
    "       sycl-thinlto wrapper [options] [--] <host linker arguments>\n"
    "\n"
    "Stands in for clang-linker-wrapper 22 under `clang++ -fsycl`: links the SYCL device\n"
    "code of the object files, archives and -l libraries the host link uses with ThinLTO,\n"
    "wraps every image with its property sets and runs the host linker with the wrapper\n"
    "object added. Host bitcode inputs (host -flto) are replaced by copies that register\n"
    "their uniquely identifiable variables first (see 'sycl-thinlto register-host --help').\n"
    "Arguments it does not know go to the host linker.\n"
    "\n"
    "OPTIONS:\n"
    "  --linker-path=<path>         the host linker (required)\n"
    "  --host-triple=<triple>       the host target (x86-64)\n"
    "  --device-linker=[<triple>=]<arg>  an argument for the device link (sycl-thinlto link)\n"
    "  --device-compiler=[<triple>=]<arg> accepted; the device link needs no compiler\n"
    "  --sycl-thin-lto              ThinLTO device link (the default)\n"
    "  --wrapper-jobs=<n>           parallel jobs of the device link\n"
    "  --wrapper-verbose            print every command run\n"
    "  --dry-run                    print the commands, run none\n"
    "  --save-temps                 keep <output>.sycl.bin and <output>.sycl.wrapper.o\n"
    "  --compress                   register images of 512 bytes or more zstd-compressed\n"
    "                               (intel's Format 4); also --offload-compress\n"
    "  --compression-level=<n>      zstd's level for --compress (default 10)\n"
    "  --print-wrapped-module       print the wrapper object's LLVM IR on stderr\n"
    "\n"
    "intel's SYCL options, as DPC++'s driver passes them:\n"
    "  --triple=<spir64|spirv64>    the device target (AOT triples refused)\n"
    "  --sycl-post-link-options=<opts>  sycl-post-link's options, for the device link\n"
    "  --llvm-spirv-options=[sycl:<triple>=]<opts>  the driver's llvm-spirv options\n"
    "  --sycl-device-libraries=<a,b>, --sycl-device-library-location=<dir>\n"
    "  --bitcode-library=sycl-<triple>-<arch>=<file>, --sycl-allow-device-image-dependencies\n"
    "  -sycl-module-split-mode=<mode> (with -no-use-sycl-post-link-tool)\n"
    "Each other intel SYCL option is taken or refused naming it (README, 'The DPC++ flow').\n";

typedef struct {
  const char *host_triple;
  const char *linker_path;
  const char *output; // the host linker's -o (its last, as ld takes it), NULL if none
  size_t output_at;   // where in linker_args the host link's -o goes (its last spelling)
  bool print_commands;
  bool dry_run;
  bool save_temps;
  bool print_wrapped_module;
  bool compress;              // --compress, --offload-compress
  int compression_level;      // --compression-level=, --offload-compression-level=
  long compression_threshold; // --offload-compression-threshold=; 0: intel's default
  bool use_post_link_tool, no_use_post_link_tool;
  bool device_link_only; // --sycl-device-link (-fsycl-link): -o is the wrapper object
  bool separate_units;   // --no-sycl-rdc: each input's device code linked on its own
  const char *module_split_mode; // --sycl-module-split-mode, checked after all options
  int jobs;
  StringList device_link_args;
  StringList linker_args;
  const char *temp_prefix; // where the steps' temporaries go: a directory of ours/, or OUT.sycl.
} WrapperOptions;

// clang-linker-wrapper spells its options -name=value or --name=value.
static const char *wrapper_option(const char *arg, const char *name) {
  if (arg[0] != '-') return NULL;
  arg += arg[1] == '-' ? 2 : 1;
  size_t n = strlen(name);
  if (strncmp(arg, name, n)) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  return arg[n] ? NULL : "";
}

// Whether TEXT begins with an architecture llvm::Triple knows (up to its first '-'): clang
// writes -Xoffload-linker-<triple> ARG as --device-linker=<triple>=ARG with the triple as the
// user spelled it ("spirv64"), and clang-linker-wrapper takes the text before '=' for a
// triple when its architecture is known, else the whole for an ARG=VALUE argument.
static bool names_known_arch(const char *text, size_t len) {
  static const char *const arches[] = {
      "spir",    "spir64",  "spirv",   "spirv32", "spirv64", "nvptx",   "nvptx64", "amdgcn",
      "r600",    "x86_64",  "amd64",   "i386",    "i486",    "i586",    "i686",    "aarch64",
      "arm64",   "arm",     "armv7",   "armv7a",  "armv8",   "thumb",   "riscv32", "riscv64",
      "powerpc", "ppc",     "ppc64",   "ppc64le", "powerpc64", "powerpc64le", "mips",
      "mips64",  "mipsel",  "mips64el", "s390x",  "sparc",   "sparcv9", "loongarch64",
      "wasm32",  "wasm64",  "hexagon", "ve",      NULL};
  const char *dash = memchr(text, '-', len);
  size_t n = dash ? (size_t)(dash - text) : len;
  // SPIR-V's versioned architectures (spirv64v1.5) are spirv's.
  const char *version = n > 5 && !strncmp(text, "spirv", 5) ? memchr(text + 5, 'v', n - 5) : NULL;
  if (version) n = (size_t)(version - text);
  for (const char *const *a = arches; *a; a++)
    if (strlen(*a) == n && !strncmp(text, *a, n)) return true;
  return false;
}

// "--device-linker=spirv64=--split=kernel" (clang's -Xoffload-linker-spirv64 --split=kernel):
// the argument, when it is meant for every target or for a SPIR-V one; NULL when it is for
// another target. A value whose text before '=' names no architecture is an ARG=VALUE
// argument for every target. (The triple was known only with a '-' in it: "spirv64=ARG"
// became an input file of that name.)
static const char *device_argument(const char *value) {
  if (value[0] == '-') return value;
  const char *eq = strchr(value, '=');
  if (!eq || !names_known_arch(value, (size_t)(eq - value))) return value;
  if (!eq[1]) fatal(NULL, "--device-linker=%s: no argument after the triple", value);
  char *triple = xstrndup(value, (size_t)(eq - value));
  bool ours = is_spirv_triple(triple);
  free(triple);
  return ours ? eq + 1 : NULL;
}

// Options of clang-linker-wrapper 22 that change nothing here.
static const char *const ignored_options[] = {"print-wall-time", "opt-level",     "offload-opt",
                                              "cuda-path",       "rocm-path",     "embed-bitcode",
                                              "relocatable-link", NULL};

// intel's SYCL options that change nothing for a SPIR-V JIT device link made by this tool:
// it is the post-link tool and the device linker at once; a default-constants image is made
// for AOT targets only; unused SYCL_EXTERNAL functions go as they do by default; no ESIMD.
static const char *const sycl_accepted[] = {"use-sycl-post-link-tool",
                                            "use-clang-sycl-linker",
                                            "sycl-add-default-spec-consts-image",
                                            "no-sycl-add-default-spec-consts-image",
                                            "sycl-remove-unused-external-funcs",
                                            "sycl-device-code-split-esimd",
                                            "no-sycl-device-code-split-esimd",
                                            // intel embeds the IR for NVPTX and AMDGCN
                                            // targets only (kernel fusion); not for SPIR-V
                                            "sycl-embed-ir",
                                            NULL};

// intel's other SYCL options of clang-linker-wrapper, each refused with what it is for:
// they would change what is built in ways this device link does not do.
static const struct {
  const char *name, *why;
} sycl_refused[] = {
    {"emit-fatbin-only", "a fat binary of NVPTX/AMDGCN images only is not what a SPIR-V link makes"},
    {"syclbin", "SYCLBIN output is not written: intel's design document "
                "(sycl/doc/design/SYCLBINDesign.md) leaves how its metadata byte table encodes "
                "property sets and how SYCLBIN files are linked unspecified ('TODO')"},
    {"sycl-dump-device-code", "dumping the device images is not supported (use --save-temps)"},
    {"no-sycl-remove-unused-external-funcs",
     "SYCL_EXTERNAL functions stay entry points only with --sycl-allow-device-image-dependencies"},
    {"sycl-nvptx-device-libraries", "only SPIR-V device code is linked"},
    {"sycl-backend-compile-options", "AOT compilation and backend options are not supported"},
    {"sycl-target-link-options", "AOT compilation and backend options are not supported"},
    {"sycl-backend-compile-options-from-image", "AOT compilation is not supported"},
    {"sycl-backend-link-options-from-image", "AOT compilation is not supported"},
    {"gpu-tool-arg", "AOT compilation (ocloc) is not supported"},
    {"cpu-tool-arg", "AOT compilation (opencl-aot) is not supported"},
    {"sycl-is-windows-msvc-env", "only Linux hosts are supported"},
    {NULL, NULL}};

// -name, --name, -name=V or --name=V: the value ("" for none), or NULL.
static const char *sycl_option(const char *arg, const char *name) {
  if (arg[0] != '-') return NULL;
  return wrapper_option(arg, name);
}

// What a sycl-post-link option of --sycl-post-link-options= asks of the device link: its
// option for the link, "" when the link does it anyway, NULL when it cannot.
static char *post_link_option_for_link(const char *opt) {
  const char *name = opt + (opt[1] == '-' ? 2 : 1);
  static const char *const always[] = {"properties",
                                       "symbols",
                                       "device-globals",
                                       "emit-exported-symbols",
                                       "emit-imported-symbols",
                                       "emit-only-kernels-as-entry-points",
                                       "emit-param-info",
                                       "split-esimd",
                                       "lower-esimd",
                                       "lower-esimd-force-stateless-mem",
                                       "reduce-memory-usage",
                                       "O0",
                                       "O1",
                                       "O2",
                                       "O3",
                                       "Os",
                                       "Oz",
                                       NULL};
  if (opt[0] != '-') return NULL;
  for (const char *const *a = always; *a; a++)
    if (!strcmp(name, *a) || (!strncmp(name, *a, strlen(*a)) && name[strlen(*a)] == '='))
      return xstrdup("");
  if (!strncmp(name, "split=", 6)) return format("--split=%s", name + 6);
  if (!strcmp(name, "allow-device-image-dependencies") || !strcmp(name, "support-dynamic-linking"))
    return xstrdup("--allow-device-image-dependencies");
  if (!strcmp(name, "emit-program-metadata")) return xstrdup("--emit-program-metadata");
  if (!strncmp(name, "spec-const=", 11)) return format("--spec-const=%s", name + 11);
  if (!strcmp(name, "emit-kernel-names")) return xstrdup("--emit-kernel-names");
  return NULL;
}

// The words of an option list the driver joined with spaces, as intel splits it.
static void split_spaces(StringList *out, const char *value) {
  for (const char *p = value; *p;) {
    p += strspn(p, " ");
    size_t len = strcspn(p, " ");
    if (len) strlist_push(out, xstrndup(p, len));
    p += len;
  }
}

static void take_post_link_options(WrapperOptions *o, const char *arg, const char *value) {
  StringList opts = {0};
  split_spaces(&opts, value);
  for (size_t i = 0; i < opts.count; i++) {
    char *link_arg = post_link_option_for_link(opts.items[i]);
    if (!link_arg)
      fatal(NULL, "%s: '%s' is not a sycl-post-link option the device link takes", arg,
            opts.items[i]);
    // A bad value is named as the user wrote it (the link named its own --spec-const).
    const char *v = strchr(link_arg, '=');
    SplitMode mode;
    if (!strncmp(link_arg, "--spec-const=", 13) && strcmp(v + 1, "native") &&
        strcmp(v + 1, "emulation"))
      fatal(NULL, "%s: '%s': expected native or emulation, not '%s'", arg, opts.items[i], v + 1);
    if (!strncmp(link_arg, "--split=", 8) && split_mode_parse(v + 1, &mode))
      fatal(NULL, "%s: '%s': expected kernel, source or auto, not '%s'", arg, opts.items[i],
            v + 1);
    if (*link_arg)
      strlist_push(&o->device_link_args, link_arg);
    else
      free(link_arg);
  }
  strlist_free(&opts);
}

// A SPIR-V JIT triple (spir64, spirv64-unknown-unknown, ...), not an AOT one (spir64_gen).
static bool is_jit_spirv_triple(const char *triple) {
  if (!is_spirv_triple(triple)) return false;
  const char *rest = triple + (strncmp(triple, "spirv64", 7) ? 6 : 7);
  return *rest != '_';
}

// --llvm-spirv-options=: DPC++'s driver passes its llvm-spirv options on every build (intel's
// getTripleBasedSPIRVTransOpts: the debug-info format, llvm.genx. intrinsics allowed, the
// extension list from -all, in older drivers -spirv-max-version=1.4 and
// -spirv-allow-extra-diexpressions), then the user's -Xspirv-translator options, optionally
// for one target ("sycl:TRIPLE=OPTS", newer drivers). The device link makes SPIR-V 1.4 with
// LLVM's SPIR-V backend and its own extension set (spirv/codegen.c), which the driver's list
// allows: those options are taken; anything else asks llvm-spirv for what the backend does
// not do and is refused, naming it.
static void take_translator_options(const char *arg, const char *value) {
  if (!strncmp(value, "sycl:", 5)) {
    const char *eq = strchr(value, '=');
    if (!eq) fatal(NULL, "%s: expected sycl:<triple>=<options>", arg);
    char *triple = xstrndup(value + 5, (size_t)(eq - value - 5));
    bool ours = is_jit_spirv_triple(triple);
    free(triple);
    if (!ours) return; // another target's: its device link is refused where its images are
    value = eq + 1;
  }
  StringList opts = {0};
  split_spaces(&opts, value);
  for (size_t i = 0; i < opts.count; i++) {
    const char *opt = opts.items[i];
    const char *name = opt[0] == '-' ? opt + (opt[1] == '-' ? 2 : 1) : NULL;
    const char *why = NULL;
    if (!name) {
      why = "not an option";
    } else if (!strncmp(name, "spirv-debug-info-version=", 25) ||
               !strcmp(name, "spirv-allow-extra-diexpressions") ||
               !strcmp(name, "spirv-allow-unknown-intrinsics") ||
               !strncmp(name, "spirv-allow-unknown-intrinsics=", 31)) {
      continue;
    } else if (!strncmp(name, "spirv-ext=", 10)) {
      if (!strncmp(name + 10, "-all", 4) && (!name[14] || name[14] == ',')) continue;
      why = "the SPIR-V backend's extensions are its own; only the DPC++ driver's list "
            "(-spirv-ext=-all,...) is taken";
    } else if (!strncmp(name, "spirv-max-version=", 18)) {
      const char *v = name + 18;
      char *end;
      long minor = !strncmp(v, "1.", 2) ? strtol(v + 2, &end, 10) : -1;
      if (minor >= 4 && end != v + 2 && !*end) continue;
      why = "the device link writes SPIR-V 1.4";
    } else {
      why = "the device link makes SPIR-V with LLVM's SPIR-V backend, not llvm-spirv; of "
            "llvm-spirv's options it takes only those DPC++'s driver passes on every build";
    }
    fatal(NULL, "%s: '%s': %s", arg, opt, why);
  }
  strlist_free(&opts);
}

// intel's SYCL options. True if ARG was one (taken, or refused with fatal()).
static bool take_sycl_option(WrapperOptions *o, const char *a) {
  const char *v;
  for (size_t i = 0; sycl_refused[i].name; i++)
    if (sycl_option(a, sycl_refused[i].name)) fatal(NULL, "%s: %s", a, sycl_refused[i].why);
  for (const char *const *name = sycl_accepted; *name; name++)
    if ((v = sycl_option(a, *name)) && !*v) {
      if (!strcmp(*name, "use-sycl-post-link-tool")) o->use_post_link_tool = true;
      return true;
    }
  if ((v = sycl_option(a, "no-use-sycl-post-link-tool")) && !*v) {
    o->no_use_post_link_tool = true;
  } else if ((v = sycl_option(a, "sycl-device-link")) && !*v) {
    o->device_link_only = true;
  } else if ((v = sycl_option(a, "no-sycl-rdc")) && !*v) {
    o->separate_units = true;
  } else if ((v = sycl_option(a, "sycl-post-link-options"))) {
    take_post_link_options(o, a, v);
  } else if ((v = sycl_option(a, "llvm-spirv-options"))) {
    take_translator_options(a, v);
  } else if ((v = sycl_option(a, "sycl-device-libraries"))) {
    if (!*v) fatal(NULL, "%s: SYCL device library file list cannot be empty", a);
    strlist_push(&o->device_link_args, format("--device-libs=%s", v));
  } else if ((v = sycl_option(a, "sycl-device-library-location"))) {
    strlist_push(&o->device_link_args, format("--library-path=%s", v));
  } else if ((v = sycl_option(a, "bitcode-library"))) {
    // Upstream's <kind>-<triple>-<arch>=<file> (a SYCL one for a SPIR-V triple is ours; other
    // kinds are not), or intel's <triple>=<file> (its driver passes SYCL's device libraries
    // so): linked on demand.
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
      fatal(NULL, "%s: expected <triple>=<file> or sycl-<triple>-<arch>=<file>", a);
    bool kind = !strncmp(v, "sycl-", 5) || !strncmp(v, "openmp-", 7) ||
                !strncmp(v, "cuda-", 5) || !strncmp(v, "hip-", 4);
    char *target = xstrndup(v + (!strncmp(v, "sycl-", 5) ? 5 : 0),
                            (size_t)(eq - v - (!strncmp(v, "sycl-", 5) ? 5 : 0)));
    bool ours = (!kind || !strncmp(v, "sycl-", 5)) && is_spirv_triple(target);
    free(target);
    if (ours) strlist_push(&o->device_link_args, format("--device-libs=%s", eq + 1));
  } else if ((v = sycl_option(a, "sycl-allow-device-image-dependencies")) && !*v) {
    strlist_push(&o->device_link_args, xstrdup("--allow-device-image-dependencies"));
  } else if ((v = sycl_option(a, "sycl-module-split-mode"))) {
    o->module_split_mode = v;
  } else if (((v = sycl_option(a, "compress")) || (v = sycl_option(a, "offload-compress"))) &&
             !*v) {
    o->compress = true;
  } else if ((v = sycl_option(a, "compression-level")) ||
             (v = sycl_option(a, "offload-compression-level"))) {
    char *end;
    long level = strtol(v, &end, 10);
    if (!*v || *end || level < INT_MIN || level > INT_MAX) // intel's words after ours
      fatal(NULL, "%s: invalid value for --offload-compression-level=: '%s' (expected a number)",
            a, v);
    o->compression_level = (int)level;
  } else if ((v = sycl_option(a, "offload-compression-threshold"))) {
    char *end;
    long bytes = strtol(v, &end, 10);
    if (!*v || *end || bytes < 0) fatal(NULL, "%s: expected a size in bytes, not '%s'", a, v);
    o->compression_threshold = bytes ? bytes : 1; // 0 here means every image
  } else if (sycl_option(a, "print-wrapped-module")) {
    o->print_wrapped_module = true;
  } else {
    const char *name = a + (a[1] == '-' ? 2 : 1);
    if (!strncmp(name, "sycl-", 5) || !strncmp(name, "no-sycl-", 8))
      fatal(NULL, "%s: unsupported SYCL option", a);
    return false;
  }
  return true;
}

// The host linker's output in each of ld's spellings: -o FILE, -oFILE, --output=FILE,
// --output FILE (one dash before "output" is -o with "utput" after it, as ld reads it); *i
// moves past a separate value. NULL: not an output option. (Only -o FILE was known: with
// --output=app, ld wrote app and the link failed, or -o's temporary replaced a.out.)
static const char *output_option(int argc, char **argv, int *i) {
  const char *a = argv[*i], *v = NULL;
  if (!strcmp(a, "-o") || !strcmp(a, "--output"))
    v = *i + 1 < argc ? argv[++*i] : "";
  else if (!strncmp(a, "--output=", 9))
    v = a + 9;
  else if (!strncmp(a, "-o", 2) && a[2])
    v = a + 2;
  else
    return NULL;
  if (!*v) fatal(NULL, "%s: expects the output file's name", a);
  return v;
}

// Taken out of the host link's arguments: it gets one -o, its temporary, where the last was.
static bool take_output_option(WrapperOptions *o, int argc, char **argv, int *i) {
  const char *v = argv[*i][0] == '-' ? output_option(argc, argv, i) : NULL;
  if (!v) return false;
  o->output = v;
  o->output_at = o->linker_args.count;
  return true;
}

static void parse_wrapper_options(int argc, char **argv, WrapperOptions *o) {
  bool only_linker = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (only_linker) {
      if (!take_output_option(o, argc, argv, &i)) strlist_push(&o->linker_args, xstrdup(a));
    } else if (!strcmp(a, "--")) {
      only_linker = true;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-help")) {
      exit(print_help(wrapper_usage));
    } else if ((v = wrapper_option(a, "host-triple")) && *v) {
      o->host_triple = v;
    } else if ((v = wrapper_option(a, "linker-path")) && *v) {
      o->linker_path = v;
    } else if (wrapper_option(a, "wrapper-verbose")) {
      o->print_commands = true;
    } else if (wrapper_option(a, "dry-run")) {
      o->dry_run = o->print_commands = true;
    } else if (wrapper_option(a, "save-temps")) {
      o->save_temps = true;
    } else if (wrapper_option(a, "sycl-thin-lto")) {
      // DPC++'s spelling; ThinLTO is what this device link does anyway.
    } else if ((v = wrapper_option(a, "wrapper-jobs"))) {
      o->jobs = parse_jobs("--wrapper-jobs", v);
    } else if ((v = wrapper_option(a, "triple")) && *v) {
      // DPC++'s driver names the device target; the images' own triples decide the link.
      if (!is_jit_spirv_triple(v))
        fatal(NULL, "%s: only SPIR-V device code for JIT compilation (spir64, spirv64) is linked",
              a);
    } else if ((v = wrapper_option(a, "device-linker")) && *v) {
      const char *arg = device_argument(v);
      if (arg) strlist_push(&o->device_link_args, xstrdup(arg));
      // The device link keeps its images beside its -o: beside OUT.sycl.bin, not in our
      // temporary directory, which they kept from being removed (left in TMPDIR unseen).
      if (arg && (!strcmp(arg, "--save-temps") || !strcmp(arg, "-save-temps")))
        o->save_temps = true;
    } else if ((v = wrapper_option(a, "device-compiler")) && *v) {
      note("%s: the device link runs no device compiler; ignored", a);
    } else if (take_sycl_option(o, a)) {
      continue;
    } else {
      bool ignored = false;
      for (const char *const *name = ignored_options; *name && !ignored; name++)
        ignored = a[0] == '-' && a[1] == '-' && wrapper_option(a, *name);
      if (ignored) {
        note("%s: ignored", a);
        continue;
      }
      if (!take_output_option(o, argc, argv, &i)) strlist_push(&o->linker_args, xstrdup(a));
    }
  }
  if (!o->output) o->output_at = o->linker_args.count;
  // intel's rules for the post-link tool switches and the split mode.
  if (o->use_post_link_tool && o->no_use_post_link_tool)
    fatal(NULL, "-use-sycl-post-link-tool and -no-use-sycl-post-link-tool options can't be used "
                "together.");
  if (o->module_split_mode) {
    if (!o->no_use_post_link_tool)
      fatal(NULL, "-sycl-module-split-mode should be used with the -no-use-sycl-post-link-tool "
                  "command line option.");
    const char *mode = o->module_split_mode;
    if (!strcmp(mode, "per_kernel")) mode = "kernel";
    if (!strcmp(mode, "per_source")) mode = "source";
    if (!strcmp(mode, "off")) mode = "none";
    SplitMode parsed;
    if (split_mode_parse(mode, &parsed))
      fatal(NULL, "-sycl-module-split-mode: expected per_kernel, per_source, auto or off, not "
                  "'%s'",
            o->module_split_mode);
    strlist_push(&o->device_link_args, format("--split=%s", mode));
  }
}

//
// Which of the host link's inputs hold device code
//

static bool is_relocatable_elf(const uint8_t *data, size_t size) {
  return size >= 18 && !memcmp(data, "\177ELF", 4) && data[16] == 1 && data[17] == 0; // ET_REL
}

// A damaged object is reported here, naming it: the host linker might not look at the
// .llvm.offloading section at all, and the device code in it would silently be lost.
// An image of another offload kind (OpenMP, CUDA, HIP), or a SYCL image for a target other
// than spir64/spirv64 (spirv32, spir, nvptx64, amdgcn), is an error here: the device link
// takes those SYCL images only and skips the others (with a note under -v), and no other link
// of this program would take them: their code would be lost, exit 0.
static void refuse_other_offload_kinds(const char *origin, const uint8_t *data, size_t size) {
  OffloadEntry *entries;
  size_t count;
  char *why;
  if (offload_binary_parse(data, size, &entries, &count, &why)) {
    free(why); // the device link reports it, naming the image
    return;
  }
  for (size_t i = 0; i < count; i++)
    if (entries[i].offload_kind != OFK_SYCL)
      error(origin, "%s image of offload kind %s (%u) for '%s': the linker-wrapper mode links "
            "SYCL images only, and no other link would take it",
            image_kind_name(entries[i].image_kind), offload_kind_name(entries[i].offload_kind),
            entries[i].offload_kind, offload_entry_get(&entries[i], "triple") ?: "");
    else if (offload_entry_get(&entries[i], "triple") &&
             !is_spirv_triple(offload_entry_get(&entries[i], "triple")))
      error(origin, "SYCL %s image for '%s': the linker-wrapper mode links spir64 and spirv64 "
            "images only (a 32-bit or non-SPIR-V target's code cannot join them), and no other "
            "link would take it",
            image_kind_name(entries[i].image_kind), offload_entry_get(&entries[i], "triple"));
  for (size_t i = 0; i < count; i++)
    free(entries[i].strings); // the texts point into DATA
  free(entries);
}

static bool object_has_device_code(const char *origin, const uint8_t *data, size_t size) {
  if (is_offload_binary(data, size)) {
    refuse_other_offload_kinds(origin, data, size);
    return true;
  }
  if (!is_relocatable_elf(data, size)) return false;
  SectionBytes *sections;
  size_t count;
  char *why;
  reading_input_begin(origin, "object");
  int unreadable = elf_offloading_sections(data, size, &sections, &count, &why);
  reading_input_end();
  if (unreadable) {
    error(origin, "%s", why);
    free(why);
    return false;
  }
  for (size_t i = 0; i < count; i++)
    refuse_other_offload_kinds(origin, sections[i].data, sections[i].size);
  free(sections);
  return count > 0;
}

// A host bitcode input (host -flto) or archive member's device code, written to a temporary
// the device link reads: temporary path -> the name the user knows ("libh.a(x.o)"), so that
// the device link's messages name that instead of a file that is gone when they are read.
static StrMap shown_names;
static StringList shown_paths; // its keys

static void show_as(const char *path, const char *name) {
  strmap_put(&shown_names, path, xstrdup(name));
  strlist_push(&shown_paths, xstrdup(path));
}

// TEXT with every temporary of shown_names replaced by the name it stands for.
static void show_names(Buffer *text) {
  for (size_t k = 0; k < shown_paths.count; k++) {
    const char *path = shown_paths.items[k], *name = strmap_get(&shown_names, path);
    size_t plen = strlen(path), nlen = strlen(name);
    Buffer out = {0};
    const char *p = (const char *)text->data, *end = p + text->size;
    while (p < end) {
      const char *hit = memmem(p, (size_t)(end - p), path, plen);
      if (!hit) {
        buffer_append(&out, p, (size_t)(end - p));
        break;
      }
      buffer_append(&out, p, (size_t)(hit - p));
      buffer_append(&out, name, nlen);
      p = hit + plen;
    }
    free(text->data);
    *text = out;
  }
}
static StringList *embedded_temps; // the temporaries, to remove after the link
static const char *embedded_prefix;
static int embedded_count;

// The device code host bitcode ORIGIN embeds, written for the device link: its path, or NULL
// when there is none (or after error()).
static char *write_embedded_device_code(const char *origin, const uint8_t *data, size_t size) {
  Buffer embedded = {0};
  char *why = NULL;
  if (host_bitcode_offloading(data, size, origin, &embedded, &why)) {
    error(origin, "%s", why);
    free(why);
    return NULL;
  }
  if (!embedded.size) return NULL;
  char *path = format("%smember%d.offload", embedded_prefix, embedded_count++);
  strlist_push(embedded_temps, xstrdup(path));
  int written = write_file_atomic(path, embedded.data, embedded.size);
  free(embedded.data);
  if (written) {
    error(path, "cannot write the device code of %s: %s", origin, strerror(-written));
    free(path);
    return NULL;
  }
  show_as(path, origin);
  return path;
}

// A thin archive (`ar rcsT`) names its members' files in its name table ("//"), relative to
// its own directory. The device link does not read thin archives; one whose members carry
// device code is an error here (it was taken for host code: its kernels dropped, exit 0).
static void check_thin_archive(const char *path, const uint8_t *data, size_t size) {
  size_t at = 8;
  while (at + 60 <= size) {
    const uint8_t *header = data + at;
    char field[11] = {0};
    memcpy(field, header + 48, 10);
    size_t length = strtoull(field, NULL, 10);
    at += 60;
    if (memcmp(header, "//              ", 16)) {
      if (!memcmp(header, "/               ", 16)) at += length + (length & 1);
      continue; // a member: its data is in its own file
    }
    if (length > size - at) return;
    const char *dir_end = strrchr(path, '/');
    for (size_t start = at, end; start < at + length; start = end + 1) {
      const uint8_t *nl = memchr(data + start, '\n', at + length - start);
      end = nl ? (size_t)(nl - data) : at + length;
      size_t n = end - start;
      if (n && data[start + n - 1] == '/') n--;
      if (!n) continue;
      char *member = data[start] == '/' || !dir_end
                         ? format("%.*s", (int)n, (const char *)data + start)
                         : format("%.*s/%.*s", (int)(dir_end - path), path, (int)n,
                                  (const char *)data + start);
      Buffer file = {0};
      if (!read_file(member, &file) && object_has_device_code(member, file.data, file.size))
        error(path, "thin archive member %s holds device code, which the device link does not "
                    "read from a thin archive; make a regular one with 'llvm-ar rcs'", member);
      free(file.data);
      free(member);
    }
    return;
  }
}

static bool file_has_device_code(const char *path, StringList *device_inputs) {
  Buffer file = {0};
  int rc = read_file(path, &file);
  if (rc == -EFBIG) error(path, "%s", read_error_text(rc)); // the host linker would read it
  if (rc) return false;                                      // the host linker says why
  bool found = false;
  if (is_archive(file.data, file.size)) {
    ArchiveMember *members;
    size_t count;
    char *why;
    if (!archive_parse(file.data, file.size, &members, &count, &why)) {
      for (size_t i = 0; i < count; i++) {
        char *origin = format("%s(%s)", path, members[i].name);
        // Host -flto: a member is host bitcode embedding its device code (ld reads the
        // member itself; the device link reads what it embeds).
        char *embedded = is_llvm_bitcode(members[i].data, members[i].size)
                             ? write_embedded_device_code(origin, members[i].data, members[i].size)
                             : NULL;
        if (embedded) strlist_push(device_inputs, embedded);
        found = object_has_device_code(origin, members[i].data, members[i].size) || found;
        free(origin);
        free(members[i].name);
      }
      free(members);
    } else {
      // A thin archive of host code is the host linker's; others are damaged.
      if (file.size < 8 || memcmp(file.data, "!<thin>\n", 8))
        error(path, "%s", why);
      else
        check_thin_archive(path, file.data, file.size);
      free(why);
    }
  } else {
    found = object_has_device_code(path, file.data, file.size);
  }
  free(file.data);
  return found;
}

// Host linker options whose value is the next argument (GNU ld, lld).
static bool takes_separate_value(const char *a) {
  static const char *const names[] = {"-o",
                                      "-m",
                                      "-dynamic-linker",
                                      "-z",
                                      "-T",
                                      "-soname",
                                      "-h",
                                      "-rpath",
                                      "-rpath-link",
                                      "-e",
                                      "-u",
                                      "-y",
                                      "-Map",
                                      "--version-script",
                                      "-plugin",
                                      "-plugin-opt",
                                      "-L",
                                      "-l",
                                      "--library-path",
                                      "--library",
                                      "-a",
                                      "-f",
                                      "-F",
                                      "-R",
                                      "--sysroot",
                                      "-Y",
                                      NULL};
  for (const char *const *n = names; *n; n++)
    if (!strcmp(a, *n)) return true;
  return false;
}

// The value of a host linker option in any of its spellings, GNU ld's and lld's alike: -XVALUE,
// -X VALUE, --LONG=VALUE, --LONG VALUE; *i moves past a separate value. NULL: not that option.
// (The long spellings were missed: `--library=NAME` kept its archive's kernels out of the
// device link, exit 0, a program without them.)
static const char *linker_option_value(const StringList *args, size_t *i, const char *short_name,
                                       const char *long_name) {
  const char *a = args->items[*i];
  size_t n = strlen(long_name);
  if (!strncmp(a, short_name, 2)) {
    if (a[2]) return a + 2;
  } else if (!strncmp(a, long_name, n) && a[n] == '=') {
    return a + n + 1;
  } else if (strcmp(a, long_name)) {
    return NULL;
  }
  return *i + 1 < args->count ? args->items[++*i] : "";
}

// -L DIR, --library-path=DIR: a directory -l searches.
static const char *library_path_option(const StringList *args, size_t *i) {
  return linker_option_value(args, i, "-L", "--library-path");
}

// -l NAME, --library=NAME: a library to search for.
static const char *library_option(const StringList *args, size_t *i) {
  return linker_option_value(args, i, "-l", "--library");
}

// Every directory -l searches: -L applies to every -l, wherever it stands.
static void collect_library_paths(const StringList *args, StringList *dirs) {
  for (size_t i = 0; i < args->count; i++) {
    const char *d = library_path_option(args, &i);
    if (d) strlist_push(dirs, xstrdup(d));
  }
}

// A -l library as the host linker finds it: NULL for a shared library (it registers its own
// device code) or one not found (the host linker reports that).
static char *find_static_library(const StringList *dirs, const char *name, bool static_only) {
  for (size_t i = 0; i < dirs->count; i++) {
    if (name[0] == ':') {
      char *path = format("%s/%s", dirs->items[i], name + 1);
      if (access(path, R_OK) == 0) return path;
      free(path);
      continue;
    }
    char *shared = format("%s/lib%s.so", dirs->items[i], name);
    bool has_shared = !static_only && access(shared, R_OK) == 0;
    free(shared);
    if (has_shared) return NULL;
    char *archive = format("%s/lib%s.a", dirs->items[i], name);
    if (access(archive, R_OK) == 0) return archive;
    free(archive);
  }
  return NULL;
}

// A host bitcode input, rewritten (rewrite_host_bitcode) -> the file holding the device code
// it embeds; the device link reads that file in its place.
static StrMap host_bitcode_device_code;

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

// Every file the host link reads, as output_rule_input's: the inputs, and the static
// libraries -l finds.
static void record_host_inputs(const StringList *args) {
  StringList dirs = {0};
  collect_library_paths(args, &dirs);
  for (size_t i = 0; i < args->count; i++) {
    const char *a = args->items[i];
    const char *library = library_option(args, &i);
    if (library) {
      char *path = find_static_library(&dirs, library, true);
      if (path) output_rule_input(path);
      free(path);
    } else if (a[0] == '-') {
      i += takes_separate_value(a);
    } else {
      output_rule_input(a);
    }
  }
  strlist_free(&dirs);
}

// Whether -l finds static libraries only from here on, as the host linker tracks it: -Bstatic
// and its synonyms (-dn, -non_shared, -static), -Bdynamic and its (-dy, -call_shared), and
// --push-state/--pop-state, each with one dash or two. (-dn and -non_shared were missed: the
// wrapper took the shared library, ld the archive, whose kernels were dropped, exit 0.)
typedef struct {
  bool static_only;
  uint64_t pushed; // the states --push-state saved, a bit each (deeper ones are dropped)
  unsigned depth;
} LinkMode;

static void track_link_mode(LinkMode *m, const char *a) {
  static const char *const statics[] = {"Bstatic", "dn", "non_shared", "static", NULL};
  static const char *const dynamics[] = {"Bdynamic", "dy", "call_shared", NULL};
  if (a[0] != '-') return;
  const char *name = a + (a[1] == '-' ? 2 : 1);
  for (const char *const *n = statics; *n; n++)
    if (!strcmp(name, *n)) m->static_only = true;
  for (const char *const *n = dynamics; *n; n++)
    if (!strcmp(name, *n)) m->static_only = false;
  if (!strcmp(name, "push-state")) {
    m->pushed = m->pushed << 1 | m->static_only;
    m->depth++;
  } else if (!strcmp(name, "pop-state") && m->depth) {
    m->static_only = m->pushed & 1;
    m->pushed >>= 1;
    m->depth--;
  }
}

// A -l library whose lib<name>.so is a GNU ld script (`GROUP ( libfoo.so.1 libfoo.a )`, as
// libc's, or `INPUT(libfoo.a)`): the archives and objects it names are the host link's too
// (they were missed: taken for a shared library, their kernels dropped, exit 0). Shared
// libraries it names register their own device code; nested scripts are not followed.
static void add_linker_script_inputs(const StringList *dirs, const char *name, bool static_only,
                                     StringList *candidates) {
  if (static_only || name[0] == ':') return;
  for (size_t i = 0; i < dirs->count; i++) {
    char *script = format("%s/lib%s.so", dirs->items[i], name);
    Buffer file = {0};
    bool found = access(script, R_OK) == 0;
    if (!found || read_file(script, &file) || file.size > (1 << 20) ||
        (file.size >= 4 && !memcmp(file.data, "\x7f" "ELF", 4)) ||
        memchr(file.data, 0, file.size)) {
      free(file.data);
      free(script);
      if (found) return;
      continue;
    }
    char *text = xstrndup((const char *)file.data, file.size);
    free(file.data);
    for (char *c = strstr(text, "/*"); c; c = strstr(c, "/*")) { // comments
      char *end = strstr(c + 2, "*/");
      memset(c, ' ', end ? (size_t)(end + 2 - c) : strlen(c));
    }
    for (char *c = text; *c; c++)
      if (*c == '(' || *c == ')' || *c == ',') *c = ' ';
    char *save = NULL;
    for (char *t = strtok_r(text, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
      char *path = NULL;
      if (!strncmp(t, "-l", 2)) {
        path = find_static_library(dirs, t + 2, false);
      } else if (strchr(t, '.') && !strstr(t, ".so")) { // an archive or object, by path
        const char *slash = strrchr(script, '/');
        path = t[0] == '/' ? xstrdup(t) : format("%.*s/%s", (int)(slash - script), script, t);
        if (access(path, R_OK) != 0) {
          free(path);
          path = NULL;
        }
      }
      if (path && !strlist_contains(candidates, path))
        strlist_push(candidates, path);
      else
        free(path);
    }
    free(text);
    free(script);
    return;
  }
}

static void collect_device_inputs(const StringList *args, StringList *device_inputs) {
  StringList dirs = {0}, candidates = {0};
  collect_library_paths(args, &dirs);
  LinkMode mode = {0};
  for (size_t i = 0; i < args->count; i++) {
    const char *a = args->items[i];
    track_link_mode(&mode, a);
    const char *library = library_option(args, &i);
    if (library) {
      char *path = find_static_library(&dirs, library, mode.static_only);
      if (path)
        strlist_push(&candidates, path);
      else
        add_linker_script_inputs(&dirs, library, mode.static_only, &candidates);
    } else if (a[0] == '-') {
      i += takes_separate_value(a);
    } else if (access(a, R_OK) == 0) {
      strlist_push(&candidates, xstrdup(a));
    }
  }
  for (size_t i = 0; i < candidates.count; i++) {
    const char *embedded = strmap_get(&host_bitcode_device_code, candidates.items[i]);
    if (embedded)
      strlist_push(device_inputs, xstrdup(embedded));
    else if (file_has_device_code(candidates.items[i], device_inputs) &&
             !strlist_contains(device_inputs, candidates.items[i]))
      strlist_push(device_inputs, xstrdup(candidates.items[i]));
    else
      note("%s: no device code", candidates.items[i]);
    free(candidates.items[i]);
  }
  free(candidates.items);
  strlist_free(&dirs);
}

//
// Host bitcode (host -flto): registration of uniquely identifiable objects (seed 004)
//

// Whether PATH starts with a bitcode magic number (read no further: inputs can be large).
static bool file_is_bitcode(const char *path) {
  uint8_t magic[4];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool yes = read(fd, magic, sizeof magic) == sizeof magic && is_llvm_bitcode(magic, sizeof magic);
  close(fd);
  return yes;
}

// Replaces every bitcode input of the host link with a copy that registers its uniquely
// identifiable variables before its other constructors (register_host.c), and writes the
// device code the module embeds (.llvm.offloading) beside it for the device link. The copies
// are named PREFIX "host<N>-<input>.bc" and ".offload", and added to TEMPS (to remove after).
// 0, or -1 after error().
static int rewrite_host_bitcode(WrapperOptions *o, const char *prefix, StringList *temps) {
  int rc = 0, n = 0;
  for (size_t i = 0; i < o->linker_args.count && !rc; i++) {
    const char *a = o->linker_args.items[i];
    if (a[0] == '-') {
      i += takes_separate_value(a);
      continue;
    }
    Buffer in = {0};
    int rc = file_is_bitcode(a) ? read_file(a, &in) : -ENOENT;
    if (rc == -EFBIG) error(a, "%s", read_error_text(rc));
    if (rc) continue;
    const char *slash = strrchr(a, '/');
    char *base = format("%shost%d-%s", prefix, n++, slash ? slash + 1 : a);
    char *bitcode = format("%s.bc", base), *device = format("%s.offload", base);
    if (o->print_commands)
      fprintf(stderr, "\"%s\" register-host \"%s\" -o \"%s\"\n", TOOL_NAME, a, bitcode);
    Buffer out = {0}, embedded = {0};
    size_t registered = 0;
    char *why = NULL;
    int written = 0;
    const char *failed = bitcode;
    strlist_push(temps, xstrdup(bitcode)); // removed after the link, if written at all
    strlist_push(temps, xstrdup(device));
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
        strmap_put(&host_bitcode_device_code, bitcode, xstrdup(device));
        show_as(device, a);
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
static int run_step(const WrapperOptions *o, const char *step, const StringList *argv,
                    const StringList *inputs) {
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
    if (!o->save_temps) unlink(response);
    free((char *)list[1]);
    free(response);
  }
  free(list);
  show_names(&output);
  if (output.size) fwrite(output.data, 1, output.size, stderr);
  StringList shown = {0}; // INPUTS by the names the user knows
  for (size_t i = 0; inputs && i < inputs->count; i++) {
    const char *name = strmap_get(&shown_names, inputs->items[i]);
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
static int link_device_code(const WrapperOptions *o, const StringList *inputs,
                            const char *device_binary) {
  StringList argv = {0};
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) die("cannot find our own executable: %s", strerror(errno));
  self[n] = 0;
  strlist_push(&argv, xstrdup(self));
  strlist_push(&argv, xstrdup("link"));
  if (o->jobs > 0) strlist_push(&argv, format("-j%d", o->jobs));
  for (size_t i = 0; i < o->device_link_args.count; i++)
    strlist_push(&argv, xstrdup(o->device_link_args.items[i]));
  strlist_push(&argv, xstrdup("-o"));
  strlist_push(&argv, xstrdup(device_binary));
  strlist_push(&argv, xstrdup("--"));
  for (size_t i = 0; i < inputs->count; i++)
    strlist_push(&argv, xstrdup(inputs->items[i]));
  int rc = run_step(o, "device link", &argv, inputs);
  strlist_free(&argv);
  return rc;
}

static int wrap_device_code(const WrapperOptions *o, const StringList *device_binaries,
                            const char *wrapper_object) {
  const char *device_binary = device_binaries->items[0]; // the one a message names
  WrapOptions wo = {.host_triple = o->host_triple,
                    .print_module = o->print_wrapped_module,
                    .compress = o->compress,
                    .compression_level = o->compression_level,
                    .compression_threshold = (size_t)o->compression_threshold,
                    .report_compression = o->print_commands};
  if (o->print_commands) {
    char *compress = !o->compress ? xstrdup("")
                     : o->compression_threshold
                         ? format(" --compress --compression-level=%d --compression-threshold=%ld",
                                  o->compression_level, o->compression_threshold)
                         : format(" --compress --compression-level=%d", o->compression_level);
    char *binaries = strlist_join(device_binaries, "\" \"");
    fprintf(stderr, "\"%s\" wrap --host-triple=%s%s \"%s\" -o \"%s\"\n", TOOL_NAME,
            o->host_triple ? o->host_triple : "default", compress, binaries, wrapper_object);
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
  for (size_t i = 0; i < count; i++) {
    free(images[i].strings);
    propsets_free(&properties[i]);
  }
  for (size_t i = 0; i < device_binaries->count; i++)
    free(bytes[i].data);
  free(bytes);
  free(images);
  free(properties);
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

// The host linker's temporary beside OUTPUT, made empty here, exclusively: a name that is
// taken (a file, a folder, a symbolic link planted there) is passed over, never written
// through or adopted. (It was only named, and ld wrote through a symbolic link found at that
// name, host and PID being all it took to guess it.) It is removed on failure: ld writes into
// it, lld renames its own file over it. NULL after an error naming OUTPUT.
static char *make_partial_output(const char *output) {
  for (int tries = 0; tries < 1000; tries++) {
    char *name = temporary_name(output);
    remove_on_failure(name); // before it exists: whatever the host linker leaves there
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      close(fd);
      return name;
    }
    int e = errno;
    keep_on_success(name); // not ours
    free(name);
    if (e != EEXIST) {
      error(output, "cannot write the output: %s", strerror(e));
      return NULL;
    }
  }
  error(output, "cannot write the output: every temporary name beside it is taken");
  return NULL;
}

// The host linker writes beside the output and the result is renamed over it: a failed
// link leaves no output. The wrapper object goes before the first -l, so the libraries
// after it (the runtime's among them) resolve __sycl_register_lib.
static int link_host(const WrapperOptions *o, const char *wrapper_object, const char *output) {
  char *partial_output = o->dry_run ? temporary_name(output) : make_partial_output(output);
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
  int rc = run_step(o, "host link", &argv, NULL);
  int moved;
  struct stat st;
  if (!rc && !o->dry_run && (lstat(partial_output, &st) != 0 || !st.st_size)) {
    // A "linker" that exits 0 and writes nothing (--linker-path=/bin/true): said as it is,
    // not as a failed rename, nor an empty output.
    error(o->linker_path, "the host linker exited 0 but wrote no output (%s)", partial_output);
    rc = -1;
  } else if (!rc && !o->dry_run && (moved = replace_file(partial_output, output))) {
    error(output, "cannot write the output: %s", strerror(-moved));
    rc = -1;
  }
  if (rc && !o->dry_run) unlink(partial_output);
  strlist_free(&argv);
  free(partial_output);
  return rc;
}

int linker_wrapper_main(int argc, char **argv) {
  WrapperOptions o = {.compression_level = WRAP_COMPRESSION_LEVEL};
  parse_wrapper_options(argc, argv, &o);
  if (o.output) refuse_stdout_output(o.output);
  char *why;
  if (o.host_triple && check_host_triple(o.host_triple, &why))
    fatal(NULL, "--host-triple: %s", why);
  if (!o.linker_path) fatal(NULL, "host link step: no --linker-path=<host linker> given");
  if (access(o.linker_path, X_OK) != 0)
    fatal(o.linker_path, "host link step: the --linker-path cannot be run: %s", strerror(errno));
  const char *output = o.output ? o.output : "a.out";

  // The host linker's output never replaces one of its inputs (it writes a temporary that
  // is renamed over the output after a successful link): refused before any step runs.
  record_host_inputs(&o.linker_args);
  check_output_path(output, "-o");
  // The device link's bare --time-trace writes beside its output, in our temporary
  // directory, which it then kept from being removed (left in TMPDIR unseen): beside -o.
  for (size_t i = 0; i < o.device_link_args.count; i++) {
    char **a = &o.device_link_args.items[i];
    if (strcmp(*a, "--time-trace") && strcmp(*a, "-time-trace")) continue;
    free(*a);
    *a = format("--time-trace=%s.sycl.time-trace", output);
  }
  check_device_link_outputs(&o.device_link_args);
  char *temp_dir = NULL, *temp_prefix, *device_binary, *wrapper_object;
  if (o.save_temps) {
    temp_prefix = format("%s.sycl.", output);
  } else {
    const char *tmp = getenv("TMPDIR");
    temp_dir = make_temp_dir(tmp && *tmp ? tmp : "/tmp", TOOL_NAME "-wrapper");
    temp_prefix = format("%s/", temp_dir);
  }
  o.temp_prefix = temp_prefix;
  device_binary = format("%s%s", temp_prefix, o.save_temps ? "bin" : "device.bin");
  wrapper_object = format("%swrapper.o", temp_prefix);
  if (o.save_temps) {
    check_output_path(device_binary, "--save-temps");
    check_output_path(wrapper_object, "--save-temps");
  }

  // Host bitcode (host -flto) registers its uniquely identifiable variables (seed 004) and
  // may embed device code: rewritten first, so the steps below see the copies.
  StringList host_temps = {0};
  int rc = rewrite_host_bitcode(&o, temp_prefix, &host_temps);

  // Which inputs of the host link carry device code: objects, archives, -l archives.
  StringList device_inputs = {0};
  embedded_prefix = temp_prefix;
  embedded_temps = &host_temps;
  if (!rc) collect_device_inputs(&o.linker_args, &device_inputs);
  exit_on_errors(); // damaged inputs, before anything is written
  if (!device_inputs.count) {
    free(wrapper_object);
    wrapper_object = NULL;
  }

  // One device link of every input's device code; with --no-sycl-rdc one per input, each
  // unit's code linked on its own (a SYCL_EXTERNAL function of another unit is undefined).
  StringList device_binaries = {0};
  if (!rc && device_inputs.count && !o.separate_units) {
    strlist_push(&device_binaries, xstrdup(device_binary));
    rc = link_device_code(&o, &device_inputs, device_binary);
  }
  for (size_t i = 0; !rc && o.separate_units && i < device_inputs.count; i++) {
    char *binary = format("%s.%zu", device_binary, i);
    if (o.save_temps) check_output_path(binary, "--save-temps");
    StringList unit = {.items = &device_inputs.items[i], .count = 1};
    strlist_push(&device_binaries, binary);
    rc = link_device_code(&o, &unit, binary);
  }
  if (!rc && device_inputs.count) {
    rc = wrap_device_code(&o, &device_binaries, wrapper_object);
  } else if (!rc && o.device_link_only) {
    error(NULL, "--sycl-device-link: no device code in the inputs, nothing to link");
    rc = -1;
  } else if (!rc) {
    note("no device code in the inputs: host link only");
  }
  if (!rc)
    rc = o.device_link_only ? write_device_object(&o, wrapper_object, output)
                            : link_host(&o, wrapper_object, output);

  if (temp_dir) {
    for (size_t i = 0; i < device_binaries.count; i++)
      unlink(device_binaries.items[i]);
    if (wrapper_object) unlink(wrapper_object);
    for (size_t i = 0; i < host_temps.count; i++)
      unlink(host_temps.items[i]);
    remove_temp_dir(temp_dir);
  }
  strlist_free(&host_temps);
  strlist_free(&device_binaries);
  strlist_free(&device_inputs);
  strlist_free(&o.device_link_args);
  strlist_free(&o.linker_args);
  free(temp_dir);
  free(temp_prefix);
  free(device_binary);
  free(wrapper_object);
  // A failed link never wrote OUTPUT (only its temporary, removed): what stands there is
  // left as it was.
  if (rc) exit_on_errors();
  return rc ? 1 : 0;
}
