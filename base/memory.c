// Memory that never comes back NULL, formatted strings, string lists, byte buffers and the
// string map. Nothing here touches files or knows about LLVM.
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
