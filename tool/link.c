// The `link` command and the clang-sycl-linker personality: options, then the stages of
// ARCHITECTURE.md one after another, each timed. The stages live in their own files.
#include "tool/tool.h"

#include <llvm-c/ErrorHandling.h>

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char link_usage[] =
    "USAGE: sycl-thinlto link [options] <inputs> -o <output>\n"
    "\n"
    "Links SYCL device code with ThinLTO into fully linked SPIR-V images, written as\n"
    "concatenated OffloadBinary blobs. Inputs: LLVM bitcode, OffloadBinary files, ELF\n"
    "objects with a .llvm.offloading section, and static archives of those.\n"
    "\n"
    "OPTIONS:\n"
    "  -o <file>                         output file (required)\n"
    "  -j <n>, --jobs=<n>                cores to use: n images at a time (default: all)\n"
    "  --threads=<n>, --thinlto-jobs=<n> lld's spellings of -j (--thinlto-jobs=all: all)\n"
    "  --device-libs=<a.bc,b.bc>         bitcode libraries supplying definitions on demand\n"
    "  --library-path=<dir>, -L <dir>    where --device-libs are searched\n"
    "  --allow-device-image-dependencies images may import SYCL_EXTERNAL functions\n"
    "  --check-imports                   warn about imports no image of this link exports\n"
  "  --emit-program-metadata           SYCL/program metadata (sycl-post-link's option)\n"
  "  --emit-kernel-names               SYCL/kernel names (sycl-post-link's option)\n"
  "  --spec-const=native|emulation     specialization constants: SPIR-V's (default), or\n"
  "                                    read from the buffer the runtime passes\n"
    "  --split=kernel|source|auto|none   split inputs not split at compile time (default: auto)\n"
    "  --aot-aspects=<a,b,...>           AOT split: the device's aspects (virtual functions)\n"
    "  -O<n>, --opt-level=<n>            optLevel property where the modules give none (2)\n"
    "  --spirv-tool=backend|translator   SPIR-V generator (default: backend)\n"
    "  --llvm-spirv=<path>               the translator (default: llvm-spirv on PATH)\n"
    "  --no-validate                     skip spirv-val on the images\n"
    "  --import-instr-limit=<n>          ThinLTO import threshold (default: 1000)\n"
    "  --triple=<triple>                 device triple (spirv64* or spir64*)\n"
    "  --arch=<arch>                     device architecture recorded in the output; Intel GPUs\n"
    "                                    (pvc, acm_g10, intel_gpu_tgllp, ..., several with ','):\n"
    "                                    native images compiled by ocloc (ahead of time), and\n"
    "                                    'spirv' in the list keeps the SPIR-V images too\n"
    "  --ocloc=<path>                    the ocloc to run (default: ocloc on PATH)\n"
    "  --ocloc-options=<options>         more arguments for ocloc (clang-sycl-linker's option)\n"
    "  --save-temps                      keep each image's bitcode and SPIR-V beside -o\n"
    "  --cache-dir=<dir>, --thinlto-cache-dir=<dir>\n"
    "                                    reuse unchanged work of earlier links (incremental)\n"
    "  --cache-policy=<policy>, --thinlto-cache-policy=<policy>\n"
    "                                    prune_after=7d:prune_interval=20m:cache_size_bytes=1g\n"
    "                                    :cache_size_files=N (lld's syntax)\n"
    "  --lto=thin|full                   ThinLTO (default), or one module split after linking\n"
    "  --time-trace                      write a Chrome trace (chrome://tracing, Perfetto) to\n"
    "                                    <output>.time-trace\n"
    "  --time-trace=<file>, --time-trace-file=<file>  ... to <file> instead\n"
    "  --time-trace-granularity=<us>     leave out spans shorter than <us> microseconds (0)\n"
    "  --distributor=<program>           each image's backend as a job: run <program> on a DTLTO\n"
    "                                    job list (installed: sycl-thinlto-local, this host's\n"
    "                                    cores; sycl-thinlto-slurm, a Slurm cluster's)\n"
    "  --distributor-arg=<arg>           an argument for the distributor (repeatable)\n"
    "  --remote-compiler=<path>          the sycl-thinlto the jobs run (default: this one)\n"
    "  --stats[=json]                    print images, modules, imports, completion, cache\n"
    "                                    and wall time on stderr (=json: as one JSON line)\n"
    "  --no-demangle                     name symbols in messages as mangled (--demangle:\n"
    "                                    as written, then mangled; the default)\n"
    "  --reproduce=<file.tar>            archive the inputs, device libraries and the command\n"
    "                                    line (response.txt) to replay the link elsewhere:\n"
    "                                    cd <file> && sycl-thinlto link @response.txt\n"
    "  --no-progress                     no progress line (shown when stderr is a terminal:\n"
    "                                    stage, images done of total, rate)\n"
    "  -v                                print what is done, and each stage's time\n"
    "  --version, --help\n";

typedef struct {
  const char *output;
  const char *arch;
  const char *triple;
  int jobs;
  int import_instr_limit;
  bool save_temps;
  bool allow_dependencies;
  bool check_imports;
  bool emit_program_metadata, emit_kernel_names;
  SpecConstMode spec_const;
  bool full_lto;          // --lto=full
  const char *time_trace; // --time-trace=FILE, --time-trace-file=FILE
  bool time_trace_flag;   // --time-trace: to OUTPUT.time-trace unless a file is named
  int time_trace_granularity; // microseconds
  bool stats, stats_json; // --stats, --stats=json
  bool no_progress;
  const char *cache_dir;
  const char *cache_policy;
  const char *cache_policy_option; // as spelled, for its error
  int opt_level;
  SplitOptions split; // the link-time split stage (split/stage.c)
  bool validate;
  SpirvTool tool;
  const char *llvm_spirv;
  StringList inputs;
  StringList device_libs;
  StringList library_paths;
  const char *reproduce; // --reproduce=FILE.tar
  // The arguments as the parser grouped them, for --reproduce's response file.
  ArgGroup *groups;
  size_t num_groups;
  const char *distributor; // --distributor, resolved
  StringList distributor_args;
  const char *remote_compiler;
  const char *ocloc;        // --ocloc=PATH
  StringList ocloc_options; // --ocloc-options=..., each as given
  // Set for the links of link_aspect_groups: of inputs for two targets, this one's; and no
  // relink record (the links share one command line).
  const char *prefer_target;
  bool aspect_group;
} LinkOptions;

static void add_group(LinkOptions *o, int start, int end, bool input) {
  o->groups = xrealloc(o->groups, (o->num_groups + 1) * sizeof *o->groups);
  o->groups[o->num_groups++] = (ArgGroup){start, end, input};
}

// LLVM-style tools accept -name as well as --name (option_value does for -name=value).
static bool is_flag(const char *arg, const char *name) {
  return arg[0] == '-' && !strcmp(arg + (arg[1] == '-' ? 2 : 1), name);
}

static int parse_count(const char *what, const char *text, long max) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (!*text || *end || errno || v < 0 || v > max)
    fatal(NULL, "%s: invalid number '%s'", what, text);
  return (int)v;
}

// A directory to search for device libraries. One that does not exist is searched in vain,
// as lld does; a file there is an input taken as -L's value (`-L main.o`), never ignored.
static void add_library_path(LinkOptions *o, const char *option, const char *dir) {
  struct stat st;
  if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
    fatal(dir, "%s names a file, not a directory to search for libraries", option);
  strlist_push(&o->library_paths, xstrdup(dir));
}

static void parse_link_options(int argc, char **argv, LinkOptions *o, bool clang_personality) {
  bool only_inputs = false;
  for (int i = 1; i < argc; i++) {
    const char *raw = argv[i];
    int start = i;
    if (only_inputs || raw[0] != '-' || !strcmp(raw, "-")) {
      strlist_push(&o->inputs, xstrdup(raw));
      add_group(o, i, i, true);
      continue;
    }
    if (!strcmp(raw, "--")) {
      only_inputs = true;
      add_group(o, i, i, false);
      continue;
    }
    const char *a = raw;
    const char *v;
    if (is_flag(a, "help") || !strcmp(a, "-h")) {
      exit(print_help(link_usage));
    } else if (is_flag(a, "version")) {
      print_version();
      exit(0);
    } else if (!strcmp(a, "-v") || is_flag(a, "verbose")) {
      verbose = true;
    } else if (!strcmp(a, "-o")) {
      if (++i >= argc) fatal(NULL, "option '-o' needs a value");
      o->output = argv[i];
    } else if ((v = option_value(argc, argv, &i, a, "output-file"))) {
      o->output = v;
    } else if ((v = option_value(argc, argv, &i, a, "jobs"))) { // before -j: -jobs=N
      o->jobs = parse_jobs("--jobs", v);
    } else if ((v = joined_value(a, "threads"))) { // lld's spellings of -j
      o->jobs = parse_jobs("--threads", v);
    } else if ((v = joined_value(a, "thinlto-jobs"))) {
      o->jobs = strcmp(v, "all") ? parse_jobs("--thinlto-jobs", v) : 0;
    } else if (!strncmp(a, "-j", 2)) {
      const char *n = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
      if (!n) fatal(NULL, "option '-j' needs a value");
      o->jobs = parse_jobs("-j", n);
    } else if (is_flag(a, "save-temps")) {
      o->save_temps = true;
    } else if ((v = option_value(argc, argv, &i, a, "device-libs"))) {
      strlist_split_commas(&o->device_libs, v);
    } else if ((v = option_value(argc, argv, &i, a, "library-path"))) {
      add_library_path(o, "--library-path", v);
    } else if (!strncmp(a, "-L", 2)) {
      const char *d = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
      if (!d) fatal(NULL, "option '-L' needs a value");
      add_library_path(o, "-L", d);
    } else if (is_flag(a, "allow-device-image-dependencies")) {
      o->allow_dependencies = true;
    } else if (is_flag(a, "check-imports")) {
      o->check_imports = true;
    } else if (is_flag(a, "emit-program-metadata")) {
      o->emit_program_metadata = true;
    } else if (is_flag(a, "emit-kernel-names")) {
      o->emit_kernel_names = true;
    } else if ((v = option_value(argc, argv, &i, a, "spec-const"))) {
      if (!strcmp(v, "native"))
        o->spec_const = SPEC_CONST_NATIVE;
      else if (!strcmp(v, "emulation"))
        o->spec_const = SPEC_CONST_EMULATION;
      else
        fatal(NULL, "--spec-const: expected native or emulation, not '%s'", v);
    } else if ((v = option_value(argc, argv, &i, a, "lto"))) {
      if (strcmp(v, "thin") && strcmp(v, "full"))
        fatal(NULL, "--lto: expected thin or full, not '%s'", v);
      o->full_lto = !strcmp(v, "full");
    } else if ((v = option_value(argc, argv, &i, a, "distributor"))) {
      if (!*v) fatal(NULL, "%s: expected a program (a path, or a name found on PATH)", a);
      o->distributor = v;
    } else if ((v = option_value(argc, argv, &i, a, "distributor-arg"))) {
      strlist_push(&o->distributor_args, xstrdup(v));
    } else if ((v = option_value(argc, argv, &i, a, "remote-compiler"))) {
      o->remote_compiler = v;
    } else if (is_flag(a, "time-trace")) { // lld's: a flag; the trace goes beside -o
      o->time_trace_flag = true;
    } else if ((v = joined_value(a, "time-trace")) || (v = joined_value(a, "time-trace-file"))) {
      o->time_trace = v;
    } else if ((v = joined_value(a, "time-trace-granularity"))) {
      o->time_trace_granularity = parse_count("--time-trace-granularity", v, INT_MAX);
    } else if ((v = joined_value(a, "reproduce"))) { // lld's
      o->reproduce = v;
    } else if (is_flag(a, "no-demangle") || is_flag(a, "demangle")) { // lld's
      demangle_names = is_flag(a, "demangle");
    } else if (is_flag(a, "no-progress") || is_flag(a, "progress")) {
      o->no_progress = is_flag(a, "no-progress");
    } else if (is_flag(a, "stats")) {
      o->stats = true;
    } else if ((v = joined_value(a, "stats"))) {
      if (strcmp(v, "json") && strcmp(v, "text"))
        fatal(NULL, "--stats=%s: expected --stats, --stats=text or --stats=json", v);
      o->stats = true;
      o->stats_json = !strcmp(v, "json");
    } else if ((v = option_value(argc, argv, &i, a, "cache-dir")) ||
               (v = joined_value(a, "thinlto-cache-dir"))) {
      o->cache_dir = v;
    } else if ((v = option_value(argc, argv, &i, a, "cache-policy")) ||
               (v = joined_value(a, "thinlto-cache-policy"))) {
      o->cache_policy = v;
      o->cache_policy_option = a[strspn(a, "-")] == 't' ? "--thinlto-cache-policy" : "--cache-policy";
    } else if ((v = option_value(argc, argv, &i, a, "split"))) {
      if (split_mode_parse(v, &o->split.mode))
        fatal(NULL, "--split: expected kernel, source, auto or none, not '%s'", v);
    } else if ((v = option_value(argc, argv, &i, a, "aot-aspects"))) {
      o->split.aot = true;
      parse_aspects("--aot-aspects", v, &o->split.aot_aspects);
    } else if (raw[1] == 'O' && raw[2]) {
      if (raw[3] || !strchr("0123s", raw[2]))
        fatal(NULL, "%s: unknown optimization level; expected -O0, -O1, -O2, -O3 or -Os", raw);
      o->opt_level = raw[2] == 's' ? 2 : raw[2] - '0';
    } else if ((v = option_value(argc, argv, &i, a, "opt-level"))) {
      if (!v[0] || v[1] || !strchr("0123", v[0]))
        fatal(NULL, "--opt-level: expected 0, 1, 2 or 3, not '%s'", v);
      o->opt_level = v[0] - '0';
    } else if ((v = option_value(argc, argv, &i, a, "spirv-tool"))) {
      if (!strcmp(v, "backend"))
        o->tool = SPIRV_BACKEND;
      else if (!strcmp(v, "translator"))
        o->tool = SPIRV_TRANSLATOR;
      else
        fatal(NULL, "--spirv-tool: expected 'backend' or 'translator', not '%s'", v);
    } else if ((v = option_value(argc, argv, &i, a, "llvm-spirv"))) {
      o->llvm_spirv = v;
    } else if (is_flag(a, "no-validate")) {
      o->validate = false;
    } else if ((v = option_value(argc, argv, &i, a, "import-instr-limit"))) {
      o->import_instr_limit = parse_count("--import-instr-limit", v, 1 << 20);
    } else if ((v = option_value(argc, argv, &i, a, "triple"))) {
      o->triple = v;
    } else if ((v = option_value(argc, argv, &i, a, "arch"))) {
      o->arch = v;
    } else if ((v = option_value(argc, argv, &i, a, "ocloc-options"))) {
      strlist_push(&o->ocloc_options, xstrdup(v));
    } else if ((v = option_value(argc, argv, &i, a, "ocloc"))) {
      o->ocloc = v;
    } else if (clang_personality && (is_flag(a, "dry-run") || is_flag(a, "print-linked-module") ||
                                     option_value(argc, argv, &i, a, "opencl-aot-options") ||
                                     option_value(argc, argv, &i, a, "spirv-dump-device-code"))) {
      warning(NULL, "option '%s' of clang-sycl-linker is not supported; ignored", raw);
    } else {
      fatal(NULL, "unknown option '%s'; see '%s --help'", raw,
            clang_personality ? "clang-sycl-linker" : "sycl-thinlto link");
    }
    add_group(o, start, i, false);
  }
}

static char *find_device_lib(const LinkOptions *o, const char *name) {
  if (strchr(name, '/') || !o->library_paths.count) return xstrdup(name);
  for (size_t i = 0; i < o->library_paths.count; i++) {
    char *path = format("%s/%s", o->library_paths.items[i], name);
    if (access(path, F_OK) == 0) return path;
    free(path);
  }
  fatal(name, "device library not found in any --library-path");
}

// Fails before any work if the output cannot be created where it is asked for.
static void check_output_writable(const char *path) {
  char *copy = xstrdup(path);
  const char *dir = dirname(copy);
  if (access(dir, W_OK) != 0) fatal(path, "cannot write output: %s", strerror(errno));
  free(copy);
}

// Every path the link writes, under the one rule for outputs (base/outputs.c), before
// anything runs (the reproducer is written first of all): -o, the time trace, the reproducer
// and the --save-temps files beside -o (OUT.N.linked.bc, ...).
static void check_link_outputs(LinkOptions *o) {
  if (!o->output) return; // run_link says so
  for (size_t i = 0; i < o->inputs.count; i++)
    output_rule_input(o->inputs.items[i]);
  for (size_t i = 0; i < o->device_libs.count; i++) {
    char *path = find_device_lib(o, o->device_libs.items[i]);
    output_rule_input(path);
    free(path);
  }
  check_output_path(o->output, "-o");
  // The cache directory is made if missing: at -o's path, the link filled it, then failed.
  if (o->cache_dir) check_output_distinct(o->cache_dir, "--cache-dir");
  if (o->time_trace_flag && !o->time_trace) {
    char *beside = format("%s.time-trace", o->output);
    check_output_path(beside, "--time-trace");
    free(beside);
  }
  if (o->time_trace) check_output_path(o->time_trace, "--time-trace");
  if (o->reproduce) check_output_path(o->reproduce, "--reproduce");
  if (o->save_temps) check_derived_outputs(o->output, is_numbered_name, ".", "--save-temps");
}

// CPU seconds of this process and of the children it has waited for (the workers).
static double cpu_seconds(void) {
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec +
         children.ru_stime.tv_sec +
         (self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec +
          children.ru_stime.tv_usec) *
             1e-6;
}

// The process's peak resident set so far (workers are separate processes).
static double peak_rss_mb(void) {
  struct rusage self;
  getrusage(RUSAGE_SELF, &self);
  return self.ru_maxrss / 1024.0;
}

#define STAGE(name, ...)                                                                           \
  do {                                                                                             \
    double start_ = now_seconds(), cpu_ = cpu_seconds();                                           \
    set_crash_stage("link stage " name);                                                           \
    progress_stage(name, 0);                                                                       \
    __VA_ARGS__;                                                                                   \
    set_crash_stage("link");                                                                       \
    note("stage %-8s %8.3f s wall %8.3f s cpu %7.1f MB peak", name, now_seconds() - start_,        \
         cpu_seconds() - cpu_, peak_rss_mb());                                                     \
    trace_span(name, NULL, start_, now_seconds(), 0);                                              \
  } while (0)

// --stats: what the link did, for comparing modes and runs (stderr, one "name: value" a line).
// Imports are the functions ThinLTO imported that stayed out of line: -avail-extern-to-local
// turns each into an internal NAME.__uniq.ID copy, which the hooks count; an import inlined
// everywhere leaves no copy, so this is a lower bound (0 under full LTO, which imports nothing).
// --stats=json: the same as one line of JSON (jansson) on stderr, "cache" null when it is off,
// the wall time in milliseconds.
static void print_stats(const ImageResult *results, size_t images, size_t modules,
                        const Cache *cache, double wall, bool json) {
  size_t hits = 0;
  for (size_t i = 0; i < images; i++)
    hits += results[i].from_cache;
  if (json) {
    json_t *o = json_new_object();
    json_put(o, "images", json_uint(images));
    json_put(o, "modules", json_uint(modules));
    json_put(o, "imports", json_uint(stats_get(STAT_IMPORTS)));
    json_put(o, "completion_links", json_uint(stats_get(STAT_COMPLETION_LINKS)));
    json_t *c = json_null();
    if (cache) {
      c = json_new_object();
      json_put(c, "hits", json_uint(hits));
      json_put(c, "misses", json_uint(images - hits));
    }
    json_put(o, "cache", c);
    json_put(o, "wall_ms", json_uint((uint64_t)(wall * 1000 + 0.5)));
    char *text = json_dump_text(o);
    fprintf(stderr, "%s\n", text);
    free(text);
    json_decref(o);
    return;
  }
  fprintf(stderr, "images: %zu\nmodules: %zu\nimports: %zu\ncompletion links: %zu\n", images,
          modules, stats_get(STAT_IMPORTS), stats_get(STAT_COMPLETION_LINKS));
  if (cache)
    fprintf(stderr, "cache: %zu hit(s), %zu miss(es)\n", hits, images - hits);
  else
    fprintf(stderr, "cache: off\n");
  fprintf(stderr, "wall: %.3f s\n", wall);
}

// An LLVM fatal error (libLTO reports some bad inputs that way) is reported like ours and
// leaves no temporary behind: LLVM's own handler would exit without cleaning up.
static void llvm_fatal_error(const char *reason) {
  fatal(NULL, "LLVM ERROR: %s", reason);
}

// The hooks' step 6: finished images go to the output as soon as their turn comes.
static void image_done(void *output, const size_t *images, size_t n) {
  if (output) output_ready(output, images, n);
  for (size_t k = 0; k < n; k++)
    progress_image_done();
}

// An option's name: without its dashes and its "=value".
static bool option_named(const char *arg, const char *name) {
  arg += strspn(arg, "-");
  size_t n = strlen(name);
  return !strncmp(arg, name, n) && (!arg[n] || arg[n] == '=');
}

// --reproduce=FILE.tar: the inputs and device libraries archived, and the command line with
// their archived names; -o keeps only its file name (lld's), and what names the reproducer's
// own files (cache, trace, library paths, --reproduce) is left out. Written before the link
// runs, so that a link that fails or crashes can be sent too.
static void write_reproducer(const LinkOptions *o, char **argv) {
  Reproducer r;
  reproducer_begin(&r, o->reproduce);
  for (size_t g = 0; g < o->num_groups; g++) {
    const ArgGroup *group = &o->groups[g];
    const char *arg = argv[group->start];
    if (group->input) {
      reproducer_arg(&r, reproducer_file(&r, arg));
    } else if (!strcmp(arg, "-o") || option_named(arg, "output-file")) {
      const char *slash = strrchr(o->output, '/');
      reproducer_arg(&r, "-o");
      reproducer_arg(&r, slash ? slash + 1 : o->output);
    } else if (!strncmp(arg, "-L", 2) || option_named(arg, "library-path") ||
               option_named(arg, "device-libs") || option_named(arg, "cache-dir") ||
               option_named(arg, "thinlto-cache-dir") || option_named(arg, "reproduce") ||
               option_named(arg, "time-trace-file") || !strncmp(arg, "--time-trace=", 13)) {
      continue;
    } else {
      for (int i = group->start; i <= group->end; i++)
        reproducer_arg(&r, argv[i]);
    }
  }
  if (o->device_libs.count) {
    StringList libs = {0};
    for (size_t i = 0; i < o->device_libs.count; i++) {
      char *path = find_device_lib(o, o->device_libs.items[i]);
      strlist_push(&libs, xstrdup(reproducer_file(&r, path)));
      free(path);
    }
    char *joined = strlist_join(&libs, ",");
    char *arg = format("--device-libs=%s", joined);
    reproducer_arg(&r, arg);
    free(arg);
    free(joined);
    strlist_free(&libs);
  }
  reproducer_write(&r);
}

// The link's state: what every stage reads, worked out once from the options before the first
// stage (link_begin), and what each stage leaves for the next. The options are not changed.
typedef struct {
  const LinkOptions *o;
  // Worked out once, before the first stage.
  int jobs;                 // -j, or every core
  char *distributor;        // --distributor, resolved; NULL for local workers
  const char *llvm_spirv;   // the translator, with --spirv-tool=translator
  Cache cache;              // --cache-dir's, when cachep is set
  const Cache *cachep;      // NULL without --cache-dir
  char *time_trace;         // where the trace goes, or NULL
  SplitOptions split;       // the split stage's options, and regroup's and full LTO's
  ThinLinkOptions thin;     // the thin link's and its verification's
  StringList device_libs;   // --device-libs, found on the library paths
  StringList files;         // with relinks: the inputs, then the device libraries
  double start;             // when the first stage began
  Relink relink;            // --cache-dir: the last link's record (tool/relink.c)
  bool relinks;             // the link may be recorded, and reuse a record
  bool reused;              // unchanged: the last link's output was written again
  // The stages' results, in the order they are made.
  InputSet inputs;          // input: every device image; split and regroup replace some
  size_t files_read;        // input: the files read (the split adds its images' bytes)
  // input, with relinks: the files taken from the record (not read), where each image is
  // (file; the first image of each replayed file) and its split entry (split stage).
  bool *replayed;
  size_t *first_image;
  SplitEntryKey *split_keys;
  ProgramFacts *program;    // facts: what no unit sees alone; freed after prepare
  ProgramRecord kept;       // with relinks: the whole-program results of the last link
  Resolution r;             // resolve: the modules, who defines what, what is emitted
  size_t input_modules;     // resolve: the modules linked (before full LTO's split)
  FullModule full;          // fulllink, optimize: full LTO's one module
  InputSet images;          // full LTO's split images, which the hooks' modules point to
  Buffer *optimized;        // thinlink (or full LTO's split): each module's optimized bitcode
  CompletionSources sources; // where completion finds definitions: every optimized module
  size_t damaged;           // thinlink: results taken from damaged ThinLTO cache entries
  size_t emitted;           // hooks: the images made, one per emitted module
  ImageResult *results;
  OutputImage *outputs;
  OutputWriter output;
  char *jobs_dir;           // --distributor: the jobs' files, beside the output
  // --arch naming Intel GPUs (issue 33): the devices, ocloc, and whether the split's AOT
  // aspects are the devices' (then the link's own list, freed at the end).
  AotPlan aot;
  bool native;
  bool device_aspects;
} Link;

// Every check that needs no input, and what the stages share, before the first stage: a
// wrong option fails here, not after minutes of work.
static void link_begin(Link *l, const LinkOptions *o, char **argv, const AotPlan *aot,
                       bool native) {
  *l = (Link){.o = o,
              .jobs = o->jobs,
              .llvm_spirv = o->llvm_spirv,
              .split = o->split,
              .aot = *aot,
              .native = native};
  if (!o->output) fatal(NULL, "no output file; use -o <file>");
  refuse_stdout_output(o->output);
  if (!o->inputs.count) fatal(NULL, "no input files");
  if (o->triple && !is_spirv_triple(o->triple))
    fatal(NULL, "unsupported target triple '%s': sycl-thinlto links spirv64 and spir64 images",
          o->triple);
  if (l->jobs <= 0) l->jobs = (int)uv_available_parallelism();
  if (o->distributor) {
    char *why;
    if (o->tool == SPIRV_TRANSLATOR)
      fatal(NULL, "--distributor: the jobs emit SPIR-V with the backend; not with "
                  "--spirv-tool=translator");
    if (!(l->distributor = distributor_resolve(o->distributor, &why)))
      fatal(o->distributor, "%s", why);
  }
  if (o->tool == SPIRV_TRANSLATOR) {
    char *why;
    if (!l->llvm_spirv) l->llvm_spirv = "llvm-spirv";
    if (translator_check_version(l->llvm_spirv, &why)) fatal(l->llvm_spirv, "%s", why);
  }
  LLVMInstallFatalErrorHandler(llvm_fatal_error);
  heap_steps_for_threads(); // before the stages' threads (bench/RESULTS.md, issue 32)
  check_output_writable(o->output);
  CachePolicy policy;
  char *why;
  // Checked without --cache-dir too: a mistyped policy must not pass unnoticed.
  if (cache_parse_policy(o->cache_policy ? o->cache_policy : "", &policy, &why))
    fatal(NULL, "%s: %s", o->cache_policy_option, why);
  if (o->cache_dir) {
    int rc = cache_open(&l->cache, o->cache_dir, &policy, &why);
    if (rc < 0) fatal(o->cache_dir, "%s", why);
    if (rc > 0) {
      warning(o->cache_dir, "%s; the link goes on without the cache", why);
      free(why);
    } else {
      l->cachep = &l->cache;
    }
  }
  for (size_t i = 0; i < o->device_libs.count; i++)
    strlist_push(&l->device_libs, find_device_lib(o, o->device_libs.items[i]));
  // The split stage's share of the link's options.
  l->split.allow_dependencies = o->allow_dependencies;
  l->split.cache = l->cachep;
  l->split.describe = module_symbols_record; // with a cache: resolution's reading, kept with it
  l->split.facts = true;            // read while each image is in memory, for the facts stage
  l->split.canonical_triple = true; // what prepare would set: most images skip it (prepare.c)
  // The devices' aspects decide the AOT split; --aot-aspects, when given, says it explicitly.
  if (native && !l->split.aot) {
    l->split.aot_aspects = (StringList){0};
    if (aot_device_aspects(&l->aot, &l->split.aot_aspects)) {
      l->split.aot = l->device_aspects = true;
    } else {
      strlist_free(&l->split.aot_aspects);
    }
  }
  l->thin = (ThinLinkOptions){
      .jobs = l->jobs, .import_instr_limit = o->import_instr_limit, .cache = l->cachep};
  l->time_trace = o->time_trace      ? xstrdup(o->time_trace)
                  : o->time_trace_flag ? format("%s.time-trace", o->output)
                                       : NULL;
  progress_begin(progress_wanted(o->no_progress));
  if (l->time_trace) {
    trace_set_granularity(o->time_trace_granularity * 1e-6);
    trace_start();
  }
  l->start = now_seconds();
  // What the output depends on besides its files is in the key; --save-temps, --stats and
  // an external translator say or write more than the output.
  // Nor is the installed ocloc (AOT), and the links of link_aspect_groups share one command
  // line.
  l->relinks = l->cachep && !o->save_temps && !o->stats && o->tool != SPIRV_TRANSLATOR &&
               !native && !o->aspect_group;
  if (l->relinks) {
    for (size_t i = 0; i < o->inputs.count; i++)
      strlist_push(&l->files, xstrdup(o->inputs.items[i]));
    for (size_t i = 0; i < l->device_libs.count; i++)
      strlist_push(&l->files, xstrdup(l->device_libs.items[i]));
    relink_begin(&l->relink, l->cachep, argv, o->groups, o->num_groups, &l->files, o->output,
                 l->jobs);
  }
}

// A link of inputs unchanged since the last link of the same options gives that link's
// output again, at the cost of one stat per input (tool/relink.c).
static void check_unchanged(Link *l) {
  l->reused = relink_reuse(&l->relink);
}

// The SPIR-V workers' parent, forked now: no thread, no temporary file, no handler yet.
static void start_workers(Link *l) {
  if (l->o->tool == SPIRV_TRANSLATOR || l->distributor) return;
  int rc = spawner_start();
  if (rc) fatal(NULL, "cannot start the SPIR-V worker spawner: %s", strerror(-rc));
}

// The early split, for inputs not split at compile time: one image per kernel or per
// source, virtual-function sets outlined, each with a summary; pre-split inputs pass
// through. Full LTO splits once, after linking, instead.
static bool splits_inputs(const Link *l) {
  return !l->o->full_lto && (l->split.mode != SPLIT_NONE || l->split.aot);
}

// Input FILE's images from the relink record (read_input_files' order).
static void add_recorded(InputSet *set, size_t file, void *ctx) {
  Link *l = ctx;
  const RecordedFile *f = &l->relink.files_in[file];
  l->first_image[file] = set->count;
  for (size_t k = 0; k < f->count; k++) {
    InputImage im = input_image_derive(&f->images[k]);
    im.keys = xcalloc(f->images[k].num_keys + 1, sizeof(OffloadString));
    for (size_t j = 0; j < f->images[k].num_keys; j++)
      im.keys[j] = (OffloadString){xstrdup(f->images[k].keys[j].key),
                                   xstrdup(f->images[k].keys[j].value)};
    im.num_keys = f->images[k].num_keys;
    input_set_add_recorded(set, im);
  }
}

// What the record keeps of each file: a replayed file's record as it was; a read one's images
// when every one of them is split here (user bitcode without a split key, whose bytes lie in
// the file). The split stage fills in their entries' keys (record_split_keys).
static void found_in_files(Link *l, const StringList *paths) {
  InputSet *set = &l->inputs;
  size_t n = paths->count;
  l->relink.files_out = xcalloc(n + 1, sizeof(RecordedFile));
  if (set->num_files != n || set->mixed) return; // read_inputs has read every file then
  l->split_keys = xcalloc(set->count + 1, sizeof(SplitEntryKey));
  size_t at = 0; // the next image
  for (size_t i = 0; i < n; i++) {
    RecordedFile *out = &l->relink.files_out[i];
    if (l->replayed[i]) {
      RecordedFile *in = &l->relink.files_in[i];
      for (size_t k = 0; k < in->count; k++) {
        l->split_keys[l->first_image[i] + k] = in->keys[k];
        l->split_keys[l->first_image[i] + k].path = paths->items[i];
      }
      at = l->first_image[i] + in->count;
      *out = *in; // its record stays as it was
      *in = (RecordedFile){0};
      continue;
    }
    const Buffer *file = &set->files[i];
    size_t first = at;
    bool known = i < l->o->inputs.count;
    while (at < set->count && set->items[at].data &&
           set->items[at].data >= file->data && set->items[at].data < file->data + file->size)
      at++;
    for (size_t k = first; known && k < at; k++) {
      const InputImage *im = &set->items[k];
      known = !im->is_library && im->image_kind == IMG_BITCODE &&
              im->size <= (size_t)(file->data + file->size - im->data);
      for (size_t j = 0; known && j < im->num_keys; j++)
        known = strcmp(im->keys[j].key, SPLIT_KEY) != 0;
    }
    if (!known) continue;
    out->known = true;
    out->count = at - first;
    out->images = xcalloc(out->count + 1, sizeof(InputImage));
    out->keys = xcalloc(out->count + 1, sizeof(SplitEntryKey));
    for (size_t k = 0; k < out->count; k++) {
      const InputImage *im = &set->items[first + k];
      out->images[k] = input_image_derive(im);
      out->images[k].keys = xcalloc(im->num_keys + 1, sizeof(OffloadString));
      for (size_t j = 0; j < im->num_keys; j++)
        out->images[k].keys[j] = (OffloadString){xstrdup(im->keys[j].key),
                                                 xstrdup(im->keys[j].value)};
      out->images[k].num_keys = im->num_keys;
      out->images[k].data = NULL;
      out->images[k].verified = out->images[k].link_ready = false;
      out->keys[k].offset = (uint64_t)(im->data - file->data);
    }
    l->first_image[i] = first;
  }
  // Images of no file (the set not as expected): no file is recorded with images.
  if (at != set->count)
    for (size_t i = 0; i < n; i++)
      if (!l->replayed[i]) recorded_file_free(&l->relink.files_out[i]);
}

// After the split: each read file's images' entry keys; a file with an image not split (or
// without its entry's key) is recorded without images.
static void record_split_keys(Link *l) {
  if (!l->split_keys) return;
  for (size_t i = 0; i < l->files.count; i++) {
    RecordedFile *out = &l->relink.files_out[i];
    if (l->replayed[i] || !out->known) continue;
    bool ok = true;
    for (size_t k = 0; ok && k < out->count; k++) {
      const SplitEntryKey *e = &l->split_keys[l->first_image[i] + k];
      ok = e->split && e->key[0];
      if (ok) memcpy(out->keys[k].key, e->key, CACHE_KEY_SIZE);
    }
    if (!ok) recorded_file_free(out);
  }
  free(l->split_keys);
  l->split_keys = NULL;
}

// Every device image of every input: bitcode, OffloadBinary, fat object, archive.
static void read_inputs(Link *l) {
  // Until the facts stage has verified every module, LLVM reads untrusted bytes: a malformed
  // count in a small module must not take the machine's memory (read_memory_ceiling_begin).
  uint64_t input_bytes = 0;
  for (size_t i = 0; i < l->o->inputs.count; i++)
    input_bytes += file_size(l->o->inputs.items[i]);
  for (size_t i = 0; i < l->device_libs.count; i++)
    input_bytes += file_size(l->device_libs.items[i]);
  read_memory_ceiling_begin(input_bytes);
  l->inputs = (InputSet){.for_link = true,
                         .prefer_target = l->o->prefer_target ? l->o->prefer_target
                                          : l->native          ? "spir64_gen"
                                                               : NULL};
  StringList paths = {0}; // borrowed: freed by its array alone
  for (size_t i = 0; i < l->o->inputs.count; i++)
    strlist_push(&paths, l->o->inputs.items[i]);
  for (size_t i = 0; i < l->device_libs.count; i++)
    strlist_push(&paths, l->device_libs.items[i]);
  // A file changed just before the link: the record takes the key of the bytes read here.
  // An input whose identity is the record's is not read: its images are the record's.
  InputReplay replay = {.add = add_recorded, .ctx = l};
  size_t taken = 0;
  if (l->relinks && splits_inputs(l)) {
    l->replayed = xcalloc(paths.count + 1, sizeof(bool));
    l->first_image = xcalloc(paths.count + 1, sizeof(size_t));
    for (size_t i = 0; i < l->o->inputs.count; i++)
      taken += l->replayed[i] = relink_file_recorded(&l->relink, i);
    replay.skip = l->replayed;
  }
  InputSet empty = l->inputs;
  read_input_files(&l->inputs, &paths, l->o->inputs.count, l->jobs,
                   l->relinks ? l->relink.racy : NULL, l->relinks ? l->relink.read_keys : NULL,
                   l->replayed ? &replay : NULL);
  // Two targets, one kept (images dropped), or files not one to one with the paths: every
  // file read, none recorded.
  if (taken && (l->inputs.mixed || l->inputs.num_files != paths.count)) {
    input_set_free(&l->inputs);
    l->inputs = empty;
    memset(l->replayed, 0, paths.count * sizeof(bool));
    taken = 0;
    read_input_files(&l->inputs, &paths, l->o->inputs.count, l->jobs, l->relink.racy,
                     l->relink.read_keys, NULL);
  }
  if (l->relinks) note("input: %zu file(s) read, %zu taken from the relink record",
                       paths.count - taken, taken);
  if (l->replayed) found_in_files(l, &paths);
  free(paths.items);
  if (l->inputs.mixed) input_set_keep_target(&l->inputs, l->inputs.prefer_target);
  size_t user_images = 0;
  for (size_t i = 0; i < l->inputs.count; i++)
    user_images += !l->inputs.items[i].is_library;
  if (!user_images) fatal(NULL, "no SYCL device images for a SPIR-V target in the inputs");
  // Device code compiled for intel's AOT target asks for native code: without --arch naming
  // its device the link would write SPIR-V for it, without a word.
  if (!l->native && l->inputs.target && !strcmp(l->inputs.target, "spir64_gen")) {
    const char *device = "<device>";
    for (size_t i = 0; i < l->inputs.count; i++)
      if (!l->inputs.items[i].is_library && l->inputs.items[i].arch && *l->inputs.items[i].arch)
        device = l->inputs.items[i].arch;
    fatal(l->inputs.target_origin,
          "device code for spir64_gen (ahead of time for Intel GPUs) is linked for a device: "
          "--arch=%s (or -Xsycl-target-backend=spir64_gen \"-device %s\")",
          device, device);
  }
  l->files_read = l->inputs.num_files;
}

static void split_stage(Link *l) {
  split_inputs(&l->inputs, &l->split, l->jobs, l->split_keys);
  record_split_keys(l);
}

// What no unit sees alone: the aspects each kernel reaches through other units' functions
// and virtual-function sets. Full LTO groups once, after linking, by the same facts.
static void facts_stage(Link *l) {
  if (l->relinks && !l->o->full_lto) {
    program_record_begin(&l->kept, l->cachep, l->relink.key, &l->inputs, l->relink.recordable);
    l->program = program_record_facts(&l->kept, &l->inputs, &l->split, l->o->allow_dependencies);
    if (l->program) return;
  }
  l->program = program_facts(&l->inputs, l->cachep, l->jobs);
  if (l->kept.active) program_record_computed(&l->kept, l->program);
}

// Images whose kernels turn out to differ are grouped again, a set outlined by several
// units becomes one image, a device_image_scope global must stay in one image.
// Results read back from the last link's (program_restored) come from a link whose regroup
// changed nothing for the same facts.
static void regroup_stage(Link *l) {
  if (program_restored(l->program)) return;
  if (program_regroup(&l->inputs, l->program, &l->split, l->jobs))
    program_record_end(&l->kept); // other modules than the facts stage's: nothing kept
  else if (l->kept.active)
    program_record_keep_facts(&l->kept, l->program);
}

// Who defines what, which definition wins, which images have kernels to emit. The modules
// are verified by now: the rest may take what memory it needs, and what the link needs of
// the files is in the images (host code is not).
static void resolve_stage(Link *l) {
  read_memory_ceiling_end();
  size_t released = 0;
  for (size_t f = 0; f < l->files_read; f++)
    released += l->inputs.files[f].size;
  release_file_bytes(&l->inputs, l->files_read);
  // Handing freed pages back walks every heap (5 ms at 1000 units): not for the few files
  // of a relink.
  if (released >= 8 << 20) release_free_memory();
  bool deps = l->o->allow_dependencies, aot = l->split.aot;
  if (!l->kept.active || !program_record_resolution(&l->kept, &l->r, &l->inputs, aot, deps)) {
    char(*interface)[CACHE_KEY_SIZE] =
        l->kept.active ? xcalloc(l->inputs.count + 1, CACHE_KEY_SIZE) : NULL;
    resolve_symbols(&l->r, &l->inputs, deps, aot, l->cachep, l->jobs, interface);
    if (l->kept.active)
      program_record_keep_resolution(&l->kept, &l->r, &l->inputs, interface, aot, deps);
    free(interface);
  }
  program_record_end(&l->kept);
  l->input_modules = l->r.num_modules;
}

// Canonical triple, losing weak definitions dropped, a ThinLTO summary on every module.
static void prepare_stage(Link *l) {
  prepare_modules(&l->r, l->program, l->cachep, l->o->full_lto ? NULL : &l->inputs, l->jobs);
  program_facts_free(l->program);
  l->program = NULL;
}

// libLTO: combined index, imports, internalization, optimization; bitcode out.
static void thin_link_stage(Link *l) {
  release_input_bytes(&l->inputs);
  release_free_memory(); // the inputs' bytes: the peak comes in the thin link, next
  l->optimized = xcalloc(l->r.num_modules, sizeof(Buffer));
  l->damaged = thin_link(&l->r, &l->thin, l->optimized, &l->sources);
}

// libLTO hands back its cache entries unchecked: each result is checked against the
// checksum of the entry it came from, and indexed for completion (which reads every
// module: a damaged entry without a checksum shows there). Any damage, and the thin link
// is done again without the damaged entries.
static void verify_stage(Link *l) {
  thin_link_verify(&l->r, &l->thin, l->optimized, l->damaged, &l->sources);
}

// Full LTO, the traditional flow and the benchmark's baseline: every module linked into one
// (device libraries on demand), optimized once, split by the split stage's rules; the images
// are resolved like inputs and go through the same hooks.
static void full_link_stage(Link *l) {
  full_link(&l->r, l->jobs, &l->full);
}
static void full_optimize_stage(Link *l) {
  full_optimize(&l->full, &l->r, l->o->opt_level);
}
static void full_split_stage(Link *l) {
  l->optimized = full_split(&l->full, &l->r, &l->split, &l->images);
  resolution_free(&l->r); // the inputs' resolution; the split images get their own
}
static void full_resolve_stage(Link *l) {
  resolve_symbols(&l->r, &l->images, l->o->allow_dependencies, l->split.aot, l->cachep,
                  l->jobs, NULL);
  l->sources = (CompletionSources){.bitcode = l->optimized, .num_modules = l->r.num_modules};
  index_definitions(&l->sources, &l->r, l->cachep, l->jobs, NULL); // the thin link does it
}

// Per image, in parallel: complete, finalize, symbol table, SPIR-V, checks. Images are
// written as they are done (in order): the link never holds all their SPIR-V.
static void hooks_stage(Link *l) {
  const LinkOptions *o = l->o;
  for (size_t i = 0; i < l->r.num_modules; i++)
    l->emitted += l->r.modules[i].emit;
  size_t n = l->emitted ? l->emitted : 1;
  l->results = xcalloc(n, sizeof(ImageResult));
  l->outputs = xcalloc(n, sizeof(OutputImage));
  for (size_t i = 0; i < l->emitted; i++)
    l->outputs[i] = (OutputImage){.spirv = &l->results[i].spirv,
                                  .symbols = &l->results[i].symbols,
                                  .properties = &l->results[i].properties};
  // The jobs' files: beside the output, which a cluster's nodes see on a shared file system.
  l->jobs_dir = format("%s.jobs.%s.%ld", o->output, host_name(), (long)getpid());
  HookOptions ho = {
      .jobs = l->jobs,
      .tool = o->tool,
      .llvm_spirv = l->llvm_spirv,
      .validate = o->validate,
      .allow_dependencies = o->allow_dependencies,
      .emit_program_metadata = o->emit_program_metadata,
      .emit_kernel_names = o->emit_kernel_names,
      .spec_const = o->spec_const,
      .stats = o->stats,
      .opt_level = o->opt_level,
      .save_temps_prefix = o->save_temps ? o->output : NULL,
      .cache = l->cachep,
      .distributor = l->distributor,
      .distributor_args = &o->distributor_args,
      .remote_compiler = o->remote_compiler,
      .jobs_dir = l->jobs_dir,
      .output = o->output,
      .keep_jobs = o->save_temps,
      .image_done = image_done,
      .image_done_arg = l->native ? NULL : &l->output, // AOT writes once ocloc is done
  };
  if (!l->native) output_open(&l->output, o->output, o->arch, l->outputs, l->emitted, l->jobs);
  progress_stage("hooks", l->emitted);
  run_hooks(&l->r, l->optimized, &l->sources, &ho, l->results);
  spawner_stop(); // once reaped, its workers' CPU time and peak RSS count as our children's
  completion_sources_free(&l->sources);
  if (error_count()) progress_end();
  exit_on_errors();
  if (!l->emitted) warning(NULL, "no kernels in the inputs; the output holds no image");
  if (o->check_imports) check_link_imports(l->results, l->emitted);
}

// The output file, renamed into place: until now no output exists. A link that said nothing
// to fix is recorded for the next one (check_unchanged).
static void output_stage(Link *l) {
  output_commit(&l->output);
  if (l->relinks && !warning_count()) relink_record(&l->relink);
}

// Ahead of time: each image through ocloc per device, in parallel, cached, distributable;
// then the output, with the native images (tool/link_aot.c).
static void aot_stage(Link *l) {
  AotOptions ao = {.jobs = l->jobs,
                   .cache = l->cachep,
                   .distributor = l->distributor,
                   .distributor_args = &l->o->distributor_args,
                   .output = l->o->output,
                   .keep_files = l->o->save_temps};
  link_native_output(l->o->output, &l->aot, &ao, l->results, l->emitted);
}

// What the exit leaves of a link (below): reachable, so valgrind counts none of it as lost.
static Link left_to_exit;

// What the link says of itself (-v, --stats, --time-trace), and all it allocated freed where
// leaks are checked (LEAKS_CHECKED); elsewhere the exit frees it: at 1000 units the frees
// took 10-12 ms on the device after the last note (a munmap per ThinLTO result among them),
// which the exit does in one go.
static int link_end(Link *l) {
  const LinkOptions *o = l->o;
  progress_end(); // before the link's own output (--stats, warnings)
  if (l->cachep) cache_prune(l->cachep);
  struct rusage workers;
  getrusage(RUSAGE_CHILDREN, &workers); // the largest of them, not a sum
  if (!l->reused)
    note("linked %zu image(s) from %zu module(s) in %.3f s; peak %.1f MB, %.1f MB in a worker",
         l->emitted, l->input_modules, now_seconds() - l->start, peak_rss_mb(),
         workers.ru_maxrss / 1024.0);
  if (o->stats)
    print_stats(l->results, l->emitted, l->input_modules, l->cachep, now_seconds() - l->start,
                o->stats_json);
  if (l->time_trace) {
    trace_span(o->full_lto ? "link (full LTO)" : "link (ThinLTO)", o->output, l->start,
               now_seconds(), 0);
    int rc = trace_write(l->time_trace);
    if (rc) warning(l->time_trace, "cannot write the time trace: %s", strerror(-rc));
  }
  free(l->time_trace);
  program_record_end(&l->kept);
  if (!LEAKS_CHECKED) {
    left_to_exit = *l;
    return 0;
  }
  if (l->relinks) relink_free(&l->relink);
  free(l->replayed);
  free(l->first_image);
  free(l->split_keys);
  strlist_free(&l->files);
  for (size_t i = 0; i < l->r.num_modules; i++)
    buffer_free(&l->optimized[i]);
  for (size_t i = 0; i < l->emitted; i++)
    image_result_free(&l->results[i]);
  free(l->optimized);
  free(l->jobs_dir);
  free(l->distributor);
  free(l->outputs);
  free(l->results);
  strlist_free(&l->device_libs);
  resolution_free(&l->r);
  input_set_free(&l->images);
  input_set_free(&l->inputs);
  if (l->cachep) cache_close(&l->cache);
  if (l->device_aspects) strlist_free(&l->split.aot_aspects);
  aot_plan_free(&l->aot);
  return 0;
}

// The data flow of ARCHITECTURE.md, one stage a line, each timed (-v, --time-trace). A
// stage reads the link's state and adds to it; errors are fatal within the stage that
// finds them.
static int link_aspect_groups(const LinkOptions *o, char **argv, const StringList *groups);

static int run_link(const LinkOptions *o, char **argv) {
  // --arch naming Intel GPUs: devices whose aspects differ get a link each.
  AotPlan aot;
  bool native = aot_plan(o->arch, o->ocloc, &o->ocloc_options, &aot);
  if (!native && o->ocloc_options.count)
    warning(NULL, "--ocloc-options: no Intel GPU in --arch, ocloc does not run; ignored");
  if (native) {
    StringList groups = {0};
    aot_aspect_groups(&aot, &groups);
    if (groups.count > 1) {
      aot_plan_free(&aot);
      int rc = link_aspect_groups(o, argv, &groups);
      strlist_free(&groups);
      return rc;
    }
    strlist_free(&groups);
  }
  Link link;
  link_begin(&link, o, argv, &aot, native);
  if (link.relinks) STAGE("unchanged", check_unchanged(&link));
  if (link.reused) return link_end(&link);
  start_workers(&link);
  STAGE("input", read_inputs(&link));
  if (splits_inputs(&link)) STAGE("split", split_stage(&link));
  STAGE("facts", facts_stage(&link));
  if (!o->full_lto) STAGE("regroup", regroup_stage(&link));
  STAGE("resolve", resolve_stage(&link));
  STAGE("prepare", prepare_stage(&link));
  if (o->full_lto) {
    STAGE("fulllink", full_link_stage(&link));
    STAGE("optimize", full_optimize_stage(&link));
    STAGE("split", full_split_stage(&link));
    STAGE("resolve", full_resolve_stage(&link));
  } else {
    STAGE("thinlink", thin_link_stage(&link));
    STAGE("verify", verify_stage(&link));
  }
  STAGE("hooks", hooks_stage(&link));
  if (link.native)
    STAGE("aot", aot_stage(&link));
  else
    STAGE("output", output_stage(&link));
  return link_end(&link);
}

// --arch devices with different aspects (pvc has fp64, acm_g10 has not): one link per set of
// aspects, each in a child process of its own (a link's state is its process's), their
// outputs concatenated in order (OffloadBinary files concatenate).
static int link_aspect_groups(const LinkOptions *o, char **argv, const StringList *groups) {
  Buffer all = {0};
  for (size_t g = 0; g < groups->count; g++) {
    char *part = format("%s.aot.%ld.%zu", o->output, (long)getpid(), g);
    own_expect(part); // the child makes it
    remove_on_failure(part);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) fatal(NULL, "cannot fork: %s", strerror(errno));
    if (pid == 0) {
      forget_children();
      LinkOptions child = *o;
      // Each link's trace is its own: TRACE.G, where TRACE is what the options name.
      if (o->time_trace)
        child.time_trace = format("%s.%zu", o->time_trace, g);
      else if (o->time_trace_flag)
        child.time_trace = format("%s.time-trace.%zu", o->output, g);
      child.time_trace_flag = false;
      // Objects compiled for both (-fsycl-targets=spir64,intel_gpu_pvc): the devices link
      // the spir64_gen images, the SPIR-V link the spir64 ones.
      child.prefer_target = *groups->items[g] ? "spir64_gen" : "spirv64";
      child.aspect_group = true;
      child.arch = groups->items[g];
      if (!*child.arch) child.ocloc_options = (StringList){0}; // SPIR-V's link runs no ocloc
      child.output = part;
      exit(run_link(&child, argv));
    }
    track_child(pid);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    untrack_child(pid);
    if (WIFSIGNALED(status))
      fatal(NULL, "the link for --arch=%s was killed by signal %d", groups->items[g],
            WTERMSIG(status));
    if (WEXITSTATUS(status)) { // it has said why
      remove_failure_paths();
      exit(WEXITSTATUS(status));
    }
    Buffer b;
    int rc = read_file(part, &b);
    if (rc) fatal(part, "%s", read_error_text(rc));
    buffer_append(&all, b.data, b.size);
    buffer_free(&b);
    own_remove(part);
    free(part);
  }
  int rc = write_output_atomic(o->output, all.data, all.size);
  if (rc) fatal(o->output, "cannot write output: %s", strerror(-rc));
  keep_on_success(o->output);
  free(all.data);
  return 0;
}

static void free_options(LinkOptions *o) {
  free(o->groups);
  strlist_free(&o->inputs);
  strlist_free(&o->device_libs);
  strlist_free(&o->library_paths);
  strlist_free(&o->distributor_args);
  strlist_free(&o->split.aot_aspects);
  strlist_free(&o->ocloc_options);
}

static void default_options(LinkOptions *o) {
  *o = (LinkOptions){.validate = true,
                     .tool = SPIRV_BACKEND,
                     .import_instr_limit = 1000,
                     .opt_level = 2,
                     .spec_const = SPEC_CONST_NATIVE, // intel's default for SPIR-V JIT
                     .cache_policy_option = "--cache-policy",
                     .split = {.mode = SPLIT_AUTO}};
}

int link_main(int argc, char **argv, bool clang_sycl_linker) {
  LinkOptions o;
  default_options(&o);
  parse_link_options(argc, argv, &o, clang_sycl_linker);
  check_link_outputs(&o);
  if (o.reproduce) write_reproducer(&o, argv);
  int rc = run_link(&o, argv);
  free_options(&o);
  return rc;
}
