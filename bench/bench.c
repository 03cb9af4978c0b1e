// sycl-bench: generates a SYCL program, compiles it once with clang++-22 -fsycl, then links
// the same inputs with every linker side by side, measuring wall time, CPU time and peak RSS
// of each run (wait4), validating every output, timing the first kernel's result at run
// time (pocl) with each linker's output, and printing the ratios.
// It asserts nothing: targets are read off its table, not enforced by tests.
#include "tool/tool.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

// Where clang++, clang-sycl-linker and the LLVM tools are (--llvm-bin).
static const char *llvm_bin = "/usr/lib/llvm-22/bin";

typedef struct {
  const char *name;
  int units, kernels, helpers, body;
} Size;

static const Size sizes[] = {
    {"smoke", 6, 3, 2, 2},
    {"small", 40, 10, 4, 6},
    {"large", 400, 10, 4, 6},
};

typedef struct {
  const char *out_dir;
  const char *tool; // our sycl-thinlto
  const char *gen;  // sycl-bench-gen
  Size size;
  int jobs; // "all cores"
  bool plot;
  bool reuse; // --reuse-objects: a program compiled by an earlier run (e.g. on another machine)
  const char *runtime_dir;  // the test runtime's library (--runtime), for the first kernel
  const char *first_object; // bench/first_kernel.c compiled (--first-object)
} Config;

// One measured run.
typedef struct {
  char label[64];
  int units;
  int jobs;
  double wall, cpu;
  long peak_rss_kb;
  int images;
  int valid; // images passing validation
  bool ran;
  bool failed;
} Run;

// Our thin links are timed several times and the median kept: the speed-up and the relink
// ratios divide by them. The short ones (relinks, the edited unit alone) vary the most.
enum { THIN_REPEATS = 3, SHORT_REPEATS = 5, MAX_REPEATS = 9 };

static Run runs[64];
static int num_runs;

// Time to the first kernel's result at run time (bench/first_kernel.c), per linker output.
typedef struct {
  char label[64];
  int units;
  double total, build; // seconds: up to the result, and the build of its image set alone
  bool ran;
} FirstKernel;

enum { FIRST_REPEATS = 3 };
static FirstKernel firsts[16];
static int num_firsts;

static __attribute__((noreturn)) void die_with(const char *what) {
  fprintf(stderr, "sycl-bench: error: %s\n", what);
  exit(1);
}

// Spawns ARGV (stdout/stderr to LOG if given) and waits, collecting its resource usage.
static int run_measured(char *const argv[], const char *log, double *wall, double *cpu,
                        long *rss_kb) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (log) {
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  }
  double start = now_seconds();
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc) {
    fprintf(stderr, "sycl-bench: error: cannot run %s: %s\n", argv[0], strerror(rc));
    return -1;
  }
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0)
    if (errno != EINTR) die_with("wait4 failed");
  if (wall) *wall = now_seconds() - start;
  // A child's times include its own waited-for children (our SPIR-V workers).
  if (cpu)
    *cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  if (rss_kb) *rss_kb = ru.ru_maxrss;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void run_or_die(char *const argv[], const char *log) {
  if (run_measured(argv, log, NULL, NULL, NULL) != 0) {
    fprintf(stderr, "sycl-bench: error: %s failed%s%s\n", argv[0], log ? "; see " : "",
            log ? log : "");
    exit(1);
  }
}

// Runs every command of CMDS, JOBS at a time (compilation of the units).
static void run_parallel(char ***cmds, int n, int jobs, const char *log) {
  int next = 0, running = 0, failed = 0;
  while (next < n || running) {
    while (running < jobs && next < n) {
      pid_t pid;
      posix_spawn_file_actions_t fa;
      posix_spawn_file_actions_init(&fa);
      posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
      posix_spawn_file_actions_adddup2(&fa, 1, 2);
      if (posix_spawnp(&pid, cmds[next][0], &fa, NULL, cmds[next], environ))
        failed++;
      else
        running++;
      posix_spawn_file_actions_destroy(&fa);
      next++;
    }
    int status;
    if (running && wait(&status) > 0) {
      running--;
      if (!WIFEXITED(status) || WEXITSTATUS(status)) failed++;
    }
  }
  if (failed) {
    fprintf(stderr, "sycl-bench: error: %d command(s) failed; see %s\n", failed, log);
    exit(1);
  }
}

static char *path_in(const char *dir, const char *name) {
  return format("%s/%s", dir, name);
}

// Every image of an OffloadBinary output through the validator; returns the number valid.
static int count_valid(const char *path, int *images) {
  Buffer b;
  *images = 0;
  if (read_file(path, &b)) return 0;
  OffloadEntry *e;
  size_t n;
  char *why;
  if (offload_binary_parse(b.data, b.size, &e, &n, &why)) {
    free(why);
    free(b.data);
    return 0;
  }
  int valid = 0;
  for (size_t i = 0; i < n; i++) {
    Buffer spirv = {.data = (uint8_t *)e[i].image, .size = e[i].image_size};
    if (spirv_validate(&spirv, &why) == 0)
      valid++;
    else
      free(why);
    free(e[i].strings);
  }
  *images = (int)n;
  free(e);
  free(b.data);
  return valid;
}

// count_valid in a child process: a spawned linker's peak RSS (wait4) starts from this
// process's own (Linux counts the memory of the process it was spawned from before its
// exec), so the validator's memory must never be this process's.
static int validate_output(const char *path, int *images) {
  int fds[2], counts[2] = {0, 0};
  *images = 0;
  if (pipe(fds)) return 0;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    counts[0] = count_valid(path, &counts[1]);
    _exit(write(fds[1], counts, sizeof counts) == sizeof counts ? 0 : 1);
  }
  close(fds[1]);
  if (pid > 0 && read(fds[0], counts, sizeof counts) != sizeof counts) counts[0] = counts[1] = 0;
  close(fds[0]);
  if (pid > 0)
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
  *images = counts[1];
  return counts[0];
}

static int by_wall(const void *a, const void *b) {
  const Run *x = a, *y = b;
  return (x->wall > y->wall) - (x->wall < y->wall);
}

// Runs ARGV REPEATS times, each after the commands of SETUP (NULL-terminated, or NULL), and
// keeps the run of median wall time: a link of a fraction of a second varies from one run
// to the next by more than the differences it is there to show.
static void record(const char *label, int units, int jobs, char *const argv[], const char *log,
                   const char *output, int repeats, char **const *setup) {
  Run tries[MAX_REPEATS];
  if (repeats < 1 || repeats > MAX_REPEATS) repeats = 1;
  for (int t = 0; t < repeats; t++) {
    for (int k = 0; setup && setup[k]; k++)
      run_or_die(setup[k], log);
    Run *r = &tries[t];
    *r = (Run){.units = units, .jobs = jobs, .ran = true};
    snprintf(r->label, sizeof r->label, "%s", label);
    unlink(output);
    r->failed = run_measured(argv, log, &r->wall, &r->cpu, &r->peak_rss_kb) != 0;
    if (!r->failed) r->valid = validate_output(output, &r->images);
    if (r->failed) { // a failure is what gets reported, not the median of the others
      tries[0] = *r;
      repeats = 1;
      break;
    }
  }
  qsort(tries, (size_t)repeats, sizeof *tries, by_wall);
  Run *r = &runs[num_runs++];
  *r = tries[repeats / 2];
  char median[32] = "";
  if (repeats > 1) snprintf(median, sizeof median, "  (median of %d)", repeats);
  printf("  %-36s -j%-3d %8.2f s wall %8.2f s cpu %8.1f MB  %d/%d images valid%s%s\n", label, jobs,
         r->wall, r->cpu, r->peak_rss_kb / 1024.0, r->valid, r->images,
         r->failed ? "  (FAILED, see log)" : "", median);
  fflush(stdout);
}

static const Run *find_run(const char *label, int units, int jobs) {
  for (int i = 0; i < num_runs; i++)
    if (!strcmp(runs[i].label, label) && runs[i].units == units && runs[i].jobs == jobs &&
        !runs[i].failed)
      return &runs[i];
  return NULL;
}

static void print_ratio(const char *what, const Run *a, const Run *b, bool rss) {
  if (!a || !b) {
    printf("| %s | n/a (a linker mode it needs is not available yet) |\n", what);
    return;
  }
  double x = rss ? (double)a->peak_rss_kb / b->peak_rss_kb : a->wall / b->wall;
  printf("| %s | %.3f |\n", what, x);
}

static int by_total(const void *a, const void *b) {
  const FirstKernel *x = a, *y = b;
  return (x->total > y->total) - (x->total < y->total);
}

// Time to the first kernel's result with LINKED (some linker's output) as the program's
// device code: wrapped (`sycl-thinlto wrap`), linked with bench/first_kernel.c and the test
// runtime, and run FIRST_REPEATS times on pocl (its kernel cache off: every run compiles);
// the median is kept. Where the runtime or OpenCL is missing it says so and records nothing.
static void first_kernel(const Config *c, const char *label, int units, const char *linked,
                         const char *dir, const char *log) {
  if (!c->runtime_dir || !c->first_object) return;
  char *wrapper = format("%s/%s.wrap.o", dir, label), *exe = format("%s/first-%s", dir, label);
  char *result = format("%s/first-%s.txt", dir, label);
  char *wrap[] = {(char *)c->tool, "wrap", (char *)linked, "-o", wrapper, NULL};
  char *lflag = format("-L%s", c->runtime_dir), *rpath = format("-Wl,-rpath,%s", c->runtime_dir);
  char *cc[] = {"cc",  "-o", exe, (char *)c->first_object, wrapper, lflag, "-lsycl_test_runtime",
                rpath, NULL};
  FirstKernel tries[FIRST_REPEATS];
  int n = 0;
  if (run_measured(wrap, log, NULL, NULL, NULL) == 0 &&
      run_measured(cc, log, NULL, NULL, NULL) == 0) {
    setenv("POCL_KERNEL_CACHE", "0", 1);
    for (; n < FIRST_REPEATS; n++) {
      unlink(result);
      char *run[] = {exe, "_ZTS7K0000_0", NULL};
      Buffer out = {0};
      FirstKernel *f = &tries[n];
      *f = (FirstKernel){.units = units, .ran = true};
      if (run_measured(run, result, NULL, NULL, NULL) != 0 || read_file(result, &out) ||
          sscanf((const char *)out.data, "%lf %lf", &f->total, &f->build) != 2) {
        free(out.data);
        break;
      }
      free(out.data);
    }
  }
  if (n < FIRST_REPEATS) {
    printf("  first kernel, %-24s n/a (no OpenCL device or runtime; see %s)\n", label, log);
  } else {
    qsort(tries, FIRST_REPEATS, sizeof *tries, by_total);
    FirstKernel *f = &firsts[num_firsts++];
    *f = tries[FIRST_REPEATS / 2];
    snprintf(f->label, sizeof f->label, "%s", label);
    printf("  first kernel, %-24s %8.2f s to its result, %.2f s of it building its images"
           "  (median of %d)\n",
           label, f->total, f->build, FIRST_REPEATS);
  }
  fflush(stdout);
  free(wrapper), free(exe), free(result), free(lflag), free(rpath);
}

static const FirstKernel *find_first(const char *label, int units) {
  for (int i = 0; i < num_firsts; i++)
    if (!strcmp(firsts[i].label, label) && firsts[i].units == units) return &firsts[i];
  return NULL;
}

// `sycl-thinlto link -jJOBS --no-validate FLAG DEVLIBS INPUTS... -o OUT` into ARGV; EDITED,
// if given, stands in for the first input. ARGV's "-jJOBS" is written into JOBS_ARG.
static void link_argv(char **argv, char jobs_arg[16], const Config *c, int jobs, const char *flag,
                      const char *devlibs, const StringList *inputs, const char *edited,
                      const char *out) {
  int k = 0;
  argv[k++] = (char *)c->tool;
  argv[k++] = "link";
  snprintf(jobs_arg, 16, "-j%d", jobs);
  argv[k++] = jobs_arg;
  argv[k++] = "--no-validate";
  // FLAG may be two options, "A B" (a mode and a split): kept apart in a static copy.
  static char flags[2][64];
  const char *space = strchr(flag, ' ');
  if (space) {
    snprintf(flags[0], sizeof flags[0], "%.*s", (int)(space - flag), flag);
    snprintf(flags[1], sizeof flags[1], "%s", space + 1);
    argv[k++] = flags[0];
    flag = flags[1];
  }
  argv[k++] = (char *)flag;
  argv[k++] = (char *)devlibs;
  for (size_t u = 0; u < inputs->count; u++)
    argv[k++] = u == 0 && edited ? (char *)edited : inputs->items[u];
  argv[k++] = "-o";
  argv[k++] = (char *)out;
  argv[k] = NULL;
}

// Generates, compiles and links one program size; returns its number of units.
static void bench_size(const Config *c, Size s, int *jobs_list, int num_jobs) {
  char *dir = format("%s/%s-%d", c->out_dir, s.name, s.units);
  char *src = path_in(dir, "src"), *obj = path_in(dir, "obj"), *log = path_in(dir, "log.txt");
  mkdir(dir, 0777);
  mkdir(obj, 0777);
  printf("\n## %d units x %d kernels (%d helpers each, body %d)\n\n", s.units, s.kernels, s.helpers,
         s.body);
  char units[16], kernels[16], helpers[16], body[16];
  snprintf(units, sizeof units, "%d", s.units);
  snprintf(kernels, sizeof kernels, "%d", s.kernels);
  snprintf(helpers, sizeof helpers, "%d", s.helpers);
  snprintf(body, sizeof body, "%d", s.body);
  char *gen[] = {(char *)c->gen, "--units", units, "--kernels", kernels, "--helpers",
                 helpers,        "--body",  body,  "-o",        src,     NULL};
  char *last = format("%s/u%04d.dev.o", obj, s.units - 1);
  bool reuse = c->reuse && access(last, R_OK) == 0;
  free(last);
  if (!reuse) run_or_die(gen, log);

  // Compile once: plain objects (what clang++ -fsycl writes by default) for every linker.
  double start = now_seconds();
  char ***cmds = xcalloc(s.units, sizeof(char **));
  StringList objects = {0}, device = {0};
  for (int u = 0; u < s.units; u++) {
    char *in = format("%s/u%04d.cpp", src, u), *out = format("%s/u%04d.o", obj, u);
    char **argv = xcalloc(8, sizeof(char *));
    argv[0] = format("%s/clang++", llvm_bin);
    argv[1] = "-fsycl";
    argv[2] = "-c";
    argv[3] = in;
    argv[4] = "-o";
    argv[5] = out;
    cmds[u] = argv;
    strlist_push(&objects, out);
  }
  if (reuse) {
    printf("  reusing the %d compiled units in %s\n", s.units, obj);
  } else {
    run_parallel(cmds, s.units, c->jobs, log);
    printf("  compiled %d units in %.1f s (-j%d)\n", s.units, now_seconds() - start, c->jobs);
  }

  // clang-sycl-linker takes bare bitcode: extract each unit's device image.
  for (int u = 0; u < s.units; u++) {
    char *off = format("%s/u%04d.off", obj, u), *bc = format("%s/u%04d.dev.o", obj, u);
    if (reuse) {
      strlist_push(&device, bc);
      continue;
    }
    char *dump = format("--dump-section=.llvm.offloading=%s", off),
         *img = format("--image=file=%s", bc);
    char *a[] = {format("%s/llvm-objcopy", llvm_bin), dump, objects.items[u], NULL};
    run_or_die(a, log);
    char *b[] = {format("%s/llvm-offload-binary", llvm_bin), off, img, NULL};
    run_or_die(b, log);
    strlist_push(&device, bc);
  }
  char *lib_ll = path_in(src, "devicelib.ll"), *lib_bc = path_in(obj, "devicelib.bc");
  char *as[] = {format("%s/llvm-as", llvm_bin), lib_ll, "-o", lib_bc, NULL};
  if (!reuse) run_or_die(as, log);
  char *devlibs = format("--device-libs=%s", lib_bc);

  char *out = path_in(dir, "out.bin");
  char **argv = xcalloc(s.units + 16, sizeof(char *));
  char jobs_arg[16]; // link_argv's -jN
  // Upstream clang-sycl-linker 22: one module, llvm-link + the SPIR-V backend, one thread.
  int k = 0;
  argv[k++] = format("%s/clang-sycl-linker", llvm_bin);
  for (int u = 0; u < s.units; u++)
    argv[k++] = device.items[u];
  argv[k++] = "-triple=spirv64-unknown-unknown";
  argv[k++] = "-arch=";
  argv[k++] = devlibs;
  argv[k++] = "-o";
  argv[k++] = out;
  argv[k] = NULL;
  record("upstream clang-sycl-linker", s.units, 1, argv, log, out, 1, NULL);
  first_kernel(c, "upstream", s.units, out, dir, log);

  // Ours: the same objects, ThinLTO, cold (per source, the default, then per kernel), then
  // full LTO (one module, split after linking) at the same -j; every output image is
  // validated here for every linker alike.
  const char *modes[] = {"--lto=thin", "--lto=thin --split=kernel", "--lto=full"};
  const char *labels[] = {"sycl-thinlto thin, cold", "sycl-thinlto thin per kernel, cold",
                          "sycl-thinlto full"};
  for (int m = 0; m < 3; m++) {
    for (int j = 0; j < num_jobs; j++) {
      link_argv(argv, jobs_arg, c, jobs_list[j], modes[m], devlibs, &objects, NULL, out);
      record(labels[m], s.units, jobs_list[j], argv, log, out, m == 2 ? 1 : THIN_REPEATS, NULL);
    }
    if (m < 2) first_kernel(c, m ? "thin-per-kernel" : "thin", s.units, out, dir, log);
  }

  // Incremental: a cache filled by one link, then the relink after editing one unit (unit 0
  // with a different constant: its own image and the images importing from it change).
  char *edited_src = path_in(dir, "src-edit"), *edited = path_in(obj, "u0000.edit.o");
  if (!(reuse && access(edited, R_OK) == 0)) {
    char *gen_edit[] = {(char *)c->gen, "--units", units, "--kernels", kernels, "--helpers",
                        helpers,        "--body",  body,  "--edit",    "1",     "-o",
                        edited_src,     NULL};
    run_or_die(gen_edit, log);
    char *unit0 = path_in(edited_src, "u0000.cpp");
    char *cc[] = {format("%s/clang++", llvm_bin), "-fsycl", "-c", unit0, "-o", edited, NULL};
    run_or_die(cc, log);
  }
  // The cache is filled once, at all cores (no cache key depends on -j), and each relink
  // starts from a copy of it.
  int top = jobs_list[num_jobs - 1];
  char *cache = path_in(dir, "cache"), *filled = path_in(dir, "cache.filled");
  char *cache_dir = format("--cache-dir=%s", cache);
  char *rm[] = {"rm", "-rf", cache, filled, NULL}, *save[] = {"cp", "-a", cache, filled, NULL},
       *restore[] = {"cp", "-a", filled, cache, NULL}, *rm_cache[] = {"rm", "-rf", cache, NULL};
  run_or_die(rm, log);
  link_argv(argv, jobs_arg, c, top, cache_dir, devlibs, &objects, NULL, out);
  record("sycl-thinlto thin, filling cache", s.units, top, argv, log, out, 1, NULL);
  run_or_die(save, log);
  // At -j1 and at all cores: the relink's fixed costs weigh differently against each.
  int relink_jobs[2] = {1, top};
  char **const fresh_cache[] = {rm_cache, restore, NULL};
  for (int pass = 0; pass < (top == 1 ? 1 : 2); pass++) {
    link_argv(argv, jobs_arg, c, relink_jobs[pass], cache_dir, devlibs, &objects, edited, out);
    record("sycl-thinlto thin, relink 1 edit", s.units, relink_jobs[pass], argv, log, out,
           SHORT_REPEATS, fresh_cache);
  }

  // A relink's floor: whatever it reuses, it starts a process and redoes the edited unit's
  // image (ThinLTO backend, completion, SPIR-V). A cold link of that unit alone, its calls
  // into other units left as imports, measures that much.
  StringList alone = {.items = &edited, .count = 1};
  link_argv(argv, jobs_arg, c, top, "--allow-device-image-dependencies", devlibs, &alone, NULL,
            out);
  record("sycl-thinlto thin, edited unit alone", s.units, top, argv, log, out, SHORT_REPEATS, NULL);
  free(argv);
}

static void print_summary(const Config *c, int *jobs_list, int num_jobs) {
  int top = jobs_list[num_jobs - 1];
  printf("\n## Ratios (%s, %d units; measured side by side in this run)\n\n", c->size.name,
         c->size.units);
  printf("| ratio | value |\n|---|---|\n");
  const Run *thin1 = find_run("sycl-thinlto thin, cold", c->size.units, 1);
  const Run *thin = find_run("sycl-thinlto thin, cold", c->size.units, top);
  const Run *up = find_run("upstream clang-sycl-linker", c->size.units, 1);
  print_ratio("thin / upstream clang-sycl-linker, wall (all cores)", thin, up, false);
  print_ratio("thin / full LTO, wall", thin, find_run("sycl-thinlto full", c->size.units, top),
              false);
  print_ratio("incremental relink (1 unit edited) / cold thin, wall (all cores)",
              find_run("sycl-thinlto thin, relink 1 edit", c->size.units, top), thin, false);
  print_ratio("incremental relink (1 unit edited) / cold thin, wall (-j1)",
              find_run("sycl-thinlto thin, relink 1 edit", c->size.units, 1), thin1, false);
  print_ratio("edited unit linked alone / cold thin, wall (all cores): a relink's floor",
              find_run("sycl-thinlto thin, edited unit alone", c->size.units, top), thin, false);
  print_ratio("thin / full LTO, peak RSS", thin, find_run("sycl-thinlto full", c->size.units, top),
              true);
  print_ratio("thin / full LTO, wall (-j1)", thin1, find_run("sycl-thinlto full", c->size.units, 1),
              false);
  if (thin1 && thin)
    printf("| speed-up of thin -j%d over -j1 | %.2f |\n", top, thin1->wall / thin->wall);
  // CPU (user + system, the workers included) against upstream's one thread.
  const Run *kernel1 = find_run("sycl-thinlto thin per kernel, cold", c->size.units, 1);
  const Run *kernel = find_run("sycl-thinlto thin per kernel, cold", c->size.units, top);
  if (thin1 && up) printf("| thin / upstream, CPU (-j1) | %.3f |\n", thin1->cpu / up->cpu);
  if (thin && up) printf("| thin / upstream, CPU (-j%d) | %.3f |\n", top, thin->cpu / up->cpu);
  if (kernel1 && up)
    printf("| thin per kernel / upstream, CPU (-j1) | %.3f |\n", kernel1->cpu / up->cpu);
  print_ratio("thin per kernel / upstream, wall (all cores)", kernel, up, false);
  // Run time: what the first kernel waits for before its result.
  const FirstKernel *fup = find_first("upstream", c->size.units);
  const FirstKernel *fthin = find_first("thin", c->size.units);
  const FirstKernel *fkernel = find_first("thin-per-kernel", c->size.units);
  if (fup && fthin)
    printf("| time to the first kernel's result, thin / upstream | %.3f |\n",
           fthin->total / fup->total);
  if (fup && fkernel)
    printf("| time to the first kernel's result, thin per kernel / upstream | %.3f |\n",
           fkernel->total / fup->total);

  char *csv = path_in(c->out_dir, "bench.csv");
  FILE *f = fopen(csv, "w");
  if (!f) die_with("cannot write bench.csv");
  fprintf(f, "linker,units,jobs,wall_s,cpu_s,peak_rss_kb,images,valid,failed\n");
  for (int i = 0; i < num_runs; i++)
    fprintf(f, "%s,%d,%d,%.3f,%.3f,%ld,%d,%d,%d\n", runs[i].label, runs[i].units, runs[i].jobs,
            runs[i].wall, runs[i].cpu, runs[i].peak_rss_kb, runs[i].images, runs[i].valid,
            runs[i].failed);
  for (int i = 0; i < num_firsts; i++)
    fprintf(f, "first kernel %s,%d,0,%.3f,0,0,0,0,0\n", firsts[i].label, firsts[i].units,
            firsts[i].total);
  fclose(f);
  printf("\nCSV: %s\n", csv);
}

// link time and peak memory against program size, one line per linker (gnuplot).
static void plot(const Config *c, int top_jobs) {
  char *data = path_in(c->out_dir, "plot.dat"), *png = path_in(c->out_dir, "bench.png");
  FILE *f = fopen(data, "w");
  if (!f) return;
  const char *labels[] = {"upstream clang-sycl-linker", "sycl-thinlto thin, cold",
                          "sycl-thinlto full"};
  for (int l = 0; l < 3; l++) {
    fprintf(f, "# %s\n", labels[l]);
    for (int i = 0; i < num_runs; i++)
      if (!strcmp(runs[i].label, labels[l]) && (l == 0 || runs[i].jobs == top_jobs) &&
          !runs[i].failed)
        fprintf(f, "%d %.3f %.1f\n", runs[i].units * c->size.kernels, runs[i].wall,
                runs[i].peak_rss_kb / 1024.0);
    fprintf(f, "\n\n");
  }
  fclose(f);
  char *script =
      format("set terminal png size 1000,420; set output '%s';"
             "set multiplot layout 1,2; set key top left; set xlabel 'kernels';"
             "set ylabel 'link wall time (s)';"
             "plot '%s' index 0 using 1:2 with linespoints title 'upstream clang-sycl-linker',"
             " '' index 1 using 1:2 with linespoints title 'sycl-thinlto -j%d',"
             " '' index 2 using 1:2 with linespoints title 'sycl-thinlto --lto=full -j%d';"
             "set ylabel 'peak RSS (MB)';"
             "plot '%s' index 0 using 1:3 with linespoints title 'upstream clang-sycl-linker',"
             " '' index 1 using 1:3 with linespoints title 'sycl-thinlto -j%d',"
             " '' index 2 using 1:3 with linespoints title 'sycl-thinlto --lto=full -j%d';"
             "unset multiplot",
             png, data, top_jobs, top_jobs, data, top_jobs, top_jobs);
  char *argv[] = {"gnuplot", "-e", script, NULL};
  if (run_measured(argv, NULL, NULL, NULL, NULL) == 0)
    printf("Plot: %s\n", png);
  else
    printf("Plot: gnuplot failed or is missing; data in %s\n", data);
}

int main(int argc, char **argv) {
  Config c = {.out_dir = "bench/out",
              .size = sizes[1],
              .jobs = (int)uv_available_parallelism(),
              .plot = true};
  const char *jobs_text = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--size") && v) {
      bool found = false;
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        if (!strcmp(v, sizes[s].name)) c.size = sizes[s], found = true;
      if (!found) die_with("--size: smoke, small or large");
      i++;
    } else if (!strcmp(a, "--units") && v)
      c.size.units = atoi(v), c.size.name = "custom", i++;
    else if (!strcmp(a, "--jobs") && v)
      jobs_text = v, i++;
    else if (!strcmp(a, "--out") && v)
      c.out_dir = v, i++;
    else if (!strcmp(a, "--tool") && v)
      c.tool = v, i++;
    else if (!strcmp(a, "--gen") && v)
      c.gen = v, i++;
    else if (!strcmp(a, "--no-plot"))
      c.plot = false;
    else if (!strcmp(a, "--reuse-objects"))
      c.reuse = true;
    else if (!strcmp(a, "--llvm-bin") && v)
      llvm_bin = v, i++;
    else if (!strcmp(a, "--runtime") && v)
      c.runtime_dir = v, i++;
    else if (!strcmp(a, "--first-object") && v)
      c.first_object = v, i++;
    else {
      fprintf(stderr, "usage: sycl-bench [--size smoke|small|large] [--units N] "
                      "[--jobs 1,2,...] [--out DIR] --tool PATH --gen PATH [--no-plot] "
                      "[--reuse-objects] [--llvm-bin DIR] [--runtime DIR --first-object FILE]\n");
      return 2;
    }
  }
  if (!c.tool || !c.gen) die_with("--tool and --gen are required");
  int jobs_list[16], num_jobs = 0;
  if (jobs_text) {
    for (const char *p = jobs_text; *p && num_jobs < 16;) {
      jobs_list[num_jobs++] = atoi(p);
      p = strchr(p, ',');
      if (!p) break;
      p++;
    }
  } else {
    jobs_list[num_jobs++] = 1;
    if (c.jobs > 1) jobs_list[num_jobs++] = c.jobs;
  }
  mkdir(c.out_dir, 0777);
  printf("# sycl-bench: %s program, %d units x %d kernels, jobs", c.size.name, c.size.units,
         c.size.kernels);
  for (int j = 0; j < num_jobs; j++)
    printf(" %d", jobs_list[j]);
  printf(" (machine: %d cores)\n", c.jobs);

  // Smaller programs of the same shape first, for the plot against program size.
  if (c.plot && c.size.units >= 8) {
    Size quarter = c.size, half = c.size;
    quarter.units = c.size.units / 4;
    half.units = c.size.units / 2;
    int top[1] = {jobs_list[num_jobs - 1]};
    bench_size(&c, quarter, top, 1);
    bench_size(&c, half, top, 1);
  }
  bench_size(&c, c.size, jobs_list, num_jobs);
  print_summary(&c, jobs_list, num_jobs);
  if (c.plot) plot(&c, jobs_list[num_jobs - 1]);
  return 0;
}
