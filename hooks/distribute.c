// The images' backends as jobs of a distributor (issue 26), through LLVM's DTLTO interface: the
// link writes each job's input files and a JSON job list, runs `DISTRIBUTOR ARGS... LIST.json`,
// and reads the outputs back; and `sycl-thinlto backend`, the job itself. It does not decide
// which images are sent (hooks/hook.c does) or how jobs are scheduled (the distributor does).
//
// A job's files, for image N in the jobs directory D:
//   inputs   D/image.N.bc (the completed module), D/image.N.meta (its ImageSpec)
//   outputs  D/image.N.spv, .props.json, .sym, .imports, .log (the job's stderr), and last
//            D/image.N.diag: the result, with each other output's size and hash, so that a
//            missing, truncated or damaged output is told from a good one.
// Text files hold one value a line, with bytes below 0x20 and '%' written as %XX.
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
static const char result_magic[] = "sycl-thinlto backend result 1";
// The outputs the .diag vouches for, in the order it lists them.
static const char *const checked_outputs[] = {"spv", "props.json", "sym", "imports"};
enum { NUM_CHECKED = 4, RETRY_LOG_TAIL = 4096 };

struct Distribution {
  const HookOptions *opts;
  char *dir;           // absolute
  char *linker_output; // absolute
  char *compiler;      // the jobs' sycl-thinlto
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

static char *image_path(const Distribution *d, size_t image, const char *suffix) {
  return format("%s/image.%zu.%s", d->dir, image, suffix);
}

static char *absolute(const char *path) {
  if (path[0] == '/') return xstrdup(path);
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    fatal(NULL, "cannot find the current directory: %s", strerror(errno));
  return format("%s/%s", cwd, path);
}

char *distributor_resolve(const char *program, char **errmsg) {
  char *found = NULL;
  if (strchr(program, '/')) {
    found = absolute(program);
  } else {
    const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
    for (const char *p = path; !found;) {
      size_t n = strcspn(p, ":");
      char *candidate = format("%.*s/%s", (int)n, n ? p : ".", program);
      if (access(candidate, F_OK) == 0)
        found = candidate;
      else
        free(candidate);
      if (!p[n]) break;
      p += n + 1;
    }
    char self[PATH_MAX]; // else beside this tool, where sycl-thinlto-local and -slurm are
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (!found && n > 0) {
      self[n] = 0;
      *strrchr(self, '/') = 0;
      found = format("%s/%s", self, program);
      if (access(found, F_OK) != 0) {
        free(found);
        found = NULL;
      }
    }
    if (!found) {
      *errmsg = format("distributor not found on PATH or beside %s", TOOL_NAME);
      return NULL;
    }
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

Distribution *distribution_open(const HookOptions *opts, const char *linker_output) {
  Distribution *d = xcalloc(1, sizeof *d);
  d->opts = opts;
  d->linker_output = absolute(linker_output);
  if (opts->remote_compiler) {
    d->compiler = xstrdup(opts->remote_compiler);
  } else {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) die("cannot find our own executable: %s", strerror(errno));
    self[n] = 0;
    d->compiler = xstrdup(self);
  }
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
  char *jobs_files = format("%s/image.*", d->dir); // the jobs', and their temporaries
  own_expect(jobs_files);
  free(jobs_files);
  return d;
}

int distribution_write_job(Distribution *d, size_t image, LLVMModuleRef m, const ImageSpec *spec,
                           char **errmsg) {
  Buffer bitcode = module_write(m), spec_file = spec_text(spec);
  char *bc = image_path(d, image, "bc"), *meta = image_path(d, image, "meta");
  int rc = write_file_atomic(bc, bitcode.data, bitcode.size);
  if (!rc) rc = write_file_atomic(meta, spec_file.data, spec_file.size);
  if (rc) *errmsg = format("cannot write the job's inputs in %s: %s", d->dir, strerror(-rc));
  free(bc);
  free(meta);
  free(bitcode.data);
  free(spec_file.data);
  return rc ? -1 : 0;
}

static const char *const all_outputs[] = {"spv", "props.json", "sym", "imports", "log", "diag"};
enum { NUM_OUTPUTS = 6 };

// A list of paths and arguments as a JSON array, by jansson: `["a", "b"]` (its non-compact
// form without indentation, the spacing the list always had). A string that is not UTF-8
// cannot be carried (LLVM's own DTLTO writer, llvm::json, cannot either): *bad names it.
static void append_json_strings(Buffer *b, const StringList *l, const char **bad) {
  json_t *array = json_new_array();
  for (size_t i = 0; i < l->count; i++) {
    if (!utf8_is_valid(l->items[i]) && !*bad) *bad = l->items[i];
    json_push(array, json_text(l->items[i]));
  }
  char *text = json_dumps(array, JSON_PRESERVE_ORDER);
  if (!text) out_of_memory("the job list");
  buffer_append(b, text, strlen(text));
  free(text);
  json_decref(array);
}

static void job_files(const Distribution *d, size_t image, StringList *args, StringList *inputs,
                      StringList *outputs) {
  char *bc = image_path(d, image, "bc"), *meta = image_path(d, image, "meta");
  strlist_push(args, format("--meta=%s", meta));
  strlist_push(args, format("--log=%s", image_path(d, image, "log")));
  strlist_push(args, xstrdup(bc));
  strlist_push(args, xstrdup("-o"));
  strlist_push(args, format("%s/image.%zu", d->dir, image));
  strlist_push(inputs, bc);
  strlist_push(inputs, meta);
  for (size_t i = 0; i < NUM_OUTPUTS; i++)
    strlist_push(outputs, image_path(d, image, all_outputs[i]));
}

// DTLTO's layout (ARCHITECTURE.md fact 11): a job's command is common.args + job.args. One
// job a line; every value is written by jansson. 0, or -1 with *errmsg.
static int job_list(const Distribution *d, const size_t *images, size_t count, Buffer *out,
                    char **errmsg) {
  Buffer b = {0};
  const char *bad = NULL;
  StringList common = {0}, none = {0}, output = {0};
  strlist_push(&common, xstrdup(d->compiler));
  strlist_push(&common, xstrdup("backend"));
  strlist_push(&output, xstrdup(d->linker_output));
  const char *head = "{\n  \"common\": {\n    \"linker_output\": ";
  buffer_append(&b, head, strlen(head));
  Buffer one = {0};
  append_json_strings(&one, &output, &bad); // ["PATH"]: the string between the brackets
  buffer_append(&b, one.data + 1, one.size - 2);
  free(one.data);
  buffer_append(&b, ",\n    \"args\": ", 14);
  append_json_strings(&b, &common, &bad);
  buffer_append(&b, ",\n    \"inputs\": ", 16);
  append_json_strings(&b, &none, &bad);
  buffer_append(&b, "\n  },\n  \"jobs\": [", 17);
  for (size_t i = 0; i < count; i++) {
    StringList args = {0}, inputs = {0}, outputs = {0};
    job_files(d, images[i], &args, &inputs, &outputs);
    buffer_append(&b, i ? ",\n    {\"args\": " : "\n    {\"args\": ", i ? 15 : 14);
    append_json_strings(&b, &args, &bad);
    buffer_append(&b, ", \"inputs\": ", 12);
    append_json_strings(&b, &inputs, &bad);
    buffer_append(&b, ", \"outputs\": ", 13);
    append_json_strings(&b, &outputs, &bad);
    buffer_append(&b, "}", 1);
    strlist_free(&args);
    strlist_free(&inputs);
    strlist_free(&outputs);
  }
  buffer_append(&b, "\n  ]\n}\n", 7);
  if (bad) {
    char *shown = utf8_valid_copy(bad, strlen(bad), NULL);
    *errmsg = format("the job list is JSON, which cannot carry '%s': not UTF-8", shown);
    free(shown);
  }
  strlist_free(&common);
  strlist_free(&output);
  if (bad) {
    free(b.data);
    return -1;
  }
  *out = b;
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
  for (size_t i = 0; i < count; i++)
    for (size_t o = 0; o < NUM_OUTPUTS; o++) {
      char *path = image_path(d, images[i], all_outputs[o]);
      own_remove(path); // a retry reads only what this attempt wrote
      free(path);
    }
  char *list = format("%s/jobs.%u.json", d->dir, attempt);
  char *log = format("%s/distributor.%u.log", d->dir, attempt);
  Buffer json = {0};
  if (job_list(d, images, count, &json, errmsg)) {
    free(list);
    free(log);
    return -1;
  }
  int rc = write_file_atomic(list, json.data, json.size);
  free(json.data);
  if (rc) {
    *errmsg = format("cannot write the job list %s: %s", list, strerror(-rc));
    free(list);
    free(log);
    return -1;
  }
  StringList argv = {0};
  strlist_push(&argv, xstrdup(opts->distributor));
  for (size_t i = 0; opts->distributor_args && i < opts->distributor_args->count; i++)
    strlist_push(&argv, xstrdup(opts->distributor_args->items[i]));
  strlist_push(&argv, xstrdup(list));
  strlist_push(&argv, NULL);
  argv.count--;
  note("distributor: %zu job(s), attempt %u: %s ... %s", count, attempt, opts->distributor, list);

  int out = own_create(log, 0666);
  if (out < 0) {
    *errmsg = format("cannot write %s: %s", log, strerror(-out));
    strlist_free(&argv);
    free(list);
    free(log);
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    int null = own_open_null(O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) _exit(127);
    execv(argv.items[0], argv.items);
    dprintf(2, "cannot run %s: %s\n", argv.items[0], strerror(errno));
    _exit(127);
  }
  close(out);
  int status = 0;
  if (pid < 0) {
    *errmsg = format("cannot start the distributor: %s", strerror(errno));
    rc = -1;
  } else {
    track_child(pid); // a SIGINT or SIGTERM of the link ends it, and so its jobs
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    untrack_child(pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
      char *tail = file_tail(log, RETRY_LOG_TAIL);
      char *how = WIFSIGNALED(status) ? format("was killed by signal %d (%s)", WTERMSIG(status),
                                               strsignal(WTERMSIG(status)))
                                      : format("exited with status %d", WEXITSTATUS(status));
      *errmsg =
          format("the distributor %s on %s%s%s", how, list, *tail ? "; its output:\n" : "", tail);
      free(how);
      free(tail);
      rc = -1;
    }
  }
  strlist_free(&argv);
  free(list);
  free(log);
  return rc;
}

// A job failure's message: WHY, then the job's stderr (its .log) if it wrote any.
static char *job_failure_message(const Distribution *d, size_t image, char *why) {
  char *log = image_path(d, image, "log");
  char *tail = file_tail(log, RETRY_LOG_TAIL);
  char *msg = format("%s%s%s", why, *tail ? "; its stderr:\n" : " (its stderr was empty)", tail);
  free(tail);
  free(log);
  free(why);
  return msg;
}

int distribution_read(Distribution *d, size_t image, ImageResult *res, StringList *undefined_users,
                      bool *validated, char **image_error, char **job_failure) {
  *image_error = *job_failure = NULL;
  *validated = false;
  char *diag_path = image_path(d, image, "diag"), *text = NULL;
  StringList lines = {0};
  char *why = NULL;
  Buffer files[NUM_CHECKED] = {{0}};
  int rc = read_text(diag_path, &text, NULL);
  if (rc == -ENOENT) {
    why = format("the job left no result (%s)", diag_path);
    goto fail;
  }
  if (rc) {
    why = format("cannot read %s: %s", diag_path, read_error_text(rc));
    goto fail;
  }
  if (!*text) {
    why = format("the job's result %s is empty", diag_path);
    goto fail;
  }
  if (!read_lines(text, &lines) || lines.count < 3 || strcmp(lines.items[0], result_magic) ||
      strcmp(lines.items[lines.count - 1], "end")) {
    why = format("the job's result %s is damaged", diag_path);
    goto fail;
  }
  const char *status = value_of(lines.items[1], "status");
  if (status && !strcmp(status, "error")) {
    const char *message = lines.count > 3 ? value_of(lines.items[2], "message") : NULL;
    if (!message) {
      why = format("the job's result %s is damaged", diag_path);
      goto fail;
    }
    *image_error = xstrdup(message);
    goto done;
  }
  if (!status || strcmp(status, "ok")) {
    why = format("the job's result %s is damaged", diag_path);
    goto fail;
  }
  // Every output the result vouches for must be there, whole, with the size and hash it gave.
  size_t checked = 0;
  for (size_t i = 2; i + 1 < lines.count; i++) {
    const char *v;
    if ((v = value_of(lines.items[i], "undefined"))) {
      strlist_push(undefined_users, xstrdup(v));
      continue;
    }
    if ((v = value_of(lines.items[i], "validated"))) {
      *validated = !strcmp(v, "1");
      continue;
    }
    char name[32], key[CACHE_KEY_SIZE + 1];
    unsigned long long size;
    if (!(v = value_of(lines.items[i], "file")) ||
        sscanf(v, "%31s %llu %65s", name, &size, key) != 3 || checked >= NUM_CHECKED ||
        strcmp(name, checked_outputs[checked])) {
      why = format("the job's result %s is damaged", diag_path);
      goto fail;
    }
    char *path = image_path(d, image, name);
    rc = read_file(path, &files[checked]);
    char actual[CACHE_KEY_SIZE];
    if (!rc) cache_content_key(files[checked].data, files[checked].size, actual);
    if (rc)
      why = format("output %s is missing: %s", path, read_error_text(rc));
    else if (!files[checked].size && !strcmp(name, "spv"))
      why = format("output %s is empty", path);
    else if (files[checked].size != size || strcmp(actual, key))
      why = format("output %s is damaged: not the %llu bytes the job wrote", path, size);
    free(path);
    if (why) goto fail;
    checked++;
  }
  if (checked != NUM_CHECKED) {
    why = format("the job's result %s is damaged", diag_path);
    goto fail;
  }
  res->spirv = files[0];
  files[0] = (Buffer){0};
  buffer_append(&files[1], "", 1);
  char *perr = NULL;
  if (files[1].size > 1 &&
      propsets_from_json((const char *)files[1].data, &res->properties, &perr)) {
    why = format("output %s is damaged: %s", "props.json", perr);
    free(perr);
    goto fail;
  }
  for (size_t f = 2; f < NUM_CHECKED; f++) {
    buffer_append(&files[f], "", 1);
    if (!read_lines((const char *)files[f].data, f == 2 ? &res->symbols : &res->imports)) {
      why = format("output %s of image %zu is damaged", checked_outputs[f], image);
      goto fail;
    }
  }
done:
  for (size_t f = 0; f < NUM_CHECKED; f++)
    free(files[f].data);
  strlist_free(&lines);
  free(text);
  free(diag_path);
  return 0;
fail:
  for (size_t f = 0; f < NUM_CHECKED; f++)
    free(files[f].data);
  free(res->spirv.data);
  res->spirv = (Buffer){0};
  strlist_free(&res->symbols);
  strlist_free(&res->imports);
  strlist_free(undefined_users);
  propsets_free(&res->properties);
  strlist_free(&lines);
  free(text);
  free(diag_path);
  *job_failure = job_failure_message(d, image, why);
  return -1;
}

void distribution_close(Distribution *d) {
  if (!d) return;
  if (d->opts->keep_jobs) {
    note("%s: the jobs' lists, inputs and outputs are kept (--save-temps)", d->dir);
  } else {
    int rc = own_empty_dir(d->dir); // only what this run made: the rest, and it, stay
    if (rc) warning(d->dir, "not removed: %s", strerror(-rc));
  }
  keep_on_success(d->dir);
  free(d->dir);
  free(d->linker_output);
  free(d->compiler);
  free(d);
}

//
// The job's side: `sycl-thinlto backend`
//

typedef struct {
  const char *out_prefix;
  StringList symbols; // for the messages of codegen and check failures
} BackendJob;

static BackendJob *current_job; // the process runs one job

static char *out_path(const BackendJob *job, const char *suffix) {
  return format("%s.%s", job->out_prefix, suffix);
}

static int write_result(const BackendJob *job, const Buffer *text) {
  char *path = out_path(job, "diag");
  int rc = write_file_atomic(path, text->data, text->size);
  if (rc) fprintf(stderr, "%s: error: %s: cannot write: %s\n", TOOL_NAME, path, strerror(-rc));
  free(path);
  return rc ? 1 : 0;
}

// The image's error, as the link reports it; the job itself succeeded.
static int write_error_result(const BackendJob *job, const char *message, bool with_kernels) {
  Buffer b = {0};
  append_line(&b, result_magic, NULL);
  append_line(&b, "status", "error");
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

static __attribute__((noreturn)) void job_fatal_error(const char *message) {
  _exit(current_job ? write_error_result(current_job, message, true) : 1);
}

static Buffer lines_text(const StringList *l) {
  Buffer b = {0};
  for (size_t i = 0; i < l->count; i++) {
    append_escaped(&b, l->items[i]);
    buffer_append(&b, "\n", 1);
  }
  if (!b.data) buffer_append(&b, "", 0);
  return b;
}

// Test-only faults, with SYCL_THINLTO_JOB_FAULT_TEST a comma-separated list of KIND:NAME, NAME
// found in the job's bitcode: kill (the job is killed), kill-once (killed the first time only:
// OUT.fault marks it), damage (its SPIR-V changes after the result is written), empty (an empty
// SPIR-V file), sleep (it waits to be cancelled).
static bool fault_requested(const Buffer *bitcode, const char *kind) {
  const char *test = getenv("SYCL_THINLTO_JOB_FAULT_TEST");
  size_t n = strlen(kind);
  for (const char *entry = test; entry && *entry;) {
    size_t len = strcspn(entry, ",");
    if (len > n + 1 && !strncmp(entry, kind, n) && entry[n] == ':' &&
        memmem(bitcode->data, bitcode->size, entry + n + 1, len - n - 1))
      return true;
    entry += len + (entry[len] == ',');
  }
  return false;
}

static bool first_time(const BackendJob *job) {
  char *marker = out_path(job, "fault");
  int fd = own_create(marker, 0666);
  free(marker);
  if (fd >= 0) close(fd);
  return fd >= 0;
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

// The one rule for outputs (base/outputs.c), before anything is opened: --log=INPUT truncated
// the image it was to read, and -o P with --meta=P.sym wrote the symbols over the spec.
static void check_job_outputs(const BackendJob *job, const char *meta_path,
                              const char *bitcode_path, const char *log_path) {
  output_rule_input(meta_path);
  output_rule_input(bitcode_path);
  if (log_path) check_output_path(log_path, "--log");
  for (size_t i = 0; i <= NUM_CHECKED; i++) {
    char *path = out_path(job, i < NUM_CHECKED ? checked_outputs[i] : "diag");
    check_output_path(path, "-o");
    free(path);
  }
}

int backend_job_main(const char *meta_path, const char *bitcode_path, const char *out_prefix,
                     const char *log_path) {
  BackendJob job = {.out_prefix = out_prefix};
  check_job_outputs(&job, meta_path, bitcode_path, log_path);
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
  ImageSpec spec;
  char *meta, *errmsg = NULL;
  Buffer bitcode;
  int rc = read_text(meta_path, &meta, NULL);
  if (rc) fatal(meta_path, "%s", read_error_text(rc));
  if (parse_spec(meta, &spec)) fatal(meta_path, "not an image spec of this version");
  free(meta);
  if ((rc = read_file(bitcode_path, &bitcode))) fatal(bitcode_path, "%s", read_error_text(rc));
  if (fault_requested(&bitcode, "kill") ||
      (fault_requested(&bitcode, "kill-once") && first_time(&job))) {
    fprintf(stderr, "job fault test: killing the job\n");
    raise(SIGKILL);
  }
  if (fault_requested(&bitcode, "sleep")) sleep(120); // until cancelled

  // Finalization, the symbol table, properties: hooks/backend.c, as in the link.
  LLVMContextRef ctx = context_create();
  LLVMModuleRef m;
  if (module_parse(ctx, bitcode.data, bitcode.size, spec.module_id, false, &m, &errmsg))
    fatal(bitcode_path, "%s", errmsg); // a damaged input: the link tries again
  ImageResult res = {0};
  StringList undefined = {0};
  Buffer linked = {0}, spirv = {0};
  if (finalize_image_module(m, &spec, &errmsg)) {
    LLVMDisposeModule(m);
    context_dispose(ctx);
    return write_error_result(&job, errmsg, false);
  }
  linked = describe_image(m, &spec, &res, &undefined);
  LLVMDisposeModule(m);
  context_dispose(ctx);
  for (size_t i = 0; i < res.symbols.count; i++)
    strlist_push(&job.symbols, xstrdup(res.symbols.items[i]));

  // SPIR-V in this process, once (fact 9), then what the link's check step does.
  current_job = &job;
  spirv_on_fatal_error(job_fatal_error);
  if (spirv_emit_bitcode(linked.data, linked.size, &spirv, &errmsg) ||
      spirv_fix_null_integers(&spirv, &errmsg))
    return write_error_result(&job, errmsg, true);
  StringList exports = {0};
  if (spirv_linkage(spirv.data, spirv.size, &res.imports, &exports, &errmsg))
    return write_error_result(&job, errmsg, true);
  strlist_free(&exports);
  bool validated = spec.validate && !has_undefined_imports(&spec, &res.imports);
  if (validated && spirv_validate(&spirv, &errmsg)) return write_error_result(&job, errmsg, true);

  // The outputs, each whole; the result last, vouching for them.
  char *props = res.properties.count ? propsets_to_json(&res.properties) : xstrdup("");
  Buffer sym = lines_text(&res.symbols), imports = lines_text(&res.imports);
  Buffer outputs[NUM_CHECKED] = {spirv, {(uint8_t *)props, strlen(props), false}, sym, imports};
  Buffer result = {0};
  append_line(&result, result_magic, NULL);
  append_line(&result, "status", "ok");
  append_line(&result, "validated", validated ? "1" : "0");
  for (size_t i = 0; i < NUM_CHECKED; i++) {
    char key[CACHE_KEY_SIZE];
    cache_content_key(outputs[i].data, outputs[i].size, key);
    char *path = out_path(&job, checked_outputs[i]);
    rc = write_file_atomic(path, outputs[i].data, outputs[i].size);
    if (rc) fatal(path, "cannot write: %s", strerror(-rc));
    free(path);
    char *line = format("%s %zu %s", checked_outputs[i], outputs[i].size, key);
    append_line(&result, "file", line);
    free(line);
  }
  for (size_t i = 0; i < undefined.count; i++)
    append_line(&result, "undefined", undefined.items[i]);
  append_line(&result, "end", NULL);
  rc = write_result(&job, &result);
  if (!rc && (fault_requested(&bitcode, "damage") || fault_requested(&bitcode, "empty"))) {
    char *path = out_path(&job, "spv");
    bool empty = fault_requested(&bitcode, "empty");
    if (!empty) spirv.data[spirv.size / 2] ^= 0xff;
    write_file_atomic(path, spirv.data, empty ? 0 : spirv.size);
    free(path);
  }
  for (size_t i = 0; i < NUM_CHECKED; i++)
    free(outputs[i].data);
  free(result.data);
  free(linked.data);
  free(bitcode.data);
  strlist_free(&undefined);
  strlist_free(&res.symbols);
  strlist_free(&res.imports);
  strlist_free(&job.symbols);
  propsets_free(&res.properties);
  image_spec_free(&spec);
  return rc;
}
