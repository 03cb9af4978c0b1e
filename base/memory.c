// Memory that never comes back NULL (or is bad input's fault), the ceiling on memory while
// inputs are read, formatted strings, string lists, byte buffers and the string map. Nothing
// here knows about LLVM.
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void out_of_memory(const char *what) {
  const char *input = reading_input_now();
  if (input)
    fatal(input, "out of memory reading it (%s): a malformed input can ask for more memory "
                 "than there is, or than the limit for reading inputs allows",
          what);
  fatal(NULL, "out of memory (%s)", what);
}

//
// The ceiling while inputs are read. LLVM's bitcode reader sizes arrays by counts read from
// the input: one bit changed in a 2.6 KB module made it ask for 8 GB (and fill them), or
// 34 GB. RLIMIT_DATA (private writable memory: the heap, not the mapped libraries or files)
// is lowered while the reading stages run to what was in use, plus a floor, plus a multiple
// of the bytes read; an allocation past it fails, and out_of_memory names the input.
// Sanitizer builds map terabytes of shadow memory that RLIMIT_DATA would count: no ceiling.
//

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NO_MEMORY_CEILING 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define NO_MEMORY_CEILING 1
#endif
#endif

enum { READ_MEMORY_FLOOR_MB = 2048, READ_MEMORY_PER_BYTE = 64 };

static struct rlimit saved_data_limit;
static bool ceiling_set;

#ifndef NO_MEMORY_CEILING
// VmData of /proc/self/status, in bytes; 0 if it cannot be read.
static uint64_t data_in_use(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmData: %llu kB", &kb) == 1) break;
  if (f) fclose(f);
  return (uint64_t)kb << 10;
}
#endif

void read_memory_ceiling_begin(uint64_t input_bytes) {
#ifndef NO_MEMORY_CEILING
  if (ceiling_set || getrlimit(RLIMIT_DATA, &saved_data_limit) < 0) return;
  uint64_t in_use = data_in_use();
  if (!in_use) return;
  uint64_t extra = (uint64_t)READ_MEMORY_FLOOR_MB << 20;
  extra += input_bytes > UINT64_MAX / 4 / READ_MEMORY_PER_BYTE ? UINT64_MAX / 4
                                                               : input_bytes * READ_MEMORY_PER_BYTE;
  struct rlimit lower = saved_data_limit;
  if (lower.rlim_cur != RLIM_INFINITY && lower.rlim_cur <= in_use + extra) return;
  lower.rlim_cur = in_use + extra;
  ceiling_set = setrlimit(RLIMIT_DATA, &lower) == 0;
#else
  (void)input_bytes;
#endif
}

void read_memory_ceiling_end(void) {
  if (ceiling_set) setrlimit(RLIMIT_DATA, &saved_data_limit);
  ceiling_set = false;
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    char what[64];
    snprintf(what, sizeof what, "%zu bytes", n);
    out_of_memory(what);
  }
  return p;
}

void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) {
    char what[64];
    snprintf(what, sizeof what, "%zu x %zu bytes", n, size);
    out_of_memory(what);
  }
  return p;
}

void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) {
    char what[64];
    snprintf(what, sizeof what, "%zu bytes", n);
    out_of_memory(what);
  }
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

void buffer_append(Buffer *b, const void *data, size_t n) {
  b->data = xrealloc(b->data, b->size + n);
  memcpy(b->data + b->size, data, n);
  b->size += n;
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

// KEY (not in M) goes into M's table as it is: owned by M from now on.
static void take_key(StrMap *m, char *key, void *value) {
  size_t i = hash_string(key) & (m->cap - 1);
  while (m->keys[i])
    i = (i + 1) & (m->cap - 1);
  m->keys[i] = key;
  m->values[i] = value;
  m->count++;
}

// M's table made CAP entries (a power of two, more than twice its count); its keys move.
static void regrow(StrMap *m, size_t cap) {
  StrMap bigger = {.cap = cap};
  bigger.keys = xcalloc(bigger.cap, sizeof(char *));
  bigger.values = xcalloc(bigger.cap, sizeof(void *));
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i]) take_key(&bigger, m->keys[i], m->values[i]);
  free(m->keys);
  free(m->values);
  *m = bigger;
}

void strmap_reserve(StrMap *m, size_t count) {
  size_t cap = m->cap ? m->cap : 64;
  while ((count + 1) * 2 > cap)
    cap *= 2;
  if (cap > m->cap) regrow(m, cap);
}

void strmap_put(StrMap *m, const char *key, void *value) {
  if ((m->count + 1) * 2 > m->cap) regrow(m, m->cap ? m->cap * 2 : 64);
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
