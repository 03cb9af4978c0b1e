// The pre-codegen hook, per image and in parallel: complete and finalize on libuv's thread
// pool, SPIR-V on worker processes (or an external translator), then check the result.
// Rule: a thread-pool callback touches only its own job; the loop thread owns the rest.
#include "hooks/hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct HookRun HookRun;

typedef struct {
  uv_work_t work; // completion + finalization, then the checks, on the thread pool
  HookRun *run;
  size_t index; // module index in the resolution
  size_t image; // position in the output, which names --save-temps files
  ImageResult *result;
  Buffer linked;              // finalized bitcode: written by the work callback, given to codegen
  UndefinedUses undefined_uses; // the declarations the finalized image left over
  UndefinedUses undefined;      // the undefined symbols check_undefined_imports found
  char *bc_path;              // translator input
  char *error;
  char cache_key[CACHE_KEY_SIZE]; // with --cache-dir
  bool cache_hit;                 // the whole result came from the cache
  StringList looked_up;           // names completion searched: the cache entry's dependencies
  bool sent;                      // --distributor: its job's inputs are written (distribute.c)
  bool failed;                    // the distributor failed: reported once, not per image
  char *job_failure;              // why its job's last run failed, if it did
} HookJob;

struct HookRun {
  uv_loop_t loop;
  const Resolution *r;
  const Buffer *optimized;
  const CompletionSources *sources;
  const HookOptions *opts;
  WorkerPool *pool;
  Distribution *distribution; // --distributor: the images' backends are jobs
  HookJob *jobs;
  StrMap set_functions; // seed 002: the functions of the sets this link's images hold
  size_t *order;        // the images still to be made, in the order they begin
  size_t count, started, outstanding;
  size_t under_way, window; // images begun and not finished; at most WINDOW of them
};

static void save_temp(const HookOptions *opts, size_t index, const char *suffix,
                      const Buffer *data) {
  if (!opts->save_temps_prefix) return;
  // Atomically, as every output: never written through a link or into a device in place.
  char *path = format("%s.%zu.%s", opts->save_temps_prefix, index, suffix);
  int rc = write_file_atomic(path, data->data, data->size);
  if (rc) warning(path, "cannot save temporary file: %s", strerror(-rc));
  free(path);
}

// --stats: ThinLTO's out-of-line imports (-avail-extern-to-local names them NAME.__uniq.ID),
// and the definitions a module holds, before and after completion.
static size_t count_imported_copies(LLVMModuleRef m) {
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    n += !LLVMIsDeclaration(f) && strstr(LLVMGetValueName2(f, &(size_t){0}), ".__uniq.") != NULL;
  return n;
}

static size_t count_definitions(LLVMModuleRef m) {
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    n += !LLVMIsDeclaration(f);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    n += !LLVMIsDeclaration(g);
  return n;
}

// --time-trace: one span of this image's work on the calling thread; returns the end time.
static double trace_step(const HookJob *job, const char *name, double start) {
  double end = now_seconds();
  if (trace_enabled()) {
    char detail[512];
    snprintf(detail, sizeof detail, "image %zu: %s", job->image,
             job->run->r->modules[job->index].input->origin);
    trace_span(name, detail, start, end, trace_thread_id());
  }
  return end;
}


// The program's own declarations left undefined (hooks/backend.c marks them "declared") are
// imports whatever the SPIR-V says: LLVM's SPIR-V backend lowers a call of a declaration
// named as an OpenCL builtin (mix(float, float, float): _Z3mixfff) to that builtin, and the
// kernel would silently run it instead of the user's function that no unit defines.
static void add_declared_imports(HookJob *job) {
  for (size_t i = 0; i < job->undefined_uses.count; i++) {
    const UndefinedUse *use = &job->undefined_uses.items[i];
    if (use->declared && !strlist_contains(&job->result->imports, use->name))
      strlist_push(&job->result->imports, xstrdup(use->name));
  }
}

// A libm-style name (sqrtf) comes from a DPC++ device library the link was not given: one
// note per library, naming it and the names it would define.
static void append_device_library_hints(Buffer *message, const StringList *undefined) {
  StringList libraries = {0}; // borrowed, in the order they are first needed
  for (size_t i = 0; i < undefined->count; i++) {
    const char *library = devicelib_wrapper_library(undefined->items[i]);
    if (library && !strlist_contains(&libraries, library))
      strlist_push(&libraries, (char *)library);
  }
  for (size_t l = 0; l < libraries.count; l++) {
    StringList names = {0};
    for (size_t i = 0; i < undefined->count; i++) {
      const char *library = devicelib_wrapper_library(undefined->items[i]);
      if (library && !strcmp(library, libraries.items[l]))
        strlist_push(&names, undefined->items[i]);
    }
    char *joined = strlist_join(&names, ", ");
    char *line = format("\nnote: %s: defined by the device library %s; pass --device-libs=%s",
                        joined, libraries.items[l], libraries.items[l]);
    buffer_append(message, line, strlen(line));
    free(line);
    free(joined);
    free(names.items);
  }
  free(libraries.items);
}

// The SPIR-V's imports must be builtins (is_builtin_name) or functions of a set some image of
// this link holds; anything else is an undefined symbol. -1 with job->undefined naming them
// (report_undefined_symbols words them once for the whole link) and job->error set.
static int check_undefined_imports(HookJob *job) {
  const HookOptions *opts = job->run->opts;
  const ImageResult *res = job->result;
  undefined_uses_free(&job->undefined);
  for (size_t i = 0; i < res->imports.count; i++) {
    const char *name = res->imports.items[i];
    if (is_builtin_name(name) || opts->allow_dependencies ||
        strmap_get(&job->run->set_functions, name)) // the runtime links the set's image
      continue;
    // From the cache there is no module to say which kernels need it: name the image's.
    const UndefinedUse *use = undefined_uses_find(&job->undefined_uses, name);
    const StringList *users = use && use->kernels.count ? &use->kernels : &res->symbols;
    StringList kernels = {0};
    for (size_t k = 0; k < users->count; k++)
      strlist_push(&kernels, xstrdup(users->items[k]));
    undefined_uses_push(&job->undefined, xstrdup(name), &kernels, false);
  }
  if (!job->undefined.count) return 0;
  job->error = xstrdup("undefined symbols"); // worded by report_undefined_symbols
  return -1;
}

// Loop thread, after every image: each undefined symbol once, in the first image's message
// that uses it, with the kernels of every image using it (a per-kernel split made one message
// per image before, the same symbol again and again), then the device-library notes.
static void report_undefined_symbols(HookJob *jobs, size_t count, size_t first) {
  HookJob *job = &jobs[first];
  const char *origin = job->result->module->input->origin;
  Buffer message = {0};
  StringList reported = {0}; // the names, borrowed
  for (size_t i = 0; i < job->undefined.count; i++) {
    const char *name = job->undefined.items[i].name;
    bool earlier = false;
    for (size_t j = 0; j < first && !earlier; j++)
      earlier = undefined_uses_find(&jobs[j].undefined, name) != NULL;
    if (earlier) continue;
    StringList kernels = {0}, others = {0};
    for (size_t j = first; j < count; j++)
      for (size_t k = 0; k < jobs[j].undefined.count; k++) {
        const UndefinedUse *use = &jobs[j].undefined.items[k];
        if (strcmp(use->name, name)) continue;
        for (size_t u = 0; u < use->kernels.count; u++)
          if (!strlist_contains(&kernels, use->kernels.items[u]))
            strlist_push(&kernels, xstrdup(use->kernels.items[u]));
        const char *from = jobs[j].result->module->input->origin;
        if (strcmp(from, origin) && !strlist_contains(&others, from))
          strlist_push(&others, xstrdup(from));
      }
    char *all = strlist_join(&kernels, " ");
    char *symbol = symbol_for_message(name);
    char *users = kernels_for_message(all);
    char *line = format("%sundefined symbol: %s\n>>> referenced by kernel(s): %s",
                        message.size ? "\n" : "", symbol, users);
    buffer_append(&message, line, strlen(line));
    if (others.count) {
      char *joined = strlist_join(&others, ", ");
      char *also = format("\n>>> also referenced from: %s", joined);
      buffer_append(&message, also, strlen(also));
      free(also);
      free(joined);
    }
    strlist_push(&reported, (char *)name);
    free(line);
    free(users);
    free(symbol);
    free(all);
    strlist_free(&kernels);
    strlist_free(&others);
  }
  append_device_library_hints(&message, &reported);
  free(reported.items);
  if (!message.size) return; // all reported with an earlier image
  buffer_append(&message, "", 1);
  error(origin, "%s", (char *)message.data);
  free(message.data);
}

// Takes ERRMSG (malloc'd) as the job's error, with the image's kernels: which image failed.
// (A distributed job words its errors the same way: hooks/distribute.c.)
static void fail_image(HookJob *job, char *errmsg) {
  char *kernels = strlist_join(&job->result->symbols, " ");
  char *shown = kernels_for_message(kernels);
  job->error = format("%s\n>>> image kernels: %s", errmsg, shown);
  free(shown);
  free(kernels);
  free(errmsg);
}

//
// An image's way, one step after the other: cache lookup → complete → finalize → codegen →
// check → done. Each step ends by starting the next (or by finishing the image on an error).
//

static void complete_and_finalize(uv_work_t *req);
static void after_finalize(uv_work_t *req, int status);
static void start_codegen(HookJob *job);
static void after_codegen(void *arg, Buffer spirv, char *errmsg);
static void check_work(uv_work_t *req);
static void after_check(uv_work_t *req, int status);
static void image_done(HookJob *job);
static void job_written(HookJob *job);

// Step 1, a worker thread, before any image is made: an unchanged image whose completion
// would find the same definitions is not redone. Its key comes from the definitions index's
// hash, so a hit never reads the image's bitcode.
static void look_up_image(void *arg, size_t j) {
  HookJob *job = &((HookRun *)arg)->jobs[j];
  const HookRun *run = job->run;
  image_cache_key(run->sources->content_key[job->index], run->opts,
                  run->r->modules[job->index].opt_level, job->cache_key);
  if (!image_cache_lookup(run->opts->cache, job->cache_key, run->sources, job->result)) return;
  job->cache_hit = true;
  job->result->from_cache = true;
  save_temp(run->opts, job->image, "opt.bc", &run->optimized[job->index]);
  // The link around the image may have changed (a set's image gone): check again.
  check_undefined_imports(job);
}

// Step 2, thread pool: the definitions ThinLTO did not import are linked in.
static int complete_image(HookJob *job, LLVMModuleRef m) {
  const HookRun *run = job->run;
  bool stats = run->opts->stats; // the counts walk the module: only when asked for
  if (stats) stats_add(STAT_IMPORTS, count_imported_copies(m));
  size_t defined = stats ? count_definitions(m) : 0;
  StringList *looked_up = run->opts->cache ? &job->looked_up : NULL;
  if (complete_module_recording(m, run->sources, looked_up, &job->error)) return -1;
  if (stats) stats_add(STAT_COMPLETION_LINKS, count_definitions(m) - defined);
  // Specialization constants per fully linked image: one read in a function imported from
  // another unit gets its ID here too, and every image numbers its own from 0.
  bool lowered;
  if (run->opts->spec_const != SPEC_CONST_NONE &&
      lower_spec_constants(m, (SpecConstMode)run->opts->spec_const, true, &lowered, &job->error))
    return -1;
  return 0;
}

// Step 3, thread pool: all but the entry points internalized, the symbol table and the
// runtime's properties computed on the finalized module, the bitcode for codegen written
// (hooks/backend.c, which a distributed job runs too).
static int finalize_image(HookJob *job, LLVMModuleRef m, double *step) {
  const HookRun *run = job->run;
  const LinkModule *lm = &run->r->modules[job->index];
  ImageSpec spec;
  image_spec_make(lm, run->opts, is_dummy_image(lm->input, m), &spec);
  int failed = finalize_image_module(m, &spec, &job->error);
  if (!failed) {
    *step = trace_step(job, "finalize", *step);
    describe_image(m, &spec, job->result, &job->undefined_uses);
    job->linked = module_write(m);
    save_temp(run->opts, job->image, "linked.bc", &job->linked);
  }
  image_spec_free(&spec);
  return failed ? -1 : 0;
}

// Step 3 with --distributor, thread pool: the completed module and what finalization needs go
// to files, for a job that finalizes, emits and checks the image elsewhere (distribute.c).
static void write_job(HookJob *job, LLVMModuleRef m) {
  const HookRun *run = job->run;
  const LinkModule *lm = &run->r->modules[job->index];
  ImageSpec spec;
  image_spec_make(lm, run->opts, is_dummy_image(lm->input, m), &spec);
  for (size_t i = 0; i < run->set_functions.cap; i++)
    if (run->set_functions.keys[i])
      strlist_push(&spec.allowed_imports, xstrdup(run->set_functions.keys[i]));
  if (!distribution_write_job(run->distribution, job->image, m, &spec, &job->error))
    job->sent = true;
  image_spec_free(&spec);
}

// Thread pool: steps 2 and 3 on one image, in a context of its own.
static void complete_and_finalize(uv_work_t *req) {
  signal_stack_begin(); // once per pool thread: a stack overflow here is reported too
  HookJob *job = req->data;
  const LinkModule *lm = &job->run->r->modules[job->index];
  const Buffer *in = &job->run->optimized[job->index];
  save_temp(job->run->opts, job->image, "opt.bc", in);

  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  double step = now_seconds();
  int unreadable = module_parse(ctx, in->data, in->size, lm->id, false, &m, &job->error);
  buffer_drop_pages(in); // M is a copy; completion may read IN again as a source
  if (!unreadable) {
    if (!complete_image(job, m)) {
      step = trace_step(job, "complete", step);
      if (job->run->distribution)
        write_job(job, m);
      else if (!finalize_image(job, m, &step))
        trace_step(job, "properties", step);
    }
    LLVMDisposeModule(m);
  }
  context_dispose(ctx);
}

static void after_finalize(uv_work_t *req, int status) {
  (void)status;
  HookJob *job = req->data;
  if (job->error)
    image_done(job);
  else if (job->sent)
    job_written(job);
  else
    start_codegen(job);
}

// Step 4, loop thread: the finalized bitcode goes to a SPIR-V worker (or the translator).
static void start_codegen(HookJob *job) {
  HookRun *run = job->run;
  if (run->opts->tool == SPIRV_BACKEND) {
    worker_pool_submit(run->pool, job->linked, after_codegen, job);
    job->linked = (Buffer){0}; // the pool owns it now
    return;
  }
  // In TMPDIR under a name with a random part, made exclusively; the translator's output
  // (translator.c: the same name with .spv) is made empty here first, so that it writes
  // into a file of ours, never through a link planted at its name (issue 30).
  const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char *base = format("%s/sycl-thinlto-%zu", tmpdir, job->index);
  int rc = own_write_temporary(base, ".bc", job->linked.data, job->linked.size, &job->bc_path);
  free(base);
  char *spv = rc ? NULL : format("%s.spv", job->bc_path);
  int fd = spv ? own_create(spv, 0666) : rc;
  if (fd >= 0) {
    close(fd);
    remove_on_failure(spv);
  }
  free(spv);
  if (fd < 0) {
    job->error = format("cannot write %s/sycl-thinlto-%zu.bc* for the translator: %s", tmpdir,
                        job->index, strerror(-fd));
    image_done(job);
    return;
  }
  free(job->linked.data);
  job->linked = (Buffer){0};
  translator_submit(&run->loop, run->opts->llvm_spirv, job->bc_path, after_codegen, job);
}

static void after_codegen(void *arg, Buffer spirv, char *errmsg) {
  HookJob *job = arg;
  if (job->bc_path) {
    own_remove(job->bc_path);
    char *spv = format("%s.spv", job->bc_path);
    own_remove(spv);
    free(spv);
  }
  if (errmsg) {
    fail_image(job, errmsg);
    image_done(job);
    return;
  }
  job->result->spirv = spirv;
  uv_queue_work(&job->run->loop, &job->work, check_work, after_check);
}

// Step 5, thread pool: what the SPIR-V still imports must be the implementation's or a
// set's, and it must pass spirv-val (unless a distributed job VALIDATED it); a good image is
// stored in the cache.
static void check_fixed_image(HookJob *job, bool validated) {
  const HookOptions *opts = job->run->opts;
  ImageResult *res = job->result;
  char *errmsg = NULL;
  save_temp(opts, job->image, "spv", &res->spirv);
  strlist_free(&res->imports);
  StringList exports = {0}; // not needed here
  int unreadable =
      spirv_linkage(res->spirv.data, res->spirv.size, &res->imports, &exports, &errmsg);
  strlist_free(&exports);
  if (unreadable) goto fail;
  add_declared_imports(job);
  if (check_undefined_imports(job)) return; // names the kernels that use each symbol
  if (opts->validate && !validated && spirv_validate(&res->spirv, &errmsg)) goto fail;
  if (opts->cache)
    image_cache_store(opts->cache, job->cache_key, &job->looked_up, job->run->sources, res);
  return;
fail:
  fail_image(job, errmsg);
}

static void check_image(HookJob *job) {
  char *errmsg = NULL;
  if (spirv_fix_null_integers(&job->result->spirv, &errmsg))
    fail_image(job, errmsg);
  else
    check_fixed_image(job, false);
}

static void check_work(uv_work_t *req) {
  signal_stack_begin();
  double start = now_seconds();
  check_image(req->data);
  trace_step(req->data, "check", start);
}

static void after_check(uv_work_t *req, int status) {
  (void)status;
  image_done(req->data);
}

// Loop thread: begins images until WINDOW are under way. The thread pool runs jobs in the
// order they are queued: with every image queued at once, no check (and no output) would
// run before the last completion, and every image's SPIR-V would wait in memory.
static void start_images(HookRun *run) {
  for (; run->started < run->count && run->under_way < run->window; run->under_way++)
    uv_queue_work(&run->loop, &run->jobs[run->order[run->started++]].work,
                  complete_and_finalize, after_finalize);
}

// Loop thread (or the calling thread, before and after the loop): the one place a finished
// image is handed to the driver, which writes it out; a failed one never is.
static void hand_over(const HookRun *run, const HookJob *job) {
  const HookOptions *opts = run->opts;
  if (!job->error && !job->failed && opts->image_done)
    opts->image_done(opts->image_done_arg, &job->image, 1);
}

// Step 6 of the cache's hits (J, N of them), once the images to make have begun: one
// hand-over, whose blobs the output makes on -j threads while those images are made. One
// at a time, 997 hits of a relink of 1000 units held the loop thread (and the output's lock)
// for milliseconds before the first image to make could begin.
static void hand_over_hits(const HookRun *run, const size_t *j, size_t n) {
  const HookOptions *opts = run->opts;
  size_t *images = xcalloc(n ? n : 1, sizeof *images), good = 0;
  for (size_t k = 0; k < n; k++) {
    const HookJob *job = &run->jobs[j[k]];
    if (!job->error && !job->failed) images[good++] = job->image;
  }
  if (good && opts->image_done) opts->image_done(opts->image_done_arg, images, good);
  free(images);
}

// Step 6, loop thread: the image's way is over; a good image may go out now, and the next
// one begin.
static void image_done(HookJob *job) {
  HookRun *run = job->run;
  hand_over(run, job);
  if (--run->outstanding == 0 && run->pool) worker_pool_stop(run->pool);
  run->under_way--;
  start_images(run);
}

// With --distributor, loop thread: the image's job is written; the next image may begin.
static void job_written(HookJob *job) {
  HookRun *run = job->run;
  run->outstanding--;
  run->under_way--;
  start_images(run);
}

//
// With --distributor, after every image's job is written: the distributor runs them all, the
// outputs come back and get step 5's checks; a failed job is run again, JOB_RETRIES times.
//

enum { JOB_RETRIES = 2 };

typedef struct {
  HookRun *run;
  const size_t *images;
} ReadJobs;

// parallel_for: one image's job outputs, read and checked as step 5 checks a local image's.
static void read_job(void *arg, size_t i) {
  const ReadJobs *rj = arg;
  HookJob *job = &rj->run->jobs[rj->images[i]];
  JobOutcome out = {0};
  free(job->job_failure);
  job->job_failure = NULL;
  if (distribution_read(rj->run->distribution, job->image, job->result, &out)) {
    job->job_failure = out.job_failure;
    out.job_failure = NULL;
  } else if (out.image_error) {
    job->error = out.image_error;
    out.image_error = NULL;
  } else {
    undefined_uses_free(&job->undefined_uses);
    job->undefined_uses = out.undefined;
    out.undefined = (UndefinedUses){0};
    check_fixed_image(job, out.validated);
  }
  job_outcome_free(&out);
}

// True when the distributor failed or some job failed every time.
static bool run_jobs(HookRun *run, size_t emitted) {
  const HookOptions *opts = run->opts;
  size_t *pending = xcalloc(emitted ? emitted : 1, sizeof(size_t)), count = 0;
  for (size_t j = 0; j < emitted; j++)
    if (run->jobs[j].sent && !run->jobs[j].error) pending[count++] = j;
  unsigned attempt = 1;
  bool failed_run = false;
  for (; count; attempt++) {
    char *why;
    double start = now_seconds();
    if (distribution_run(run->distribution, pending, count, attempt, &why)) {
      error(opts->distributor, "%s", why); // once, not per image
      free(why);
      for (size_t i = 0; i < count; i++)
        run->jobs[pending[i]].failed = true;
      count = 0;
      failed_run = true;
      break;
    }
    trace_span("distributor", opts->distributor, start, now_seconds(), 0);
    ReadJobs rj = {run, pending};
    parallel_for(count, opts->jobs, read_job, &rj);
    size_t failed = 0;
    for (size_t i = 0; i < count; i++) {
      HookJob *job = &run->jobs[pending[i]];
      if (!job->job_failure) continue;
      if (attempt <= JOB_RETRIES)
        note("the job of image %zu failed (%s); trying again", job->image, job->job_failure);
      pending[failed++] = pending[i];
    }
    count = failed;
    if (attempt > JOB_RETRIES) break;
  }
  for (size_t i = 0; i < count; i++) { // the jobs that failed every time
    HookJob *job = &run->jobs[pending[i]];
    const LinkModule *lm = &run->r->modules[job->index];
    char *kernels = strlist_join(&lm->kernels, " ");
    job->error = format("the backend job of image %zu (kernels: %s) failed %u times; the last "
                        "time: %s",
                        job->image, kernels, attempt, job->job_failure);
    free(kernels);
  }
  for (size_t j = 0; j < emitted; j++) // step 6 for the good ones, in image order
    if (run->jobs[j].sent) hand_over(run, &run->jobs[j]);
  free(pending);
  return failed_run || count;
}

void run_hooks(Resolution *r, Buffer *optimized, const CompletionSources *sources,
               const HookOptions *opts, ImageResult *results) {
  HookRun run = {.r = r, .optimized = optimized, .sources = sources, .opts = opts};
  // libuv sizes its thread pool from the environment, once, at first use.
  char *threads = format("%d", opts->jobs < 1 ? 1 : opts->jobs);
  setenv("UV_THREADPOOL_SIZE", threads, 1);
  free(threads);
  if (uv_loop_init(&run.loop)) die("uv_loop_init failed");

  size_t emitted = 0;
  for (size_t i = 0; i < r->num_modules; i++)
    emitted += r->modules[i].emit;
  HookJob *jobs = xcalloc(emitted ? emitted : 1, sizeof(HookJob));
  size_t k = 0;
  for (size_t i = 0; i < r->num_modules; i++) {
    if (!r->modules[i].emit) continue;
    HookJob *job = &jobs[k];
    job->run = &run;
    job->index = i;
    job->image = k;
    job->result = &results[k++];
    job->result->module = &r->modules[i];
    job->work.data = job;
  }
  run.jobs = jobs;
  for (size_t i = 0; i < r->num_modules; i++)
    for (size_t f = 0; r->modules[i].emit && f < r->modules[i].virtual_functions.count; f++)
      strmap_put(&run.set_functions, r->modules[i].virtual_functions.items[f], (void *)1);
  // All lookups first, the images to make after them: a relink's few misses (the edited
  // image and those importing from it) start at once instead of after every hit before them.
  if (opts->cache) {
    double start = now_seconds();
    parallel_for(emitted, opts->jobs, look_up_image, &run);
    trace_span("cache lookups", NULL, start, now_seconds(), 0);
  }
  run.order = xcalloc(emitted ? emitted : 1, sizeof(size_t));
  size_t *found = xcalloc(emitted ? emitted : 1, sizeof(size_t)), num_found = 0;
  for (size_t j = 0; j < emitted; j++) {
    if (!jobs[j].cache_hit)
      run.order[run.count++] = j;
    else
      found[num_found++] = j; // step 6 at once, below
  }
  run.outstanding = run.count;
  if (run.count && opts->distributor)
    run.distribution = distribution_open(opts, opts->output, emitted);
  if (run.count && opts->tool == SPIRV_BACKEND && !opts->distributor) {
    char *why;
    run.pool = worker_pool_start(&run.loop, opts->jobs, &why);
    if (!run.pool) fatal(NULL, "cannot start SPIR-V workers: %s", why);
  }
  // -j N: N images under way, each in one step at a time (completion and checks on a thread,
  // SPIR-V in a worker), so N cores are busy and no more: -j1 is one core, the benchmark's
  // baseline, and -j16 does not put 16 threads and 16 workers on 16 cores.
  run.window = (size_t)(opts->jobs < 1 ? 1 : opts->jobs);
  start_images(&run);
  hand_over_hits(&run, found, num_found);
  free(found);
  uv_run(&run.loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&run.loop)) die("the hook loop still has open handles");
  bool distribution_failed = run.distribution && run_jobs(&run, emitted);

  // Report in image order, whatever order the workers finished in.
  size_t hits = 0;
  for (size_t j = 0; j < emitted; j++) {
    HookJob *job = &jobs[j];
    hits += job->cache_hit;
    strlist_free(&job->looked_up);
    if (job->error) {
      const LinkModule *m = job->result->module;
      if (job->undefined.count)
        report_undefined_symbols(jobs, emitted, j);
      else
        error(m->input->origin, "%s", job->error);
      job->result->error = job->error;
    }
    free(job->linked.data);
    free(job->bc_path);
    free(job->job_failure);
  }
  for (size_t j = 0; j < emitted; j++) {
    undefined_uses_free(&jobs[j].undefined_uses);
    undefined_uses_free(&jobs[j].undefined);
  }
  if (opts->cache) note("cache: %zu of %zu image(s) reused", hits, emitted);
  distribution_close(run.distribution, distribution_failed);
  free(run.order);
  strmap_free(&run.set_functions);
  free(jobs);
}
