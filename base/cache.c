// The incremental cache: entries addressed by a BLAKE3 key, written atomically, checked on
// read (a corrupt, truncated or foreign entry is a miss), pruned by an lld-style policy. It
// does not decide what goes into a key; the stages that use it do.
#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Core.h>
#include <llvm-c/blake3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// Entry layout: magic, format version, payload size, BLAKE3 of the kind, key and payload,
// payload. With the kind and key in the hash, an entry copied or renamed to another key (or
// another kind's name) is a miss, not another module's data.
static const char entry_magic[8] = {'S', 'T', 'L', 'C', 'A', 'C', 'H', 'E'};
enum { ENTRY_VERSION = 2, HASH_SIZE = 32, HEADER_SIZE = 8 + 4 + 8 + HASH_SIZE };

void cache_hash_init(CacheHasher *h) {
  llvm_blake3_hasher_init((llvm_blake3_hasher *)h->state);
}

void cache_hash_update(CacheHasher *h, const void *data, size_t size) {
  // Lengths go in first: ("ab","c") and ("a","bc") must not give the same key.
  uint64_t n = size;
  llvm_blake3_hasher_update((llvm_blake3_hasher *)h->state, &n, sizeof n);
  llvm_blake3_hasher_update((llvm_blake3_hasher *)h->state, data, size);
}

void cache_hash_string(CacheHasher *h, const char *s) {
  cache_hash_update(h, s, strlen(s));
}

void cache_hash_final(CacheHasher *h, char key[CACHE_KEY_SIZE]) {
  uint8_t digest[HASH_SIZE];
  llvm_blake3_hasher_finalize((llvm_blake3_hasher *)h->state, digest, sizeof digest);
  for (int i = 0; i < HASH_SIZE; i++)
    snprintf(key + 2 * i, 3, "%02x", digest[i]);
}

void cache_hash_tool(CacheHasher *h, const char *what) {
  // The libLLVM this process runs, not the headers it was built with: a library upgraded
  // under an installed sycl-thinlto may optimize or emit differently.
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  char *tag =
      format("%s sycl-thinlto %s LLVM %u.%u.%u", what, SYCL_THINLTO_VERSION, major, minor, patch);
  cache_hash_string(h, tag);
  free(tag);
}

void cache_content_key(const void *data, size_t size, char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_update(&h, data, size);
  cache_hash_final(&h, key);
}

void cache_derived_key(const char *what, const char *content_key, char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, what);
  cache_hash_string(&h, content_key);
  cache_hash_final(&h, key);
}

static void digest_of(const char *kind, const char *key, const void *data, size_t size,
                      uint8_t out[HASH_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_string(&h, kind);
  cache_hash_string(&h, key);
  cache_hash_update(&h, data, size);
  llvm_blake3_hasher_finalize((llvm_blake3_hasher *)h.state, out, HASH_SIZE);
}

int cache_entry_payload(const char *kind, const char *key, const uint8_t *data, size_t size,
                        size_t *payload_size) {
  uint64_t n;
  uint32_t version;
  uint8_t digest[HASH_SIZE];
  if (size < HEADER_SIZE || memcmp(data, entry_magic, 8)) return -1;
  memcpy(&version, data + 8, 4);
  memcpy(&n, data + 12, 8);
  if (version != ENTRY_VERSION || n != size - HEADER_SIZE) return -1;
  digest_of(kind, key, data + HEADER_SIZE, n, digest);
  if (memcmp(digest, data + 20, HASH_SIZE)) return -1;
  *payload_size = n;
  return HEADER_SIZE;
}

static char *entry_path(const Cache *c, const char *kind, const char *key) {
  return format("%s/%s-%s", c->dir, kind, key);
}

// A decimal count of digits only (strtoull alone takes "-1" as 2^64-1, and blanks and '+'),
// times SCALE, at most INT64_MAX (durations and sizes are compared with signed times and
// file sizes): *end is what follows the digits. 0, or -1 if negative, empty or too large.
static int parse_count(const char *text, uint64_t scale, uint64_t *value, const char **end) {
  const char *p = text;
  uint64_t v = 0;
  for (; *p >= '0' && *p <= '9'; p++)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
      return -1;
  if (p == text || __builtin_mul_overflow(v, scale, &v) || v > INT64_MAX) return -1;
  *value = v;
  *end = p;
  return 0;
}

static int parse_duration(const char *text, uint64_t *seconds) {
  const char *digits_end = text + strspn(text, "0123456789");
  uint64_t scale;
  switch (*digits_end) {
  case 's':
    scale = 1;
    break;
  case 'm':
    scale = 60;
    break;
  case 'h':
    scale = 3600;
    break;
  case 'd':
    scale = 86400;
    break;
  default:
    return -1;
  }
  const char *end;
  if (digits_end[1] || parse_count(text, scale, seconds, &end)) return -1;
  return 0;
}

static int parse_size(const char *text, uint64_t *bytes) {
  const char *digits_end = text + strspn(text, "0123456789");
  static const char units[] = "bkmg";
  const char *u = *digits_end ? strchr(units, *digits_end | 0x20) : units;
  if (!u || !*u || (*digits_end && digits_end[1])) return -1;
  uint64_t scale = 1;
  for (; u > units; u--)
    scale *= 1024;
  const char *end;
  return parse_count(text, scale, bytes, &end);
}

// lld's spelling: prune_after=24h:cache_size_bytes=1g:cache_size_files=1000:prune_interval=20m
int cache_parse_policy(const char *text, CachePolicy *p, char **errmsg) {
  *p = (CachePolicy){.prune_after = 7 * 86400, .prune_interval = 1200};
  char *copy = xstrdup(text);
  int rc = 0;
  for (char *save, *item = strtok_r(copy, ":", &save); item; item = strtok_r(NULL, ":", &save)) {
    char *eq = strchr(item, '=');
    if (!eq) goto bad;
    *eq = 0;
    const char *v = eq + 1;
    if (!strcmp(item, "prune_after")) {
      if (parse_duration(v, &p->prune_after)) goto bad;
    } else if (!strcmp(item, "prune_interval")) {
      if (parse_duration(v, &p->prune_interval)) goto bad;
    } else if (!strcmp(item, "cache_size_bytes")) {
      if (parse_size(v, &p->max_bytes)) goto bad;
    } else if (!strcmp(item, "cache_size_files")) {
      const char *end;
      if (parse_count(v, 1, &p->max_files, &end) || *end) goto bad;
    } else {
      goto bad;
    }
    continue;
  bad:
    if (eq) *eq = '='; // name the whole item
    *errmsg = format("invalid cache policy item '%s' (expected prune_after=DUR, "
                     "prune_interval=DUR, cache_size_bytes=SIZE or cache_size_files=N)",
                     item);
    rc = -1;
    break;
  }
  free(copy);
  return rc;
}

int cache_open(Cache *c, const char *dir, const CachePolicy *policy, char **errmsg) {
  if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
    *errmsg = format("cannot create the cache directory: %s", strerror(errno));
    return -1;
  }
  struct stat st;
  if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
    *errmsg = xstrdup("the cache path is not a directory");
    return -1;
  }
  // access() says yes to root, and to directories of /proc or /sys that take no files: a
  // file is made and removed instead, so that an unusable cache stops the link now.
  char *probe = format("%s/.probe.%ld", dir, (long)getpid());
  int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  int e = fd < 0 ? errno : 0;
  if (fd >= 0) close(fd), unlink(probe);
  free(probe);
  if (e) {
    *errmsg = format("cannot write to the cache directory: %s", strerror(e));
    return -1;
  }
  char *lto = format("%s/thinlto", dir); // libLTO's entries (lto/thinlto.c)
  e = mkdir(lto, 0777) < 0 && errno != EEXIST ? errno : 0;
  bool is_dir = stat(lto, &st) == 0 && S_ISDIR(st.st_mode);
  free(lto);
  if (e || !is_dir) {
    *errmsg = e ? format("cannot create the cache directory's thinlto/: %s", strerror(e))
                : xstrdup("the cache directory's thinlto/ is not a directory");
    return -1;
  }
  c->dir = xstrdup(dir);
  c->policy = *policy;
  return 0;
}

// Thread-safe: every call works on its own file; the rename makes writes atomic.
int cache_get(const Cache *c, const char *kind, const char *key, Buffer *value) {
  char *path = entry_path(c, kind, key);
  struct stat st;
  Buffer b;
  // Only a regular file is read: a FIFO in the cache would block the link.
  if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || read_file(path, &b)) {
    free(path);
    return -1;
  }
  size_t size;
  int at = cache_entry_payload(kind, key, b.data, b.size, &size);
  if (at < 0) {
    // Corrupt, truncated, foreign or another key's: a miss; the caller's cache_put replaces it.
    note("cache: ignoring damaged entry %s", path);
    free(b.data);
    free(path);
    return -1;
  }
  memmove(b.data, b.data + at, size); // the payload, in the buffer it was read into
  *value = (Buffer){b.data, size, false};
  free(path);
  return 0;
}

// Not write_file_atomic: whatever is at PATH (a FIFO, a directory) is replaced or the write
// fails; it is never written in place.
static int write_entry(const char *path, const Buffer *b) {
  static atomic_uint serial;
  // Unique across hosts: a cache on a shared file system has writers on several (issue 26).
  char *tmp = format("%s.tmp.%s.%ld.%u", path, host_name(), (long)getpid(),
                     atomic_fetch_add(&serial, 1));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666), rc = 0;
  if (fd < 0) {
    rc = -errno;
    free(tmp);
    return rc;
  }
  remove_on_failure(tmp);
  for (size_t done = 0; done < b->size && !rc;) {
    ssize_t n = write(fd, b->data + done, b->size - done);
    if (n < 0 && errno != EINTR) rc = -errno;
    if (n > 0) done += n;
  }
  if (close(fd) < 0 && !rc) rc = -errno;
  if (!rc && rename(tmp, path) < 0) rc = -errno;
  if (rc) unlink(tmp);
  keep_on_success(tmp);
  free(tmp);
  return rc;
}

int cache_put(const Cache *c, const char *kind, const char *key, const Buffer *value) {
  Buffer b = {0};
  uint32_t version = ENTRY_VERSION;
  uint64_t size = value->size;
  uint8_t digest[HASH_SIZE];
  digest_of(kind, key, value->data, value->size, digest);
  buffer_append(&b, entry_magic, 8);
  buffer_append(&b, &version, 4);
  buffer_append(&b, &size, 8);
  buffer_append(&b, digest, HASH_SIZE);
  buffer_append(&b, value->data, value->size);
  char *path = entry_path(c, kind, key);
  int rc = write_entry(path, &b);
  free(path);
  free(b.data);
  return rc;
}

void cache_store(const Cache *c, const char *kind, const char *key, const Buffer *value) {
  static atomic_bool warned; // once per link: a full disk fails every entry
  int rc = cache_put(c, kind, key, value);
  if (rc && !atomic_exchange(&warned, true)) {
    char *path = entry_path(c, kind, key);
    warning(path,
            "cannot write the cache entry: %s; the link goes on without storing it (and "
            "others it cannot write)",
            strerror(-rc));
    free(path);
  }
}

typedef struct {
  char *path;
  time_t used;
  uint64_t size;
} EntryInfo;

static int by_oldest(const void *a, const void *b) {
  const EntryInfo *x = a, *y = b;
  if (x->used != y->used) return x->used < y->used ? -1 : 1;
  return strcmp(x->path, y->path);
}

// A temporary (a name with a '.': ours "KIND-KEY.tmp.HOST.PID.N", libLTO's
// "llvmcache-KEY.temp-stream-X") older than this was left by a link that was killed; a
// younger one is being written by a concurrent link and is not touched.
enum { STALE_TEMPORARY = 86400 };

// Removes the entries of DIR ("KIND-KEY" files) unused for longer than prune_after, then the
// oldest ones until DIR fits the size limits.
static void prune_dir(const Cache *c, const char *dir, time_t now) {
  DIR *d = opendir(dir);
  if (!d) return;
  EntryInfo *entries = NULL;
  size_t n = 0, cap = 0;
  uint64_t total = 0;
  struct stat st;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || !strchr(e->d_name, '-')) continue;
    char *path = format("%s/%s", dir, e->d_name);
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
      free(path);
      continue;
    }
    time_t used = st.st_atime > st.st_mtime ? st.st_atime : st.st_mtime;
    bool temporary = strchr(e->d_name, '.') != NULL;
    if (temporary || (uint64_t)(now - used) > c->policy.prune_after) {
      if (!temporary || now - st.st_mtime > STALE_TEMPORARY) unlink(path);
      free(path);
      continue;
    }
    if (n == cap) entries = xrealloc(entries, (cap = cap ? cap * 2 : 64) * sizeof *entries);
    entries[n++] = (EntryInfo){path, used, (uint64_t)st.st_size};
    total += st.st_size;
  }
  closedir(d);
  if (n) qsort(entries, n, sizeof *entries, by_oldest);
  size_t first = 0;
  while (first < n && ((c->policy.max_bytes && total > c->policy.max_bytes) ||
                       (c->policy.max_files && n - first > c->policy.max_files))) {
    unlink(entries[first].path);
    total -= entries[first].size;
    first++;
  }
  for (size_t i = 0; i < n; i++)
    free(entries[i].path);
  free(entries);
}

// Prunes our entries, then libLTO's (DIR/thinlto), each directory on its own by the policy.
// Runs at most once per prune_interval (a stamp file records when).
void cache_prune(const Cache *c) {
  char *stamp = format("%s/.last-prune", c->dir);
  struct stat st;
  time_t now = time(NULL);
  if (stat(stamp, &st) == 0 && (uint64_t)(now - st.st_mtime) < c->policy.prune_interval) {
    free(stamp);
    return;
  }
  FILE *f = fopen(stamp, "w");
  if (f) fclose(f);
  free(stamp);
  prune_dir(c, c->dir, now);
  char *lto = format("%s/thinlto", c->dir);
  prune_dir(c, lto, now);
  free(lto);
}

// Entries' payloads are sequences of records: a u64 length and that many bytes; a list of
// strings is a u64 count and one record per string.
void record_put(Buffer *b, const void *data, size_t size) {
  uint64_t n = size;
  buffer_append(b, &n, sizeof n);
  buffer_append(b, data, size);
}

void record_put_strings(Buffer *b, const StringList *l) {
  uint64_t n = l->count;
  buffer_append(b, &n, sizeof n);
  for (size_t i = 0; i < l->count; i++)
    record_put(b, l->items[i], strlen(l->items[i]));
}

static bool take_u64(RecordReader *r, uint64_t *n) {
  if (r->bad || (size_t)(r->end - r->p) < sizeof *n) return !(r->bad = true);
  memcpy(n, r->p, sizeof *n);
  r->p += sizeof *n;
  return true;
}

const uint8_t *record_get(RecordReader *r, size_t *size) {
  uint64_t n;
  if (!take_u64(r, &n)) return NULL;
  if ((uint64_t)(r->end - r->p) < n) {
    r->bad = true;
    return NULL;
  }
  const uint8_t *data = r->p;
  r->p += n;
  *size = n;
  return data;
}

char *record_get_string(RecordReader *r) {
  size_t n;
  const uint8_t *data = record_get(r, &n);
  return data ? xstrndup((const char *)data, n) : NULL;
}

bool record_get_strings(RecordReader *r, StringList *l) {
  uint64_t n;
  if (!take_u64(r, &n)) return false;
  for (uint64_t i = 0; i < n && !r->bad; i++) {
    char *s = record_get_string(r);
    if (s) strlist_push(l, s);
  }
  return !r->bad;
}
