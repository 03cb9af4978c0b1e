// The images' backends as jobs of a distributor (issue 26), through LLVM's DTLTO interface: the
// link writes each job's input files and a JSON job list, runs `DISTRIBUTOR ARGS... LIST.json`,
// and reads the results back; and `sycl-thinlto backend`, the job itself. It does not decide
// which images are sent (hooks/hook.c does) or how jobs are scheduled (the distributor does).
//
// A job's files, for image N in the jobs directory D, folder S = N % 64 (few, and spread:
// thousands of jobs share D):
//   inputs   D/S/image.N.bc (the completed module), D/S/image.N.meta (its ImageSpec)
//   outputs  D/S/image.N.log (the job's stderr) and D/S/image.N.result: what the job was given
//            (the hashes of its two inputs), the image's symbols, imports, undefined uses and
//            properties, then the SPIR-V's size and hash, an "end" line, and the SPIR-V's
//            bytes; so that a result of another job, or a truncated or damaged one, is told
//            from a good one.
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

static const char spec_magic[] = "sycl-thinlto image spec 1";
static const char result_magic[] = "sycl-thinlto backend result 2";
enum { RETRY_LOG_TAIL = 4096 };

// What a job is given: the hashes of its bitcode and of its spec, as the link wrote them.
typedef struct {
  char image[CACHE_KEY_SIZE];
  char spec[CACHE_KEY_SIZE];
} JobInputKeys;

struct Distribution {
  const HookOptions *opts;
  char *dir;           // absolute
  char *linker_output; // absolute
  char *compiler;      // the jobs' sycl-thinlto
  JobInputKeys *keys;  // per image; each written by the thread that writes its job
  size_t images;
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

static Buffer spec_text(const ImageSpec *spec) {
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
  append_line(&b, "end", NULL);
  return b;
}

static int parse_spec(const char *text, ImageSpec *spec) {
  StringList lines = {0};
  *spec = (ImageSpec){0};
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

// A job's files are spread over SHARDS folders of the jobs' directory, image N's in folder
// N % SHARDS: creating and renaming a file locks its folder, and on 16 cores thousands of
// jobs in one folder queued on that lock (a per-kernel link of 8000 images through the
// local distributor took 4.3 times the pool's wall time, bench/RESULTS.md).
enum { SHARDS = 64 };

static char *image_path(const Distribution *d, size_t image, const char *suffix) {
  return format("%s/%02zu/image.%zu.%s", d->dir, image % SHARDS, image, suffix);
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
  d->keys = xcalloc(images ? images : 1, sizeof *d->keys);
  d->images = images;
  // Made exclusively, under a name with a random part: a folder or link already standing
  // at a name of ours is never adopted, nor emptied (issue 30).
  char *prefix = absolute(opts->jobs_dir);
  int error = 0;
  char *dot = format("%s.", prefix);
  d->dir = own_make_dir(dot, 0700, &error);
  if (!d->dir) fatal(prefix, "cannot make the jobs' directory: %s", strerror(error));
  free(dot);
  free(prefix);
  remove_dir_on_failure(d->dir); // with what this run made in it
  for (size_t shard = 0; shard < SHARDS && shard < images; shard++) {
    char *folder = format("%s/%02zu", d->dir, shard);
    int rc = own_mkdir(folder, 0700);
    if (rc) fatal(folder, "cannot make the jobs' directory: %s", strerror(-rc));
    char *jobs_files = format("%s/image.*", folder); // the jobs', and their temporaries
    own_expect(jobs_files);
    free(jobs_files);
    free(folder);
  }
  return d;
}

int distribution_write_job(Distribution *d, size_t image, LLVMModuleRef m, const ImageSpec *spec,
                           char **errmsg) {
  if (image >= d->images) die("image %zu of a distribution of %zu", image, d->images);
  Buffer bitcode = module_write(m), spec_file = spec_text(spec);
  cache_content_key(bitcode.data, bitcode.size, d->keys[image].image);
  cache_content_key(spec_file.data, spec_file.size, d->keys[image].spec);
  char *bc = image_path(d, image, "bc"), *meta = image_path(d, image, "meta");
  int rc = write_new_file(bc, bitcode.data, bitcode.size);
  if (!rc) rc = write_new_file(meta, spec_file.data, spec_file.size);
  if (rc) *errmsg = format("cannot write the job's inputs in %s: %s", d->dir, strerror(-rc));
  free(bc);
  free(meta);
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

static json_t *job_entry(const Distribution *d, size_t image, const char **bad) {
  char *bc = image_path(d, image, "bc"), *meta = image_path(d, image, "meta");
  char *result = image_path(d, image, "result"), *log = image_path(d, image, "log");
  char *meta_arg = format("--meta=%s", meta), *log_arg = format("--log=%s", log);
  char *prefix = format("%s/%02zu/image.%zu", d->dir, image % SHARDS, image);
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
static int job_list(const Distribution *d, const size_t *images, size_t count, char **text,
                    char **errmsg) {
  const char *bad = NULL;
  const char *common_args[] = {d->compiler, "backend"};
  json_t *common = json_new_object();
  if (!utf8_is_valid(d->linker_output)) bad = d->linker_output;
  json_put(common, "linker_output", json_text(d->linker_output));
  json_put(common, "args", json_strings(common_args, 2, &bad));
  json_put(common, "inputs", json_new_array());
  json_t *jobs = json_new_array();
  for (size_t i = 0; i < count; i++)
    json_push(jobs, job_entry(d, images[i], &bad));
  json_t *root = json_new_object();
  json_put(root, "common", common);
  json_put(root, "jobs", jobs);
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

int distribution_run(Distribution *d, const size_t *images, size_t count, unsigned attempt,
                     char **errmsg) {
  const HookOptions *opts = d->opts;
  for (size_t i = 0; attempt > 1 && i < count; i++)
    for (size_t o = 0; o < NUM_OUTPUTS; o++) {
      char *path = image_path(d, images[i], job_outputs[o]);
      own_remove(path); // a retry reads only what this attempt wrote
      free(path);
    }
  char *list = format("%s/jobs.%u.json", d->dir, attempt), *json = NULL;
  free(d->last_log);
  d->last_log = format("%s/distributor.%u.log", d->dir, attempt);
  int rc = job_list(d, images, count, &json, errmsg);
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
    return -1;
  }
  StringList argv = {0};
  strlist_push(&argv, xstrdup(opts->distributor));
  for (size_t i = 0; opts->distributor_args && i < opts->distributor_args->count; i++)
    strlist_push(&argv, xstrdup(opts->distributor_args->items[i]));
  strlist_push(&argv, xstrdup(list));
  strlist_push(&argv, NULL);
  note("distributor: %zu job(s), attempt %u: %s ... %s", count, attempt, opts->distributor, list);
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
  return rc;
}

//
// A job's result: read whole, parsed into a JobResult, then verified against the job
//

typedef struct {
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
} JobResult;

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

// FILE's header lines and the SPIR-V after them into *R. False if it is not a whole result.
static bool parse_result(const Buffer *file, JobResult *r) {
  const char *text = (const char *)file->data, *end = text + file->size;
  static const char end_line[] = "\nend\n";
  const char *stop = memmem(text, file->size, end_line, sizeof end_line - 1);
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
  if (!r->ok) return r->message != NULL;
  if (!have_spirv) return false;
  buffer_append(&r->spirv, body, end - body);
  return true;
}

// Why R is not the result of image IMAGE's job as the link wrote it, or NULL.
static char *verify_result(const Distribution *d, size_t image, const JobResult *r,
                           const LinkModule *lm, const char *path) {
  const JobInputKeys *want = &d->keys[image];
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
static char *job_failure_message(const Distribution *d, size_t image, char *why) {
  char *log = image_path(d, image, "log");
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
  char *path = image_path(d, image, "result"), *why = NULL;
  Buffer file = {0};
  JobResult r = {0};
  int rc = read_file(path, &file);
  if (rc == -ENOENT)
    why = format("the job (%s backend) left no result (%s)", d->compiler, path);
  else if (rc)
    why = format("cannot read %s: %s", path, read_error_text(rc));
  else if (!file.size)
    why = format("the job's result %s is empty", path);
  else if (!parse_result(&file, &r))
    why = format("the job's result %s is damaged", path);
  else
    why = verify_result(d, image, &r, res->module, path);
  free(file.data);
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
      res->properties = props;
      out->undefined = r.undefined, r.undefined = (UndefinedUses){0};
      out->validated = r.validated;
    }
  }
  job_result_free(&r);
  free(path);
  if (!why) return 0;
  out->job_failure = job_failure_message(d, image, why);
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
  free(d->dir);
  free(d->linker_output);
  free(d->compiler);
  free(d->keys);
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
} BackendJob;

static void append_result_head(Buffer *b, const BackendJob *job, const char *status) {
  append_line(b, result_magic, NULL);
  append_line(b, "image", job->image_key);
  append_line(b, "spec", job->spec_key);
  append_line(b, "status", status);
}

static int write_result(const BackendJob *job, const Buffer *text) {
  int rc = write_file_atomic(job->result_path, text->data, text->size);
  if (rc)
    fprintf(stderr, "%s: error: %s: cannot write: %s\n", TOOL_NAME, job->result_path,
            strerror(-rc));
  return rc ? 1 : 0;
}

// The image's error, as the link reports it; the job itself succeeded.
static int write_error_result(const BackendJob *job, const char *message, bool with_kernels) {
  Buffer b = {0};
  append_result_head(&b, job, "error");
  char *kernels = strlist_join(&job->symbols, " ");
  char *full =
      with_kernels ? format("%s\n>>> image kernels: %s", message, kernels) : xstrdup(message);
  append_line(&b, "message", full);
  append_line(&b, "end", NULL);
  free(full);
  free(kernels);
  int rc = write_result(job, &b);
  free(b.data);
  return rc;
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
static Buffer result_text(const BackendJob *job, const ImageResult *res,
                          const UndefinedUses *undefined, bool validated, const Buffer *spirv) {
  Buffer b = {0};
  append_result_head(&b, job, "ok");
  append_line(&b, "validated", validated ? "1" : "0");
  for (size_t i = 0; i < res->symbols.count; i++)
    append_line(&b, "symbol", res->symbols.items[i]);
  for (size_t i = 0; i < res->imports.count; i++)
    append_line(&b, "import", res->imports.items[i]);
  for (size_t i = 0; i < undefined->count; i++) {
    const UndefinedUse *use = &undefined->items[i];
    append_line(&b, use->declared ? "declared" : "undefined", use->name);
    for (size_t k = 0; k < use->kernels.count; k++)
      append_line(&b, "used-by", use->kernels.items[k]);
  }
  if (res->properties.count) {
    char *props = propsets_to_json(&res->properties);
    append_line(&b, "properties", props);
    free(props);
  }
  char key[CACHE_KEY_SIZE];
  cache_content_key(spirv->data, spirv->size, key);
  char *line = format("%zu %s", spirv->size, key);
  append_line(&b, "spirv", line);
  free(line);
  append_line(&b, "end", NULL);
  buffer_append(&b, spirv->data, spirv->size);
  return b;
}

// Reads PATH, an input of the job, and its hash.
static Buffer read_job_input(const char *path, char key[CACHE_KEY_SIZE]) {
  Buffer b;
  int rc = read_file(path, &b);
  if (rc) fatal(path, "%s", read_error_text(rc));
  cache_content_key(b.data, b.size, key);
  return b;
}

// The emitted, fixed, checked SPIR-V of the finalized M in *SPIRV and *VALIDATED, with
// res->imports; or the image's error written as the result (its exit status in *rc).
static int emit_image(BackendJob *job, LLVMModuleRef m, const ImageSpec *spec, ImageResult *res,
                      Buffer *spirv, bool *validated) {
  char *errmsg = NULL;
  int failed = spirv_emit_forked(m, spirv, &errmsg) || spirv_fix_null_integers(spirv, &errmsg);
  StringList exports = {0};
  if (!failed) failed = spirv_linkage(spirv->data, spirv->size, &res->imports, &exports, &errmsg);
  strlist_free(&exports);
  *validated = !failed && spec->validate && !has_undefined_imports(spec, &res->imports);
  if (!failed && *validated) failed = spirv_validate(spirv, &errmsg);
  if (!failed) return 0;
  int rc = write_error_result(job, errmsg, true);
  free(errmsg);
  return rc ? rc : -1;
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
  Buffer meta = read_job_input(meta_path, job.spec_key);
  Buffer bitcode = read_job_input(bitcode_path, job.image_key);
  ImageSpec spec;
  buffer_append(&meta, "", 1);
  if (parse_spec((const char *)meta.data, &spec))
    fatal(meta_path, "not an image spec of this version");
  free(meta.data);
  job_fault(JOB_FAULT_START, &(JobFaultSite){.bitcode = &bitcode, .out_prefix = out_prefix});

  // Finalization, the symbol table, properties: hooks/backend.c, as in the link. The
  // bitcode is an input: a reader that crashes on it says so, naming it (base/cleanup.c).
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  char *errmsg = NULL;
  reading_input_begin(bitcode_path, "bitcode");
  int unreadable = module_parse(ctx, bitcode.data, bitcode.size, spec.module_id, false, &m, &errmsg);
  reading_input_end();
  if (unreadable) fatal(bitcode_path, "%s", errmsg); // a damaged input: the link tries again
  ImageResult res = {0};
  UndefinedUses undefined = {0};
  Buffer spirv = {0};
  bool validated = false;
  int rc = 0;
  if (finalize_image_module(m, &spec, &errmsg)) {
    rc = write_error_result(&job, errmsg, false);
    free(errmsg);
    LLVMDisposeModule(m);
  } else {
    describe_image(m, &spec, &res, &undefined);
    for (size_t i = 0; i < res.symbols.count; i++)
      strlist_push(&job.symbols, xstrdup(res.symbols.items[i]));
    // SPIR-V in this process, once (fact 9), then what the link's check step does.
    rc = emit_image(&job, m, &spec, &res, &spirv, &validated);
    LLVMDisposeModule(m);
    if (rc < 0) {
      rc = 0; // the image's error is the result
    } else {
      job_fault(JOB_FAULT_SPIRV, &(JobFaultSite){.bitcode = &bitcode, .spirv = &spirv});
      Buffer result = result_text(&job, &res, &undefined, validated, &spirv);
      rc = write_result(&job, &result);
      free(result.data);
      if (!rc)
        job_fault(JOB_FAULT_WRITTEN,
                  &(JobFaultSite){.bitcode = &bitcode, .result_path = job.result_path});
    }
  }
  context_dispose(ctx);
  free(spirv.data);
  free(bitcode.data);
  undefined_uses_free(&undefined);
  strlist_free(&res.symbols);
  strlist_free(&res.imports);
  strlist_free(&job.symbols);
  propsets_free(&res.properties);
  image_spec_free(&spec);
  free(job.result_path);
  return rc;
}
