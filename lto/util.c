// Diagnostics, memory, files and a string map shared by every stage.
// Nothing here knows about LLVM or SYCL.
#include "sycl_thinlto.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool verbose;
const char *tool_name = TOOL_NAME;

// Errors may be recorded by worker threads; the count and stderr are shared.
static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;
static int errors;

static void vreport(const char *kind, const char *what, const char *fmt, va_list ap) {
  pthread_mutex_lock(&diag_lock);
  if (what)
    fprintf(stderr, "%s: %s: %s: ", tool_name, kind, what);
  else
    fprintf(stderr, "%s: %s: ", tool_name, kind);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  pthread_mutex_unlock(&diag_lock);
}

void error(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error", what, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&diag_lock);
  errors++;
  pthread_mutex_unlock(&diag_lock);
}

void warning(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("warning", what, fmt, ap);
  va_end(ap);
}

void inform(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("note", what, fmt, ap);
  va_end(ap);
}

void note(const char *fmt, ...) {
  if (!verbose) return;
  va_list ap;
  va_start(ap, fmt);
  vreport("note", NULL, fmt, ap);
  va_end(ap);
}

int error_count(void) {
  pthread_mutex_lock(&diag_lock);
  int n = errors;
  pthread_mutex_unlock(&diag_lock);
  return n;
}

void remove_files_in(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
    char *file = format("%s/%s", dir, e->d_name);
    unlink(file);
    free(file);
  }
  if (d) closedir(d);
}

static __attribute__((noreturn)) void exit_failure(void) {
  wait_while_ending();
  remove_failure_paths();
  exit(1);
}

void (*fatal_hook)(void);

__attribute__((noreturn)) void fatal(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error", what, fmt, ap);
  va_end(ap);
  if (fatal_hook) fatal_hook(); // a fuzz target's longjmp: the input was refused
  exit_failure();
}

void exit_on_errors(void) {
  if (error_count()) exit_failure();
}

__attribute__((noreturn)) void die_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: internal error at %s:%d: ", tool_name, file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  reading_input_end(); // ours, not the input's: the SIGABRT handler says internal error
  abort();
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory (%zu bytes)", n);
  return p;
}

void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) die("out of memory (%zu x %zu bytes)", n, size);
  return p;
}

void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) die("out of memory (%zu bytes)", n);
  return p;
}

char *xstrdup(const char *s) {
  return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) die("out of memory");
  va_end(ap);
  return s;
}

void strlist_push(StringList *l, char *s) {
  if (l->count == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 8;
    l->items = xrealloc(l->items, l->cap * sizeof(char *));
  }
  l->items[l->count++] = s;
}

bool strlist_contains(const StringList *l, const char *s) {
  for (size_t i = 0; i < l->count; i++)
    if (!strcmp(l->items[i], s)) return true;
  return false;
}

void strlist_free(StringList *l) {
  for (size_t i = 0; i < l->count; i++)
    free(l->items[i]);
  free(l->items);
  *l = (StringList){0};
}

char *strlist_join(const StringList *l, const char *sep) {
  Buffer b = {0};
  for (size_t i = 0; i < l->count; i++) {
    if (i) buffer_append(&b, sep, strlen(sep));
    buffer_append(&b, l->items[i], strlen(l->items[i]));
  }
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

void strlist_split_commas(StringList *out, const char *list) {
  for (const char *p = list; *p;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (n) strlist_push(out, xstrndup(p, n));
    p += n + (comma != NULL);
  }
}

const char *option_value(int argc, char **argv, int *i, const char *arg, const char *name) {
  size_t n = strlen(name);
  if (arg[0] != '-') return NULL;
  arg += arg[1] == '-' ? 2 : 1;
  if (strncmp(arg, name, n)) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != 0) return NULL;
  if (*i + 1 >= argc) fatal(NULL, "option '--%s' needs a value", name);
  return argv[++*i];
}

void buffer_append(Buffer *b, const void *data, size_t n) {
  b->data = xrealloc(b->data, b->size + n);
  memcpy(b->data + b->size, data, n);
  b->size += n;
}

int read_file(const char *path, Buffer *out) {
  // Non-blocking, so that opening a FIFO nobody writes to does not wait forever; reads block
  // again below, and such a FIFO reads as empty.
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
    int e = -errno;
    close(fd);
    return e;
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return -EISDIR;
  }
  // A device has no end to read to (/dev/zero, /dev/urandom) or is nobody's input file.
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    close(fd);
    return -ENODEV;
  }
  // CAP + 1 bytes: reading a regular file to its end, at exactly st_size, needs no growth.
  size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size : 65536, size = 0;
  uint8_t *data = xmalloc(cap + 1);
  for (;;) {
    if (size == cap + 1) data = xrealloc(data, (cap = cap * 2 + 1) + 1);
    ssize_t n = read(fd, data + size, cap + 1 - size);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = -errno;
      free(data);
      close(fd);
      return e;
    }
    if (n == 0) break;
    size += n;
  }
  close(fd);
  *out = (Buffer){data, size, false};
  return 0;
}

const char *read_error_text(int rc) {
  return rc == -ENODEV ? "a device, not a file" : strerror(-rc);
}

bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int map_file(const char *path, Buffer *out) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -errno;
  struct stat st;
  int rc = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) || !st.st_size ? -EINVAL : 0;
  void *data = rc ? MAP_FAILED : mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (!rc && data == MAP_FAILED) rc = -errno;
  close(fd);
  if (rc) return rc;
  *out = (Buffer){data, (size_t)st.st_size, true};
  return 0;
}

void buffer_free(Buffer *b) {
  if (b->mapped)
    munmap(b->data, b->size);
  else
    free(b->data);
  *b = (Buffer){0};
}

void buffer_drop_pages(const Buffer *b) {
  if (b->mapped) madvise(b->data, b->size, MADV_DONTNEED);
}

// Writes to an existing non-regular file (/dev/null, a FIFO, a terminal) in place: renaming
// over it would replace the device node itself.
static int write_all(int fd, const void *data, size_t size) {
  const uint8_t *p = data;
  while (size) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    p += n;
    size -= n;
  }
  return 0;
}

int atomic_open(AtomicFile *f, const char *path) {
  static atomic_uint serial; // distinct temporary names for concurrent writers of one path
  struct stat st;
  *f = (AtomicFile){.fd = -1, .path = xstrdup(path)};
  // An existing non-regular file (/dev/null, a FIFO, a terminal) is written in place:
  // renaming over it would replace the device node itself.
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    f->fd = open(path, O_WRONLY | O_TRUNC);
  } else {
    f->tmp = format("%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&serial, 1));
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (f->fd >= 0) remove_on_failure(f->tmp);
  }
  if (f->fd < 0) {
    int e = -errno;
    atomic_abort(f);
    return e;
  }
  return 0;
}

int atomic_write(AtomicFile *f, const void *data, size_t size) {
  if (!f->error) f->error = write_all(f->fd, data, size);
  return f->error;
}

int atomic_commit(AtomicFile *f) {
  int e = f->error;
  if (close(f->fd) < 0 && !e) e = -errno;
  f->fd = -1;
  if (!e && ending_by_signal()) e = -EINTR; // the signal's handler is removing f->tmp
  if (!e && f->tmp && rename(f->tmp, f->path) < 0) e = -errno;
  if (e) {
    atomic_abort(f);
    return e;
  }
  if (f->tmp) keep_on_success(f->tmp);
  free(f->tmp);
  free(f->path);
  *f = (AtomicFile){.fd = -1};
  return 0;
}

void atomic_abort(AtomicFile *f) {
  if (f->fd >= 0) close(f->fd);
  if (f->tmp) {
    unlink(f->tmp);
    keep_on_success(f->tmp);
  }
  free(f->tmp);
  free(f->path);
  *f = (AtomicFile){.fd = -1};
}

int write_file_atomic(const char *path, const void *data, size_t size) {
  AtomicFile f;
  int e = atomic_open(&f, path);
  if (e) return e;
  atomic_write(&f, data, size);
  return atomic_commit(&f);
}

void release_free_memory(void) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t hash_string(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

void *strmap_get(const StrMap *m, const char *key) {
  if (!m->cap) return NULL;
  for (size_t i = hash_string(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (!m->keys[i]) return NULL;
    if (!strcmp(m->keys[i], key)) return m->values[i];
  }
}

void strmap_put(StrMap *m, const char *key, void *value) {
  if ((m->count + 1) * 2 > m->cap) {
    StrMap bigger = {.cap = m->cap ? m->cap * 2 : 64};
    bigger.keys = xcalloc(bigger.cap, sizeof(char *));
    bigger.values = xcalloc(bigger.cap, sizeof(void *));
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i]) {
        strmap_put(&bigger, m->keys[i], m->values[i]);
        free(m->keys[i]);
      }
    free(m->keys);
    free(m->values);
    *m = bigger;
  }
  for (size_t i = hash_string(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (!m->keys[i]) {
      m->keys[i] = xstrdup(key);
      m->values[i] = value;
      m->count++;
      return;
    }
    if (!strcmp(m->keys[i], key)) {
      m->values[i] = value;
      return;
    }
  }
}

void strmap_free(StrMap *m) {
  for (size_t i = 0; i < m->cap; i++)
    free(m->keys[i]);
  free(m->keys);
  free(m->values);
  *m = (StrMap){0};
}

typedef struct {
  size_t n, next;
  void (*fn)(void *, size_t);
  void *arg;
  uv_mutex_t lock;
} ParallelFor;

static void parallel_worker(void *p) {
  ParallelFor *pf = p;
  signal_stack_begin(); // a crash reading an input here must still be reported
  for (;;) {
    uv_mutex_lock(&pf->lock);
    size_t i = pf->next++;
    uv_mutex_unlock(&pf->lock);
    if (i >= pf->n) break;
    pf->fn(pf->arg, i);
  }
  signal_stack_end();
}

void parallel_for(size_t n, int jobs, void (*fn)(void *arg, size_t i), void *arg) {
  ParallelFor pf = {.n = n, .fn = fn, .arg = arg};
  if (jobs < 1) jobs = 1;
  if ((size_t)jobs > n) jobs = (int)n;
  if (jobs <= 1) {
    for (size_t i = 0; i < n; i++)
      fn(arg, i);
    return;
  }
  if (uv_mutex_init(&pf.lock)) die("uv_mutex_init failed");
  uv_thread_t *threads = xcalloc(jobs, sizeof(uv_thread_t));
  // Big modules need deep stacks in LLVM's recursive passes.
  uv_thread_options_t options = {.flags = UV_THREAD_HAS_STACK_SIZE, .stack_size = 16 << 20};
  for (int t = 0; t < jobs; t++)
    if (uv_thread_create_ex(&threads[t], &options, parallel_worker, &pf))
      die("cannot start a thread");
  for (int t = 0; t < jobs; t++)
    uv_thread_join(&threads[t]);
  free(threads);
  uv_mutex_destroy(&pf.lock);
}

// 0 is no "all cores" here: leaving -j out says that; a zero or negative count is a mistake.
int parse_jobs(const char *option, const char *text) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (!*text || *end || errno || v < 1 || v > MAX_JOBS)
    fatal(NULL, "%s: expected a number of jobs from 1 to %d, not '%s'", option, MAX_JOBS, text);
  return (int)v;
}

int replace_file(const char *tmp, const char *path) {
  struct stat st;
  if (stat(path, &st) < 0 || S_ISREG(st.st_mode)) return rename(tmp, path) < 0 ? -errno : 0;
  Buffer b;
  int rc = read_file(tmp, &b);
  if (rc == 0) {
    rc = write_file_atomic(path, b.data, b.size); // written in place: PATH is not regular
    free(b.data);
  }
  unlink(tmp);
  return rc;
}
