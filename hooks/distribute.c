// The images' backends as jobs of a distributor (issue 26), through LLVM's DTLTO interface: the
// link writes each job's input files and a JSON job list, runs `DISTRIBUTOR ARGS... LIST.json`,
// and reads the results back; and `sycl-thinlto backend`, the job itself. It does not decide
// which images are sent (hooks/hook.c does) or how jobs are scheduled (the distributor does).
//
// A job is one image or several (issue 31): every file a job makes is an inode to allocate,
// and on two cores a job per image, four files each, cost 1.13 times the in-process pool's
// wall (bench/RESULTS.md). The link's threads each fill a job of their own with the images they complete; a
// job takes a 1/(8 x -j) share of the images not yet in one, from 1 to 32 (guided: the
// first jobs are large, the last ones single images, so that the cores finish together). A
// job that fails runs again as one job per image, so that one image's failure is its own.
// A job's files, named after its first image N, in the jobs directory D, folder S = N % 64:
//   inputs   D/S/image.N.meta (its images' ImageSpecs, one after another, each giving its
//            bitcode's size) and D/S/image.N.bc (their completed modules, in the same order)
//   outputs  D/S/image.N.log (the job's stderr) and D/S/image.N.result: for each image, in
//            order, what the job was given (the hashes of its spec and its bitcode), the
//            image's symbols, imports, undefined uses and properties, then the SPIR-V's size
//            and hash, an "end" line, and the SPIR-V's bytes; so that a result of another
//            job or image, or a truncated or damaged one, is told from a good one.
// Text holds one value a line, with bytes below 0x20 and '%' written as %XX.
#include "hooks/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char spec_magic[] = "sycl-thinlto image spec 2";
static const char result_magic[] = "sycl-thinlto backend result 2";
enum { RETRY_LOG_TAIL = 4096 };

// A job's files are spread over SHARDS folders of the jobs' directory, a job named after image
// N in folder N % SHARDS, made with its first job: creating and renaming a file locks its folder, and on 16 cores thousands of
// jobs in one folder queued on that lock (a per-kernel link of 8000 images through the
// local distributor took 4.3 times the pool's wall time, bench/RESULTS.md).
enum { SHARDS = 64 };

enum { MAX_JOB_IMAGES = 32, JOB_SHARE = 8 }; // a job: remaining / (JOB_SHARE x -j) images

// What an image's job is given, as the link wrote it: the hashes of its bitcode and of its
// spec, and where they are in the job's files.
typedef struct {
  char image[CACHE_KEY_SIZE];
  char spec[CACHE_KEY_SIZE];
  size_t meta_offset, meta_size, bc_offset, bc_size;
} JobInput;

typedef struct JobResult JobResult;

// One job: its images, in the order of its files; its results, read once by the first of its
// images' readers.
typedef struct {
  size_t name; // its files are image.NAME.*
  size_t order; // made ORDER-th
  size_t images[MAX_JOB_IMAGES], count, target;
  int meta_fd, bc_fd; // while the link fills it; -1 after
  size_t meta_size, bc_size;
  bool busy; // a thread is writing an image into it
  uv_mutex_t lock;
  bool loaded;
  JobResult *results; // parsed, in order: RESULTS[i] is images[i]'s
  size_t parsed;
  char *why; // why images from PARSED on have no result
} Job;

struct Distribution {
  const HookOptions *opts;
  char *dir;           // absolute
  char *linker_output; // absolute
  char *compiler;      // the jobs' sycl-thinlto
  JobInput *inputs;    // per image; each written by the thread that writes its job
  Job **job_of;        // per image: the job that runs it now
  size_t images;
  uv_mutex_t lock; // JOBS, and an open job's COUNT and BUSY, while the link writes them
  Job **jobs;
  size_t num_jobs, jobs_cap, placed; // PLACED: images in a job
  bool shard_made[SHARDS];
  char *last_log; // the distributor's output of its last run
};

//
// Lines of text with escapes
//

static void append_escaped(Buffer *b, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == '%') {
      char hex[4];
      snprintf(hex, sizeof hex, "%%%02X", c);
      buffer_append(b, hex, 3);
    } else {
      buffer_append(b, s, 1);
    }
  }
}

static void append_line(Buffer *b, const char *key, const char *value) {
  buffer_append(b, key, strlen(key));
  if (value) {
    buffer_append(b, " ", 1);
    append_escaped(b, value);
  }
  buffer_append(b, "\n", 1);
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The unescaped text of [P, END), or NULL if an escape is malformed.
static char *unescape(const char *p, const char *end) {
  char *out = xmalloc(end - p + 1), *o = out;
  for (; p < end; p++) {
    if (*p != '%') {
      *o++ = *p;
      continue;
    }
    int hi = end - p >= 3 ? hex_digit(p[1]) : -1, lo = hi >= 0 ? hex_digit(p[2]) : -1;
    if (hi < 0 || lo < 0) {
      free(out);
      return NULL;
    }
    *o++ = (char)(hi << 4 | lo);
    p += 2;
  }
  *o = 0;
  return out;
}

// Splits TEXT (NUL-terminated) into unescaped lines. False if one is malformed.
static bool read_lines(const char *text, StringList *lines) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    if (!nl) return false; // every line ends in a newline: a truncated file does not
    char *line = unescape(p, nl);
    if (!line) return false;
    strlist_push(lines, line);
    p = nl + 1;
  }
  return true;
}

// "key value": the value if LINE has KEY, else NULL.
static const char *value_of(const char *line, const char *key) {
  size_t n = strlen(key);
  return !strncmp(line, key, n) && line[n] == ' ' ? line + n + 1 : NULL;
}

static int read_text(const char *path, char **text, size_t *size) {
  Buffer b;
  int rc = read_file(path, &b);
  if (rc) return rc;
  buffer_append(&b, "", 1);
  *text = (char *)b.data;
  if (size) *size = b.size - 1;
  return 0;
}

//
// The spec file: what the job needs besides the module
//

static Buffer spec_text(const ImageSpec *spec, size_t bitcode_size) {
  Buffer b = {0};
  append_line(&b, spec_magic, NULL);
  append_line(&b, "module-id", spec->module_id);
  for (size_t i = 0; i < spec->entry_points.count; i++)
    append_line(&b, "entry", spec->entry_points.items[i]);
  for (size_t i = 0; i < spec->exported.count; i++)
    append_line(&b, "exported", spec->exported.items[i]);
  for (size_t i = 0; i < spec->allowed_imports.count; i++)
    append_line(&b, "allowed-import", spec->allowed_imports.items[i]);
  char *flags = format("allow-dependencies=%d dummy-image=%d opt-level=%d property-opt-level=%d "
                       "validate=%d program-metadata=%d kernel-names=%d",
                       spec->allow_dependencies, spec->dummy_image, spec->opt_level,
                       spec->property_opt_level, spec->validate, spec->emit_program_metadata,
                       spec->emit_kernel_names);
  append_line(&b, "flags", flags);
  free(flags);
  char *size = format("%zu", bitcode_size);
  append_line(&b, "bitcode-size", size);
  free(size);
  append_line(&b, "end", NULL);
  return b;
}

// *BITCODE_SIZE: the size its bitcode line gives, or -1 if it has none (a spec written by
// hand for one image: the whole bitcode file is the image's).
static int parse_spec(const char *text, ImageSpec *spec, long long *bitcode_size) {
  StringList lines = {0};
  *spec = (ImageSpec){0};
  *bitcode_size = -1;
  bool ok = read_lines(text, &lines) && lines.count >= 2 && !strcmp(lines.items[0], spec_magic) &&
            !strcmp(lines.items[lines.count - 1], "end");
  bool have_flags = false;
  for (size_t i = 1; ok && i + 1 < lines.count; i++) {
    const char *line = lines.items[i], *v;
    int deps, dummy, validate, metadata, names;
    if ((v = value_of(line, "module-id")))
      spec->module_id = xstrdup(v);
    else if ((v = value_of(line, "entry")))
      strlist_push(&spec->entry_points, xstrdup(v));
    else if ((v = value_of(line, "exported")))
      strlist_push(&spec->exported, xstrdup(v));
    else if ((v = value_of(line, "allowed-import")))
      strlist_push(&spec->allowed_imports, xstrdup(v));
    else if ((v = value_of(line, "bitcode-size")) && *bitcode_size < 0)
      ok = sscanf(v, "%lld", bitcode_size) == 1 && *bitcode_size >= 0;
    else if ((v = value_of(line, "flags")) &&
             sscanf(v,
                    "allow-dependencies=%d dummy-image=%d opt-level=%d property-opt-level=%d "
                    "validate=%d program-metadata=%d kernel-names=%d",
                    &deps, &dummy, &spec->opt_level, &spec->property_opt_level, &validate,
                    &metadata, &names) == 7) {
      spec->allow_dependencies = deps, spec->dummy_image = dummy, spec->validate = validate;
      spec->emit_program_metadata = metadata, spec->emit_kernel_names = names;
      have_flags = true;
    } else
      ok = false;
  }
  strlist_free(&lines);
  if (ok && have_flags && spec->module_id) return 0;
  image_spec_free(spec);
  return -1;
}

//
// The link's side
//


static char *job_path(const Distribution *d, const Job *job, const char *suffix) {
  return format("%s/%02zu/image.%zu.%s", d->dir, job->name % SHARDS, job->name, suffix);
}

// A job input: a new file of this run's folder (nothing stands there, and nothing reads it
// before the distributor starts), so made in place, one operation on its folder, not two.
static int write_new_file(const char *path, const void *data, size_t size) {
  int fd = own_create(path, 0666);
  if (fd < 0) return fd;
  const uint8_t *p = data;
  int rc = 0;
  while (size && !rc) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno != EINTR) rc = -errno;
    if (n > 0) p += n, size -= n;
  }
  if (close(fd) < 0 && !rc) rc = -errno;
  return rc;
}

static char *absolute(const char *path) {
  if (path[0] == '/') return xstrdup(path);
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    fatal(NULL, "cannot find the current directory: %s", strerror(errno));
  return format("%s/%s", cwd, path);
}

// PROGRAM in a directory of PATH, else beside this tool (where sycl-thinlto-local and -slurm
// are); NULL if in neither.
static char *find_program(const char *program) {
  const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
  for (const char *p = path;;) {
    size_t n = strcspn(p, ":");
    char *candidate = format("%.*s/%s", (int)n, n ? p : ".", program);
    if (access(candidate, F_OK) == 0) return candidate;
    free(candidate);
    if (!p[n]) break;
    p += n + 1;
  }
  char *self = executable_path();
  *strrchr(self, '/') = 0;
  char *beside = format("%s/%s", self, program);
  free(self);
  if (access(beside, F_OK) == 0) return beside;
  free(beside);
  return NULL;
}

char *distributor_resolve(const char *program, char **errmsg) {
  char *found = strchr(program, '/') ? absolute(program) : find_program(program);
  if (!found) {
    *errmsg = format("distributor not found on PATH or beside %s", TOOL_NAME);
    return NULL;
  }
  struct stat st;
  if (stat(found, &st) < 0 || !S_ISREG(st.st_mode) || access(found, X_OK) < 0) {
    *errmsg = format("distributor is not an executable file: %s",
                     stat(found, &st) < 0   ? strerror(errno)
                     : !S_ISREG(st.st_mode) ? "not a regular file"
                                            : strerror(EACCES));
    free(found);
    return NULL;
  }
  return found;
}

Distribution *distribution_open(const HookOptions *opts, const char *linker_output,
                                size_t images) {
  Distribution *d = xcalloc(1, sizeof *d);
  d->opts = opts;
  d->linker_output = absolute(linker_output);
  d->compiler = opts->remote_compiler ? xstrdup(opts->remote_compiler) : executable_path();
  d->inputs = xcalloc(images ? images : 1, sizeof *d->inputs);
  d->job_of = xcalloc(images ? images : 1, sizeof *d->job_of);
  d->images = images;
  if (uv_mutex_init(&d->lock)) die("uv_mutex_init failed");
  // Made exclusively, under a name with a random part: a folder or link already standing
  // at a name of ours is never adopted, nor emptied (issue 30).
  char *prefix = absolute(opts->jobs_dir);
  int error = 0;
  char *dot = format("%s.", prefix);
  d->dir = own_make_dir(dot, 0700, true, &error); // removed on a failure, with what it holds
  if (!d->dir) fatal(prefix, "cannot make the jobs' directory: %s", strerror(error));
  free(dot);
  free(prefix);
  return d;
}

// A new job NAMED after its first image, for TARGET images, its folder made if it is the first
// there (lock held, or one thread).
static Job *new_job(Distribution *d, size_t name, size_t target) {
  Job *job = xcalloc(1, sizeof *job);
  job->name = name, job->target = target, job->order = d->num_jobs;
  job->meta_fd = job->bc_fd = -1;
  if (uv_mutex_init(&job->lock)) die("uv_mutex_init failed");
  if (!d->shard_made[name % SHARDS]) { // its folder, at its first job
    char *folder = format("%s/%02zu", d->dir, name % SHARDS);
    int rc = own_mkdir(folder, 0700);
    if (rc) fatal(folder, "cannot make the jobs' directory: %s", strerror(-rc));
    char *jobs_files = format("%s/image.*", folder); // the jobs', and their temporaries
    own_expect(jobs_files);
    free(jobs_files);
    free(folder);
    d->shard_made[name % SHARDS] = true;
  }
  if (d->num_jobs == d->jobs_cap) {
    d->jobs_cap = d->jobs_cap ? 2 * d->jobs_cap : 64;
    d->jobs = xrealloc(d->jobs, d->jobs_cap * sizeof *d->jobs);
  }
  d->jobs[d->num_jobs++] = job;
  return job;
}

// Closes JOB's inputs once it is full. 0 or a negative errno.
static int close_inputs(Job *job) {
  int rc = 0;
  if (job->meta_fd >= 0 && close(job->meta_fd) < 0) rc = -errno;
  if (job->bc_fd >= 0 && close(job->bc_fd) < 0 && !rc) rc = -errno;
  job->meta_fd = job->bc_fd = -1;
  return rc;
}

static int write_all(int fd, const void *data, size_t size) {
  const uint8_t *p = data;
  while (size) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno != EINTR) return -errno;
    if (n > 0) p += n, size -= n;
  }
  return 0;
}

// Appends image IMAGE's spec and bitcode to JOB's inputs, made first if this is its first.
static int append_image(Distribution *d, Job *job, size_t image, const Buffer *spec,
                        const Buffer *bitcode) {
  int rc = 0;
  if (job->meta_fd < 0) {
    char *bc = job_path(d, job, "bc"), *meta = job_path(d, job, "meta");
    job->bc_fd = own_create(bc, 0666);
    job->meta_fd = job->bc_fd < 0 ? -1 : own_create(meta, 0666);
    rc = job->bc_fd < 0 ? job->bc_fd : job->meta_fd < 0 ? job->meta_fd : 0;
    free(bc);
    free(meta);
  }
  if (!rc) rc = write_all(job->bc_fd, bitcode->data, bitcode->size);
  if (!rc) rc = write_all(job->meta_fd, spec->data, spec->size);
  if (rc) return rc;
  JobInput *in = &d->inputs[image];
  in->meta_offset = job->meta_size, in->meta_size = spec->size;
  in->bc_offset = job->bc_size, in->bc_size = bitcode->size;
  job->meta_size += spec->size, job->bc_size += bitcode->size;
  return 0;
}

int distribution_write_job(Distribution *d, size_t image, LLVMModuleRef m, const ImageSpec *spec,
                           char **errmsg) {
  if (image >= d->images) die("image %zu of a distribution of %zu", image, d->images);
  Buffer bitcode = module_write(m), spec_file = spec_text(spec, bitcode.size);
  cache_content_key(bitcode.data, bitcode.size, d->inputs[image].image);
  cache_content_key(spec_file.data, spec_file.size, d->inputs[image].spec);
  // A job being filled that no other thread writes now, else a new one.
  uv_mutex_lock(&d->lock);
  Job *job = NULL;
  for (size_t j = d->num_jobs; j-- > 0 && !job;)
    if (d->jobs[j]->count < d->jobs[j]->target && !d->jobs[j]->busy) job = d->jobs[j];
  if (!job) {
    size_t cores = (size_t)(d->opts->jobs < 1 ? 1 : d->opts->jobs);
    size_t target = (d->images - d->placed) / (JOB_SHARE * cores);
    job = new_job(d, image, target < 1 ? 1 : target > MAX_JOB_IMAGES ? MAX_JOB_IMAGES : target);
  }
  job->busy = true;
  d->placed++;
  uv_mutex_unlock(&d->lock);

  int rc = append_image(d, job, image, &spec_file, &bitcode);
  uv_mutex_lock(&d->lock);
  job->busy = false;
  if (!rc) {
    job->images[job->count++] = image;
    d->job_of[image] = job;
  } else {
    job->target = job->count; // no more: its files may end in a part of this image
  }
  if (job->count == job->target) {
    int closed = close_inputs(job);
    if (!rc) rc = closed;
  }
  uv_mutex_unlock(&d->lock);
  if (rc) *errmsg = format("cannot write the job's inputs in %s: %s", d->dir, strerror(-rc));
  free(bitcode.data);
  free(spec_file.data);
  return rc ? -1 : 0;
}

// A job's outputs, in the order the job list names them.
static const char *const job_outputs[] = {"result", "log"};
enum { NUM_OUTPUTS = 2 };

// Strings for the job list: paths and arguments. JSON carries UTF-8 only (LLVM's own DTLTO
// writer, llvm::json, cannot either): *BAD names the first string that is not.
static json_t *json_strings(const char *const *items, size_t count, const char **bad) {
  json_t *array = json_new_array();
  for (size_t i = 0; i < count; i++) {
    if (!utf8_is_valid(items[i]) && !*bad) *bad = items[i];
    json_push(array, json_text(items[i]));
  }
  return array;
}

static json_t *job_entry(const Distribution *d, const Job *j, const char **bad) {
  char *bc = job_path(d, j, "bc"), *meta = job_path(d, j, "meta");
  char *result = job_path(d, j, "result"), *log = job_path(d, j, "log");
  char *meta_arg = format("--meta=%s", meta), *log_arg = format("--log=%s", log);
  char *prefix = format("%s/%02zu/image.%zu", d->dir, j->name % SHARDS, j->name);
  const char *args[] = {meta_arg, log_arg, bc, "-o", prefix};
  const char *inputs[] = {bc, meta};
  const char *outputs[NUM_OUTPUTS] = {result, log};
  json_t *job = json_new_object();
  json_put(job, "args", json_strings(args, 5, bad));
  json_put(job, "inputs", json_strings(inputs, 2, bad));
  json_put(job, "outputs", json_strings(outputs, NUM_OUTPUTS, bad));
  free(bc), free(meta), free(result), free(log), free(meta_arg), free(log_arg), free(prefix);
  return job;
}

// DTLTO's layout (ARCHITECTURE.md fact 11): a job's command is common.args + job.args.
// 0, or -1 with *errmsg.
static int job_list(const Distribution *d, Job *const *jobs, size_t count, char **text,
                    char **errmsg) {
  const char *bad = NULL;
  const char *common_args[] = {d->compiler, "backend"};
  json_t *common = json_new_object();
  if (!utf8_is_valid(d->linker_output)) bad = d->linker_output;
  json_put(common, "linker_output", json_text(d->linker_output));
  json_put(common, "args", json_strings(common_args, 2, &bad));
  json_put(common, "inputs", json_new_array());
  json_t *list = json_new_array();
  for (size_t i = 0; i < count; i++)
    json_push(list, job_entry(d, jobs[i], &bad));
  json_t *root = json_new_object();
  json_put(root, "common", common);
  json_put(root, "jobs", list);
  if (bad) {
    char *shown = utf8_valid_copy(bad, strlen(bad), NULL);
    *errmsg = format("the job list is JSON, which cannot carry '%s': not UTF-8", shown);
    free(shown);
    json_decref(root);
    return -1;
  }
  *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (!*text) out_of_memory("the job list");
  json_decref(root);
  return 0;
}

// The last bytes of PATH, for messages ("" if none).
static char *file_tail(const char *path, size_t keep) {
  char *text;
  size_t size;
  if (read_text(path, &text, &size)) return xstrdup("");
  size_t start = size > keep ? size - keep : 0;
  while (size > start && (text[size - 1] == '\n' || text[size - 1] == '\r'))
    size--;
  char *tail = xstrndup(text + start, size - start);
  free(text);
  return tail;
}

static void remove_outputs(const Distribution *d, Job *job) {
  for (size_t o = 0; o < NUM_OUTPUTS; o++) {
    char *path = job_path(d, job, job_outputs[o]);
    own_remove(path); // a retry reads only what this attempt wrote
    free(path);
  }
}

// In the order of their first images: the images' order, whichever thread wrote them (the
// large jobs first: the link starts the images in that order).
static int by_name(const void *a, const void *b) {
  const Job *x = *(Job *const *)a, *y = *(Job *const *)b;
  return (x->name > y->name) - (x->name < y->name);
}

// A job of its own for each of IMAGES whose job failed with others (so that one image's
// failure is not its job's others'), its inputs the same bytes; a job of one image runs
// again as it is. *JOBS: the jobs to run. NULL, or why they cannot be made.
static char *retry_jobs(Distribution *d, const size_t *images, size_t count, Job **jobs,
                        size_t *num) {
  *num = 0;
  size_t first_new = d->num_jobs;
  for (size_t i = 0; i < count; i++) {
    Job *old = d->job_of[images[i]];
    if (old->order >= first_new) continue; // made above, for an image of the same job
    if (old->count == 1) {
      remove_outputs(d, old);
      jobs[(*num)++] = old;
      continue;
    }
    // Its inputs read, its files removed (the first image's own job takes its name), then
    // one job for each of its images that failed.
    Buffer meta = {0}, bc = {0};
    char *meta_path = job_path(d, old, "meta"), *bc_path = job_path(d, old, "bc"), *why = NULL;
    int rc = read_file(meta_path, &meta);
    if (rc || (rc = read_file(bc_path, &bc)))
      why = format("%s: %s", meta.data ? bc_path : meta_path, read_error_text(rc));
    else if (meta.size != old->meta_size || bc.size != old->bc_size)
      why = format("%s: not the size the link wrote", meta.size != old->meta_size ? meta_path
                                                                                    : bc_path);
    if (!why) {
      remove_outputs(d, old);
      own_remove(meta_path);
      own_remove(bc_path);
    }
    free(meta_path);
    free(bc_path);
    for (size_t k = i; !why && k < count; k++) {
      if (d->job_of[images[k]] != old) continue;
      const JobInput *in = &d->inputs[images[k]];
      Job *single = new_job(d, images[k], 1);
      single->images[single->count++] = images[k];
      d->job_of[images[k]] = single;
      char *m = job_path(d, single, "meta"), *b = job_path(d, single, "bc");
      rc = write_new_file(m, meta.data + in->meta_offset, in->meta_size);
      if (!rc) rc = write_new_file(b, bc.data + in->bc_offset, in->bc_size);
      if (rc) why = format("cannot write the job's inputs %s: %s", m, strerror(-rc));
      free(m);
      free(b);
      jobs[(*num)++] = single;
    }
    free(meta.data);
    free(bc.data);
    if (why) return why;
  }
  return NULL;
}

// The results of JOB's last run, forgotten.
static void forget_results(Job *job);

int distribution_run(Distribution *d, const size_t *images, size_t count, unsigned attempt,
                     char **errmsg) {
  const HookOptions *opts = d->opts;
  Job **jobs = xcalloc(count ? count : 1, sizeof *jobs);
  size_t num = 0;
  if (attempt == 1) {
    for (size_t j = 0; j < d->num_jobs; j++) { // the last jobs, not full
      int rc = close_inputs(d->jobs[j]);
      if (rc) {
        char *path = job_path(d, d->jobs[j], "bc");
        *errmsg = format("cannot write the job's inputs %s: %s", path, strerror(-rc));
        free(path);
        free(jobs);
        return -1;
      }
    }
    bool *listed = xcalloc(d->num_jobs, sizeof *listed);
    for (size_t i = 0; i < count; i++) {
      Job *job = d->job_of[images[i]];
      if (!listed[job->order]) jobs[num++] = job, listed[job->order] = true; // each once
    }
    free(listed);
  } else if ((*errmsg = retry_jobs(d, images, count, jobs, &num))) {
    free(jobs);
    return -1;
  }
  for (size_t i = 0; i < num; i++)
    forget_results(jobs[i]);
  qsort(jobs, num, sizeof *jobs, by_name);
  char *list = format("%s/jobs.%u.json", d->dir, attempt), *json = NULL;
  free(d->last_log);
  d->last_log = format("%s/distributor.%u.log", d->dir, attempt);
  int rc = job_list(d, jobs, num, &json, errmsg);
  if (!rc && (rc = write_file_atomic(list, json, strlen(json)))) {
    *errmsg = format("cannot write the job list %s: %s", list, strerror(-rc));
    rc = -1;
  }
  free(json);
  int out = -1;
  if (!rc && (out = own_create(d->last_log, 0666)) < 0) {
    *errmsg = format("cannot write %s: %s", d->last_log, strerror(-out));
    rc = -1;
  }
  if (rc) {
    free(list);
    free(jobs);
    return -1;
  }
  StringList argv = {0};
  strlist_push(&argv, xstrdup(opts->distributor));
  for (size_t i = 0; opts->distributor_args && i < opts->distributor_args->count; i++)
    strlist_push(&argv, xstrdup(opts->distributor_args->items[i]));
  strlist_push(&argv, xstrdup(list));
  strlist_push(&argv, NULL);
  note("distributor: %zu job(s), attempt %u: %s ... %s (%zu image(s))", num, attempt,
       opts->distributor, list, count);
  // A SIGINT or SIGTERM of the link ends it (child_start tracks it), and so its jobs.
  pid_t pid = child_start((const char *const *)argv.items, NULL, NULL, out);
  close(out);
  int status = 0;
  if (pid < 0) {
    *errmsg = format("cannot run the distributor %s: %s", opts->distributor, strerror(-pid));
    rc = -1;
  } else if (child_wait(pid, &status) < 0) {
    die("waiting for the distributor: %s", strerror(errno));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    char *tail = file_tail(d->last_log, RETRY_LOG_TAIL);
    char *how = WIFSIGNALED(status) ? format("was killed by signal %d (%s)", WTERMSIG(status),
                                             strsignal(WTERMSIG(status)))
                                    : format("exited with status %d", WEXITSTATUS(status));
    *errmsg =
        format("the distributor %s on %s%s%s", how, list, *tail ? "; its output:\n" : "", tail);
    free(how);
    free(tail);
    rc = -1;
  }
  strlist_free(&argv);
  free(list);
  free(jobs);
  return rc;
}

//
// A job's result: read whole, parsed into a JobResult, then verified against the job
//

struct JobResult {
  char image[CACHE_KEY_SIZE + 1], spec[CACHE_KEY_SIZE + 1]; // the inputs it ran
  bool ok;                                                  // else MESSAGE is the image's error
  char *message;
  bool validated;
  StringList symbols, imports;
  UndefinedUses undefined;
  char *properties; // JSON text, or NULL for none
  unsigned long long spirv_size;
  char spirv_key[CACHE_KEY_SIZE + 1];
  Buffer spirv; // the bytes after the header
};

static void job_result_free(JobResult *r) {
  free(r->message);
  strlist_free(&r->symbols);
  strlist_free(&r->imports);
  undefined_uses_free(&r->undefined);
  free(r->properties);
  free(r->spirv.data);
  *r = (JobResult){0};
}

static bool copy_key(char key[CACHE_KEY_SIZE + 1], const char *value) {
  if (strlen(value) != CACHE_KEY_SIZE - 1) return false;
  memcpy(key, value, CACHE_KEY_SIZE);
  return true;
}

// The result at TEXT (SIZE bytes to the file's end), its header lines and the SPIR-V after
// them, into *R, and *USED its bytes. False if it is not a whole result.
static bool parse_result(const char *text, size_t size, JobResult *r, size_t *used) {
  const char *end = text + size;
  static const char end_line[] = "\nend\n";
  const char *stop = memmem(text, size, end_line, sizeof end_line - 1);
  if (!stop) return false;
  char *header = xstrndup(text, stop - text + 1);
  const char *body = stop + sizeof end_line - 1;
  StringList lines = {0};
  bool ok = !memchr(header, 0, stop - text + 1) && read_lines(header, &lines) && lines.count &&
            !strcmp(lines.items[0], result_magic);
  bool have_status = false, have_spirv = false;
  StringList *used_by = NULL; // the kernels of the last undefined use
  for (size_t i = 1; ok && i < lines.count; i++) {
    const char *line = lines.items[i], *v;
    if ((v = value_of(line, "image"))) {
      ok = copy_key(r->image, v);
    } else if ((v = value_of(line, "spec"))) {
      ok = copy_key(r->spec, v);
    } else if ((v = value_of(line, "status"))) {
      r->ok = !strcmp(v, "ok");
      ok = r->ok || !strcmp(v, "error");
      have_status = true;
    } else if ((v = value_of(line, "message"))) {
      free(r->message);
      r->message = xstrdup(v);
    } else if ((v = value_of(line, "validated"))) {
      r->validated = !strcmp(v, "1");
    } else if ((v = value_of(line, "symbol"))) {
      strlist_push(&r->symbols, xstrdup(v));
    } else if ((v = value_of(line, "import"))) {
      strlist_push(&r->imports, xstrdup(v));
    } else if ((v = value_of(line, "undefined")) || (v = value_of(line, "declared"))) {
      StringList none = {0};
      undefined_uses_push(&r->undefined, xstrdup(v), &none, line[0] == 'd');
      used_by = &r->undefined.items[r->undefined.count - 1].kernels;
    } else if ((v = value_of(line, "used-by"))) {
      ok = used_by != NULL;
      if (ok) strlist_push(used_by, xstrdup(v));
    } else if ((v = value_of(line, "properties"))) {
      free(r->properties);
      r->properties = xstrdup(v);
    } else if ((v = value_of(line, "spirv"))) {
      char key[CACHE_KEY_SIZE + 1];
      ok = sscanf(v, "%llu %65s", &r->spirv_size, key) == 2 && copy_key(r->spirv_key, key);
      have_spirv = true;
    } else {
      ok = false;
    }
  }
  strlist_free(&lines);
  free(header);
  if (!ok || !have_status || !*r->image || !*r->spec) return false;
  *used = body - text;
  if (!r->ok) return r->message != NULL;
  if (!have_spirv) return false;
  // What is there of it: a short one is told by its size.
  size_t n = (size_t)(end - body) < r->spirv_size ? (size_t)(end - body) : r->spirv_size;
  buffer_append(&r->spirv, body, n);
  *used += n;
  return true;
}

static void forget_results(Job *job) {
  for (size_t i = 0; i < job->parsed; i++)
    job_result_free(&job->results[i]);
  free(job->results);
  free(job->why);
  job->results = NULL, job->why = NULL;
  job->parsed = 0;
  job->loaded = false;
}

// JOB's result file, read once and parsed into JOB->results, as far as it goes.
static void load_results(const Distribution *d, Job *job) {
  char *path = job_path(d, job, "result");
  Buffer file = {0};
  int rc = read_file(path, &file);
  job->results = xcalloc(job->count, sizeof *job->results);
  size_t at = 0;
  if (rc == -ENOENT)
    job->why = format("the job (%s backend) left no result (%s)", d->compiler, path);
  else if (rc)
    job->why = format("cannot read %s: %s", path, read_error_text(rc));
  else if (!file.size)
    job->why = format("the job's result %s is empty", path);
  for (; !job->why && job->parsed < job->count; job->parsed++) {
    size_t used = 0;
    JobResult *r = &job->results[job->parsed];
    if (at == file.size) {
      job->why = format("the job's result %s ends before image %zu's", path,
                        job->images[job->parsed]);
    } else if (!parse_result((const char *)file.data + at, file.size - at, r, &used)) {
      job_result_free(r);
      job->why = format("the job's result %s is damaged", path);
    } else {
      at += used;
      continue;
    }
    break;
  }
  free(file.data);
  free(path);
  job->loaded = true;
}

// Why R is not the result of image IMAGE's job as the link wrote it, or NULL.
static char *verify_result(const Distribution *d, size_t image, const JobResult *r,
                           const LinkModule *lm, const char *path) {
  const JobInput *want = &d->inputs[image];
  if (strcmp(r->image, want->image))
    return format("%s is the result of another image's bitcode (hash %.16s, not %.16s)", path,
                  r->image, want->image);
  if (strcmp(r->spec, want->spec))
    return format("%s is the result of another image's spec (hash %.16s, not %.16s)", path,
                  r->spec, want->spec);
  if (!r->ok) return NULL;
  if (r->spirv.size != r->spirv_size)
    return format("%s is damaged: %zu bytes of SPIR-V, not the %llu the job wrote", path,
                  r->spirv.size, r->spirv_size);
  char actual[CACHE_KEY_SIZE];
  cache_content_key(r->spirv.data, r->spirv.size, actual);
  if (strcmp(actual, r->spirv_key))
    return format("%s is damaged: its SPIR-V is not the %llu bytes the job wrote", path,
                  r->spirv_size);
  if (!r->spirv.size) return format("%s holds no SPIR-V", path);
  // The kernels it returns are the image's own, every one of them.
  bool same = r->symbols.count == lm->kernels.count;
  for (size_t i = 0; same && i < r->symbols.count; i++)
    same = strlist_contains(&lm->kernels, r->symbols.items[i]);
  if (!same) {
    char *got = strlist_join(&r->symbols, " "), *want_kernels = strlist_join(&lm->kernels, " ");
    char *why = format("%s returns the kernels '%s', not the image's '%s'", path, got,
                       want_kernels);
    free(got);
    free(want_kernels);
    return why;
  }
  return NULL;
}

// A job failure's message: WHY, then the job's stderr (its .log) if it wrote any, else the
// distributor's: what a job that never started leaves (a compiler that is not there).
static char *job_failure_message(const Distribution *d, const Job *job, char *why) {
  char *log = job_path(d, job, "log");
  char *tail = file_tail(log, RETRY_LOG_TAIL), *msg;
  if (*tail) {
    msg = format("%s; its stderr:\n%s", why, tail);
  } else {
    char *theirs = d->last_log ? file_tail(d->last_log, RETRY_LOG_TAIL) : xstrdup("");
    msg = *theirs ? format("%s (its stderr was empty); the distributor's output:\n%s", why, theirs)
                  : format("%s (its stderr was empty)", why);
    free(theirs);
  }
  free(tail);
  free(log);
  free(why);
  return msg;
}

int distribution_read(Distribution *d, size_t image, ImageResult *res, JobOutcome *out) {
  *out = (JobOutcome){0};
  Job *job = d->job_of[image];
  size_t at = 0;
  while (at < job->count && job->images[at] != image)
    at++;
  if (at == job->count) die("image %zu is not in its job", image);
  uv_mutex_lock(&job->lock); // its images' readers, on other threads
  if (!job->loaded) load_results(d, job);
  uv_mutex_unlock(&job->lock);
  char *path = job_path(d, job, "result"), *why = NULL;
  JobResult r = {0};
  if (at >= job->parsed) {
    why = xstrdup(job->why);
  } else {
    r = job->results[at], job->results[at] = (JobResult){0}; // this image's alone
    why = verify_result(d, image, &r, res->module, path);
  }
  if (!why && !r.ok) {
    out->image_error = r.message;
    r.message = NULL;
  } else if (!why) {
    char *perr = NULL;
    PropertySets props = {0};
    if (r.properties && propsets_from_json(r.properties, &props, &perr)) {
      why = format("the properties in %s are damaged: %s", path, perr);
      free(perr);
    } else {
      res->spirv = r.spirv, r.spirv = (Buffer){0};
      res->symbols = r.symbols, r.symbols = (StringList){0};
      res->imports = r.imports, r.imports = (StringList){0};
      // Written again as this link writes them, whatever sycl-thinlto the job ran.
      res->properties = propsets_to_json(&props);
      out->undefined = r.undefined, r.undefined = (UndefinedUses){0};
      out->validated = r.validated;
    }
    propsets_free(&props);
  }
  job_result_free(&r);
  free(path);
  if (!why) return 0;
  out->job_failure = job_failure_message(d, job, why);
  return -1;
}

void job_outcome_free(JobOutcome *out) {
  undefined_uses_free(&out->undefined);
  free(out->image_error);
  free(out->job_failure);
  *out = (JobOutcome){0};
}

// The distributor's last output, beside the link's -o, where a failed link leaves it.
static void keep_distributor_log(const Distribution *d) {
  Buffer text;
  if (!d->last_log || read_file(d->last_log, &text)) return;
  char *kept = format("%s.distributor.log", d->linker_output);
  int rc = write_file_atomic(kept, text.data, text.size);
  if (rc)
    warning(kept, "cannot keep the distributor's output: %s", strerror(-rc));
  else
    inform(kept, "the distributor's output, kept for this failed link");
  free(kept);
  free(text.data);
}

void distribution_close(Distribution *d, bool failed) {
  if (!d) return;
  if (d->opts->keep_jobs) {
    note("%s: the jobs' lists, inputs and outputs are kept (--save-temps)", d->dir);
  } else {
    if (failed) keep_distributor_log(d);
    int rc = own_empty_dir(d->dir); // only what this run made: the rest, and it, stay
    if (rc) warning(d->dir, "not removed: %s", strerror(-rc));
  }
  keep_on_success(d->dir);
  for (size_t j = 0; j < d->num_jobs; j++) {
    Job *job = d->jobs[j];
    close_inputs(job);
    forget_results(job);
    uv_mutex_destroy(&job->lock);
    free(job);
  }
  uv_mutex_destroy(&d->lock);
  free(d->jobs);
  free(d->job_of);
  free(d->dir);
  free(d->linker_output);
  free(d->compiler);
  free(d->inputs);
  free(d->last_log);
  free(d);
}

//
// The job's side: `sycl-thinlto backend`
//

typedef struct {
  const char *out_prefix;
  char *result_path;
  char image_key[CACHE_KEY_SIZE], spec_key[CACHE_KEY_SIZE]; // what it was given
  StringList symbols; // for the messages of codegen and check failures
  Buffer result;      // the results so far, one image's after another
} BackendJob;

static void append_result_head(Buffer *b, const BackendJob *job, const char *status) {
  append_line(b, result_magic, NULL);
  append_line(b, "image", job->image_key);
  append_line(b, "spec", job->spec_key);
  append_line(b, "status", status);
}

static int write_result(const BackendJob *job) {
  int rc = write_file_atomic(job->result_path, job->result.data, job->result.size);
  if (rc)
    fprintf(stderr, "%s: error: %s: cannot write: %s\n", TOOL_NAME, job->result_path,
            strerror(-rc));
  return rc ? 1 : 0;
}

// The image's error, as the link reports it; the job itself succeeded.
static void append_error_result(BackendJob *job, const char *message, bool with_kernels) {
  Buffer *b = &job->result;
  append_result_head(b, job, "error");
  char *kernels = strlist_join(&job->symbols, " ");
  char *full =
      with_kernels ? format("%s\n>>> image kernels: %s", message, kernels) : xstrdup(message);
  append_line(b, "message", full);
  append_line(b, "end", NULL);
  free(full);
  free(kernels);
}

// Imports the link's check would refuse: spirv-val is then not run, as on the local path,
// which reports the undefined symbols first.
static bool has_undefined_imports(const ImageSpec *spec, const StringList *imports) {
  for (size_t i = 0; i < imports->count; i++)
    if (!is_builtin_name(imports->items[i]) && !spec->allow_dependencies &&
        !strlist_contains(&spec->allowed_imports, imports->items[i]))
      return true;
  return false;
}

// The image's good result: the header, then SPIRV's bytes.
static void append_good_result(BackendJob *job, const ImageResult *res,
                               const UndefinedUses *undefined, bool validated) {
  const Buffer *spirv = &res->spirv;
  Buffer *b = &job->result;
  append_result_head(b, job, "ok");
  append_line(b, "validated", validated ? "1" : "0");
  for (size_t i = 0; i < res->symbols.count; i++)
    append_line(b, "symbol", res->symbols.items[i]);
  for (size_t i = 0; i < res->imports.count; i++)
    append_line(b, "import", res->imports.items[i]);
  for (size_t i = 0; i < undefined->count; i++) {
    const UndefinedUse *use = &undefined->items[i];
    append_line(b, use->declared ? "declared" : "undefined", use->name);
    for (size_t k = 0; k < use->kernels.count; k++)
      append_line(b, "used-by", use->kernels.items[k]);
  }
  append_line(b, "properties", res->properties);
  char key[CACHE_KEY_SIZE];
  cache_content_key(spirv->data, spirv->size, key);
  char *line = format("%zu %s", spirv->size, key);
  append_line(b, "spirv", line);
  free(line);
  append_line(b, "end", NULL);
  buffer_append(b, spirv->data, spirv->size);
}

// Reads PATH, an input of the job.
static Buffer read_job_input(const char *path) {
  Buffer b;
  int rc = read_file(path, &b);
  if (rc) fatal(path, "%s", read_error_text(rc));
  return b;
}

// The emitted, fixed, checked SPIR-V of the finalized M in res->spirv, with res->imports and
// *VALIDATED: 0; or -1, the image's error appended as its result.
static int emit_image(BackendJob *job, LLVMModuleRef m, const ImageSpec *spec, ImageResult *res,
                      bool *validated) {
  Buffer *spirv = &res->spirv;
  char *errmsg = NULL;
  int failed = spirv_emit_forked(m, spirv, &errmsg) || spirv_fix_null_integers(spirv, &errmsg);
  StringList exports = {0};
  if (!failed) failed = spirv_linkage(spirv->data, spirv->size, &res->imports, &exports, &errmsg);
  strlist_free(&exports);
  *validated = !failed && spec->validate && !has_undefined_imports(spec, &res->imports);
  if (!failed && *validated) failed = spirv_validate(spirv, &errmsg);
  if (!failed) return 0;
  append_error_result(job, errmsg, true);
  free(errmsg);
  return -1;
}

// One image of the job: BITCODE (read from BITCODE_PATH) as SPEC says, its result appended.
static void run_image(BackendJob *job, const ImageSpec *spec, const Buffer *bitcode,
                      const char *bitcode_path) {
  job_fault(JOB_FAULT_START, &(JobFaultSite){.bitcode = bitcode, .out_prefix = job->out_prefix});
  // Finalization, the symbol table, properties: hooks/backend.c, as in the link. The
  // bitcode is an input: a reader that crashes on it says so, naming it (base/cleanup.c).
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  char *errmsg = NULL;
  reading_input_begin(bitcode_path, "bitcode");
  int unreadable =
      module_parse(ctx, bitcode->data, bitcode->size, spec->module_id, false, &m, &errmsg);
  reading_input_end();
  if (unreadable) fatal(bitcode_path, "%s", errmsg); // a damaged input: the link tries again
  ImageResult res = {0};
  UndefinedUses undefined = {0};
  bool validated = false;
  strlist_free(&job->symbols);
  if (finalize_image_module(m, spec, &errmsg)) {
    append_error_result(job, errmsg, false);
    free(errmsg);
    LLVMDisposeModule(m);
  } else {
    describe_image(m, spec, &res, &undefined);
    for (size_t i = 0; i < res.symbols.count; i++)
      strlist_push(&job->symbols, xstrdup(res.symbols.items[i]));
    // SPIR-V in this process, once (fact 9), then what the link's check step does.
    int failed = emit_image(job, m, spec, &res, &validated);
    LLVMDisposeModule(m);
    if (!failed) {
      job_fault(JOB_FAULT_SPIRV, &(JobFaultSite){.bitcode = bitcode, .spirv = &res.spirv});
      append_good_result(job, &res, &undefined, validated);
    }
  }
  context_dispose(ctx);
  undefined_uses_free(&undefined);
  image_result_free(&res);
}

int backend_job_main(const char *meta_path, const char *bitcode_path, const char *out_prefix,
                     const char *log_path) {
  BackendJob job = {.out_prefix = out_prefix, .result_path = format("%s.result", out_prefix)};
  // The one rule for outputs (base/outputs.c), before anything is opened: --log=INPUT would
  // truncate the image it is to read. Unswept: the jobs' directory is the link's to sweep.
  output_rule_input(meta_path);
  output_rule_input(bitcode_path);
  if (log_path) check_output_path_unswept(log_path, "--log");
  check_output_path_unswept(job.result_path, "-o");
  if (log_path) {
    // A new file replacing what stands there: a link is replaced, never written through.
    int fd = own_create_replacing(log_path);
    if (fd < 0 || dup2(fd, 2) < 0) {
      fprintf(stderr, "%s: error: %s: cannot write: %s\n", TOOL_NAME, log_path,
              strerror(fd < 0 ? -fd : errno));
      return 1;
    }
    close(fd);
  }
  Buffer meta = read_job_input(meta_path), bitcode = read_job_input(bitcode_path);
  // The specs, one after another, each followed by its image's bitcode in BITCODE.
  static const char end_line[] = "\nend\n";
  const char *p = (const char *)meta.data, *end = p + meta.size;
  size_t at = 0, images = 0;
  Buffer *done = NULL; // the images' bitcode, for the faults after the result is written
  do {
    const char *stop = memmem(p, end - p, end_line, sizeof end_line - 1);
    if (!stop) fatal(meta_path, "not an image spec of this version");
    size_t length = stop + sizeof end_line - 1 - p;
    char *text = xstrndup(p, length);
    ImageSpec spec;
    long long size;
    if (memchr(p, 0, length) || parse_spec(text, &spec, &size))
      fatal(meta_path, "not an image spec of this version");
    free(text);
    cache_content_key(p, length, job.spec_key);
    p += length;
    if (!images && p == end) // the only image: the whole file, whatever its size line says
      size = (long long)bitcode.size;
    else if (size < 0)
      fatal(meta_path, "one of several image specs without its bitcode's size");
    if ((unsigned long long)size > bitcode.size - at)
      fatal(bitcode_path, "shorter than its image specs say");
    Buffer image = {.data = bitcode.data + at, .size = (size_t)size};
    cache_content_key(image.data, image.size, job.image_key);
    run_image(&job, &spec, &image, bitcode_path);
    image_spec_free(&spec);
    done = xrealloc(done, (images + 1) * sizeof *done);
    done[images++] = image;
    at += image.size;
  } while (p < end);
  if (at != bitcode.size) fatal(bitcode_path, "longer than its image specs say");
  free(meta.data);
  int rc = write_result(&job);
  for (size_t i = 0; !rc && i < images; i++)
    job_fault(JOB_FAULT_WRITTEN, &(JobFaultSite){.bitcode = &done[i], .result_path = job.result_path});
  free(done);
  free(bitcode.data);
  free(job.result.data);
  strlist_free(&job.symbols);
  free(job.result_path);
  return rc;
}
