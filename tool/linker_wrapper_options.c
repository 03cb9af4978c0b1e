// clang-linker-wrapper's command line as the wrapper takes it: its own options, intel's SYCL
// options (each taken with intel's meaning or refused naming why) and the host linker's
// arguments, which it leaves as they are. It reads no file and runs nothing.
#include "tool/linker_wrapper_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    "  --sycl-image-layout=llvm|intel  the images' fields as upstream's SYCL runtime reads\n"
    "                               them or as intel's (DPC++'s libsycl); default: intel's when\n"
    "                               --sycl-post-link-options= (DPC++'s driver) is given\n"
    "\n"
    "intel's SYCL options, as DPC++'s driver passes them:\n"
    "  --triple=<spir64|spirv64|spir64_gen>  the device target (spir64_gen: ahead of time)\n"
    "  --gpu-tool-arg=<args>        ocloc's arguments (\"-device pvc ...\"): AOT for the devices\n"
    "  -sycl-backend-compile-options=<opts>  ocloc's -options (AOT), or the images' compile\n"
    "                               options (JIT)\n"
    "  --sycl-post-link-options=<opts>  sycl-post-link's options, for the device link\n"
    "  --llvm-spirv-options=[sycl:<triple>=]<opts>  the driver's llvm-spirv options\n"
    "  --sycl-device-libraries=<a,b>, --sycl-device-library-location=<dir>\n"
    "  --bitcode-library=<triple>=<file> (or sycl-<triple>-<arch>=<file>)\n"
    "  --sycl-allow-device-image-dependencies\n"
    "  --sycl-device-link (-fsycl-link: -o is the wrapped device code), -no-sycl-rdc\n"
    "  --syclbin=input|object|executable  -o is a SYCLBIN file (-fsyclbin=): the linked images\n"
    "                               and their property sets in that bundle state; no host link\n"
    "  -sycl-module-split-mode=<mode> (with -no-use-sycl-post-link-tool)\n"
    "Each other intel SYCL option is taken or refused naming it (README, 'The DPC++ flow').\n";

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
    {"syclbin-link-target", SYCLBIN_LINK_REFUSED},
    {"sycl-dump-device-code", "dumping the device images is not supported (use --save-temps)"},
    {"no-sycl-remove-unused-external-funcs",
     "SYCL_EXTERNAL functions stay entry points only with --sycl-allow-device-image-dependencies"},
    {"sycl-nvptx-device-libraries", "only SPIR-V device code is linked"},
    {"sycl-target-link-options", "AOT compilation and backend options are not supported"},
    {"sycl-backend-compile-options-from-image", "AOT compilation is not supported"},
    {"sycl-backend-link-options-from-image", "AOT compilation is not supported"},
    {"cpu-tool-arg", "AOT compilation for CPUs (opencl-aot) is not supported: Debian does not "
                     "package opencl-aot"},
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
  } else if ((v = sycl_option(a, "syclbin"))) {
    // intel's spelling (its driver's -fsyclbin=STATE): the state is the file's to say, the
    // device code is linked the same way for each (intel's wrapper does so too).
    uint32_t state = SYCLBIN_INPUT;
    while (syclbin_state_name(state) && strcmp(v, syclbin_state_name(state)))
      state++;
    if (!syclbin_state_name(state))
      fatal(NULL, "%s: expected input, object or executable (the SYCLBIN file's bundle state), "
                  "not '%s'", a, v);
    o->syclbin = a;
    o->syclbin_state = state;
  } else if ((v = sycl_option(a, "sycl-post-link-options"))) {
    take_post_link_options(o, a, v);
    o->dpcpp_driver = true;
  } else if ((v = sycl_option(a, "sycl-image-layout"))) {
    if (parse_image_layout(v, &o->intel_layout))
      fatal(NULL, "%s: expected llvm (upstream's SYCL runtime) or intel (DPC++'s), not '%s'", a,
            v);
    o->image_layout = v;
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
  } else if ((v = sycl_option(a, "gpu-tool-arg"))) {
    // intel's -Xsycl-target-backend=spir64_gen "-device pvc ...": ocloc's command line.
    StringList args = {0};
    split_spaces(&args, v);
    for (size_t i = 0; i < args.count; i++) {
      if (!strcmp(args.items[i], "-device")) {
        if (i + 1 == args.count) fatal(NULL, "%s: -device needs a device", a);
        strlist_split_commas(&o->aot_devices, args.items[++i]);
      } else {
        strlist_push(&o->ocloc_args, xstrdup(args.items[i]));
      }
    }
    strlist_free(&args);
  } else if ((v = sycl_option(a, "sycl-backend-compile-options"))) {
    o->backend_compile_options = v;
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

void parse_wrapper_options(int argc, char **argv, WrapperOptions *o) {
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
      if (!strncmp(v, "spir64_gen", 10) && (!v[10] || v[10] == '-'))
        o->aot_triple = true;
      else if (is_jit_spirv_triple(v))
        o->jit_triple = true;
      else
        fatal(NULL, "%s: only SPIR-V device code, for JIT compilation (spir64, spirv64) or "
                    "ahead of time for Intel GPUs (spir64_gen), is linked", a);
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
  if (!o->image_layout) o->intel_layout = o->dpcpp_driver;
  // AOT: the devices and ocloc's arguments become the device link's --arch and
  // --ocloc-options; the backend's compile options ocloc's -options. For JIT they are the
  // images' compile options, which the runtime passes to the backend.
  if (o->aot_triple && !o->aot_devices.count)
    fatal(NULL, "--triple=spir64_gen: no device to compile for; DPC++ names it in "
                "--gpu-tool-arg=\"-device pvc\" (-Xsycl-target-backend=spir64_gen \"-device pvc\")");
  if (o->aot_devices.count) {
    // Both triples named: SPIR-V (JIT) images beside the native ones.
    if (o->jit_triple) strlist_push(&o->aot_devices, xstrdup("spirv"));
    char *devices = strlist_join(&o->aot_devices, ",");
    strlist_push(&o->device_link_args, format("--arch=%s", devices));
    free(devices);
    if (o->backend_compile_options && *o->backend_compile_options) {
      strlist_push(&o->ocloc_args, xstrdup("-options"));
      strlist_push(&o->ocloc_args, xstrdup(o->backend_compile_options));
    }
    Buffer text = {0};
    for (size_t i = 0; i < o->ocloc_args.count; i++) {
      const char *arg = o->ocloc_args.items[i];
      char quote = strchr(arg, '"') ? '\'' : '"';
      if (i) buffer_append(&text, " ", 1);
      buffer_append(&text, &quote, 1);
      buffer_append(&text, arg, strlen(arg));
      buffer_append(&text, &quote, 1);
    }
    buffer_append(&text, "", 1);
    if (o->ocloc_args.count)
      strlist_push(&o->device_link_args, format("--ocloc-options=%s", (char *)text.data));
    free(text.data);
    o->backend_compile_options = NULL;
  } else if (o->ocloc_args.count) {
    fatal(NULL, "--gpu-tool-arg: ocloc's arguments without -device: no device to compile for");
  }
  if (o->syclbin && o->device_link_only)
    fatal(NULL, "%s and --sycl-device-link: each makes -o a different file (a SYCLBIN file, "
                "a wrapper object)", o->syclbin);
  // intel's wrapper has its post-link step name the kernels for the SYCLBIN's modules.
  if (o->syclbin) strlist_push(&o->device_link_args, xstrdup("--emit-kernel-names"));
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
