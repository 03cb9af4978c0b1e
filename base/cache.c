// The incremental cache: entries addressed by a key, one file each, written atomically into
// 256 folders, checked on every read (a corrupt, truncated or foreign entry is a miss), pruned
// by an lld-style policy. It does not decide what goes into a key; the stages that use it do.
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
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

// An entry is one file: the payload, then a trailer of the BLAKE3 of the kind, key and
// payload, the payload's size, the format version and a magic. With the kind and key in the
// hash, an entry copied or renamed to another key (or another kind's name) is a miss, not
// another module's data. The trailer comes last so that libLTO, which hands back a cached
// result as the file it is, gives us the payload at offset 0 (lto/thinlto.c).
static const char entry_magic[8] = {'S', 'T', 'L', 'C', 'A', 'C', 'H', 'E'};
enum { ENTRY_VERSION = 5, HASH_SIZE = 32, TRAILER_SIZE = HASH_SIZE + 8 + 4 + 8 };

// The layout: DIR/CACHEDIR.TAG, DIR/ENTRIES_FOLDER/XX/KIND-KEY with XX the key's first two
// hex digits in lower case (256 folders: concurrent writers rarely meet in one), and the
// links' private folders DIR/ENTRIES_FOLDER/link-XXXXXX, one of which a link leaves as
// DIR/ENTRIES_FOLDER/libLTO-kept for the next (lto/thinlto.c). The folder's name
// carries ENTRY_VERSION: a layout or format change starts in a folder of its own.
#define ENTRIES_FOLDER "sycl-thinlto-5"
enum { NUM_SHARDS = 256 };
static const char tag_signature[] = "Signature: 8a477f597d28d172789f06886806bc55";
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

// The BLAKE3 of the kind, the key and the payload, which may come in parts (their
// concatenation is hashed as one string).
static void digest_of_parts(const char *kind, const char *key, const Buffer *parts, int n,
                            uint8_t out[HASH_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_string(&h, kind);
  cache_hash_string(&h, key);
  uint64_t total = 0;
  for (int i = 0; i < n; i++)
    total += parts[i].size;
  llvm_blake3_hasher *b = (llvm_blake3_hasher *)h.state;
  llvm_blake3_hasher_update(b, &total, sizeof total); // as cache_hash_update's length
  for (int i = 0; i < n; i++)
    llvm_blake3_hasher_update(b, parts[i].data, parts[i].size);
  llvm_blake3_hasher_finalize(b, out, HASH_SIZE);
}

static void digest_of(const char *kind, const char *key, const void *data, size_t size,
                      uint8_t out[HASH_SIZE]) {
  digest_of_parts(kind, key, &(Buffer){(uint8_t *)data, size, false}, 1, out);
}

static void make_trailer(const char *kind, const char *key, const Buffer *parts, int n,
                         uint8_t out[TRAILER_SIZE]) {
  uint64_t size = 0;
  uint32_t version = ENTRY_VERSION;
  for (int i = 0; i < n; i++)
    size += parts[i].size;
  digest_of_parts(kind, key, parts, n, out);
  memcpy(out + HASH_SIZE, &size, 8);
  memcpy(out + HASH_SIZE + 8, &version, 4);
  memcpy(out + HASH_SIZE + 12, entry_magic, 8);
}

int cache_entry_payload(const char *kind, const char *key, const uint8_t *data, size_t size,
                        size_t *payload_size) {
  if (size < TRAILER_SIZE) return -1;
  const uint8_t *t = data + size - TRAILER_SIZE;
  uint64_t n;
  uint32_t version;
  uint8_t digest[HASH_SIZE];
  memcpy(&n, t + HASH_SIZE, 8);
  memcpy(&version, t + HASH_SIZE + 8, 4);
  if (memcmp(t + HASH_SIZE + 12, entry_magic, 8) || version != ENTRY_VERSION ||
      n != size - TRAILER_SIZE)
    return -1;
  digest_of(kind, key, data, n, digest);
  if (memcmp(digest, t, HASH_SIZE)) return -1;
  *payload_size = n;
  return 0;
}

// The length of the entry name NAME begins with ("KIND-KEY": KIND of lower-case letters, KEY
// of 40 hex digits, libLTO's, or 64, ours), or 0. Pruning removes nothing else.
static size_t entry_name_length(const char *name) {
  size_t kind = strspn(name, "abcdefghijklmnopqrstuvwxyz");
  if (!kind || name[kind] != '-') return 0;
  size_t key = strspn(name + kind + 1, "0123456789abcdefABCDEF");
  return key == 40 || key == 64 ? kind + 1 + key : 0;
}

static int hex_value(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                      : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 0;
}

static int shard_of(const char *key) {
  return key[0] ? hex_value(key[0]) << 4 | hex_value(key[1]) : 0;
}

// The folder of KEY's entries, opened once (its descriptor is kept): every later open, rename
// and remove is made relative to it, so that nothing follows a link planted at its name.
// CREATE makes it when missing. A descriptor, or a negative errno.
static int shard_dir(const Cache *c, const char *key, bool create) {
  int i = shard_of(key);
  int fd = __atomic_load_n(&c->shards[i], __ATOMIC_ACQUIRE);
  if (fd >= 0) return fd;
  char name[3];
  snprintf(name, sizeof name, "%02x", i);
  fd = own_open_dir_at(c->root_fd, name, create);
  if (fd < 0) return fd;
  int expected = -1; // another thread may have opened it meanwhile: its descriptor stays
  if (!__atomic_compare_exchange_n(&c->shards[i], &expected, fd, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    close(fd);
    fd = expected;
  }
  return fd;
}

static char *entry_path(const Cache *c, const char *kind, const char *key) {
  return format("%s/%02x/%s-%s", c->root, shard_of(key), kind, key);
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

// Makes DIR and the folders above it that are missing, as ccache and lld do (a fresh
// machine has no ~/.cache). 0, or a negative errno.
static int make_dirs(const char *dir) {
  char *path = xstrdup(dir);
  int rc = 0;
  for (char *p = path + 1;; p++) {
    if (*p && *p != '/') continue;
    char end = *p;
    *p = 0;
    rc = own_mkdir(path, 0777);
    if (rc == -EEXIST) rc = 0;
    *p = end;
    if (!end) break;
    rc = 0; // an upper folder we may not create (/home) may exist; the last one decides
  }
  free(path);
  return rc;
}

// Whether the folder FD holds nothing but "." and ".." (and tags being written beside it by
// a link that opens the same new folder now).
static bool folder_is_empty(int fd) {
  int copy = dup(fd);
  DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
  if (!d) {
    if (copy >= 0) close(copy);
    return false;
  }
  rewinddir(d); // the copy shares FD's position: a listing before this one left it at the end
  bool empty = true;
  for (struct dirent *e; empty && (e = readdir(d));)
    empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            !strncmp(e->d_name, "CACHEDIR.TAG", 12);
  closedir(d);
  return empty;
}

// 1 if DIR (FD) holds a CACHEDIR.TAG with its signature, 0 if it has none, -1 if it holds
// another file of that name.
static int read_tag(int fd) {
  int tag = openat(fd, "CACHEDIR.TAG", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (tag < 0) return errno == ENOENT ? 0 : -1;
  char text[sizeof tag_signature - 1];
  ssize_t n = read(tag, text, sizeof text);
  close(tag);
  return n == (ssize_t)sizeof text && !memcmp(text, tag_signature, sizeof text) ? 1 : -1;
}

// Tags the folder FD: written under a name of this process's, then linked as CACHEDIR.TAG,
// which fails harmlessly if a concurrent link tagged it first. 0, or a negative errno.
static int write_tag(int fd) {
  char *text = format("%s\n# This file is a cache directory tag created by " TOOL_NAME ".\n"
                      "# For information about cache directory tags, see:\n"
                      "#\thttps://bford.info/cachedir/\n",
                      tag_signature);
  char *tmp = NULL;
  int out = own_create_temporary_at(fd, "CACHEDIR.TAG", &tmp);
  int rc = out < 0 ? out : 0;
  if (out >= 0) {
    size_t size = strlen(text);
    if (write(out, text, size) != (ssize_t)size) rc = errno ? -errno : -EIO;
    if (close(out) < 0 && !rc) rc = -errno;
    if (!rc) rc = own_link_at(fd, tmp, fd, "CACHEDIR.TAG");
    if (rc == -EEXIST) rc = 0;
    own_remove_at(fd, tmp, NULL);
  }
  free(tmp);
  free(text);
  return rc;
}

// Marks the entries' folder FD as the top of a hierarchy (ext4's FS_TOPDIR_FL, what `chattr
// +T` sets): the folders made in it (the 256 entry folders, each link's libLTO folder) are
// then spread over the file system's block groups, as the Orlov allocator spreads top-level
// folders, instead of being packed next to it. Where the cache is in a folder beside others'
// files (TMPDIR), new files are otherwise allocated in the group where those were: on ext4
// without a journal (the device machine's /tmp) every creation there skips each inode freed
// in the last minute (recently_deleted), and a link that removed a few thousand files made a
// cold cached link after it create its thousands scanning past all of them (bench/RESULTS.md,
// "The cache's cost"). A hint only, set only on a folder of our own user (root too leaves
// another user's folder as it is); on other file systems it fails and nothing changes.
static void spread_subfolders(int fd) {
  int flags = 0;
  struct stat st;
  if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) return;
  if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_TOPDIR_FL)) {
    flags |= FS_TOPDIR_FL;
    (void)ioctl(fd, FS_IOC_SETFLAGS, &flags);
  }
}

int cache_open(Cache *c, const char *dir, const CachePolicy *policy, char **errmsg) {
  int rc = make_dirs(dir);
  if (rc) {
    *errmsg = format("cannot create the cache directory: %s", strerror(-rc));
    return -1;
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *errmsg = errno == ENOTDIR ? xstrdup("the cache path is not a directory")
                               : format("cannot open the cache directory: %s", strerror(errno));
    return -1;
  }
  int tag = read_tag(fd);
  if (tag < 0) {
    *errmsg = xstrdup("its CACHEDIR.TAG is not a cache directory tag; not taken as a cache");
    goto fail;
  }
  // A folder of someone's files is not adopted: pruning would be free to remove what is
  // named like our entries, and a planted entry would be found there. A link opening the same
  // new folder may have tagged it and begun to fill it since the tag was read (links make
  // nothing in it before the tag): so files there mean refusal only if it is still untagged
  // after the listing that found them. One listing: a second one could find what the other
  // link made after the first found nothing, without the tag read again.
  if (!tag && !folder_is_empty(fd)) {
    tag = read_tag(fd);
    if (tag < 0) {
      *errmsg = xstrdup("its CACHEDIR.TAG is not a cache directory tag; not taken as a cache");
      goto fail;
    }
    if (!tag) {
      *errmsg = xstrdup("not a cache directory: it holds files but no CACHEDIR.TAG (name a new "
                        "or empty directory; a cache of an earlier sycl-thinlto has no tag: "
                        "remove it)");
      goto fail;
    }
  }
  if (!tag && (rc = write_tag(fd)) < 0) {
    *errmsg = format("cannot write to the cache directory: %s", strerror(-rc));
    close(fd);
    return rc == -ENOSPC || rc == -EDQUOT ? 1 : -1; // full: the link may go on without it
  }
  // access() says yes to root, and to directories of /proc or /sys that take no files: a
  // file is made and removed instead, so that an unusable cache stops the link now.
  char *probe = NULL; // a random name: a link planted at a guessable one made this fail
  int p = own_create_temporary_at(fd, ".probe", &probe);
  rc = p < 0 ? p : 0;
  if (p >= 0) close(p), own_remove_at(fd, probe, NULL);
  free(probe);
  if (rc) {
    *errmsg = format("cannot write to the cache directory: %s", strerror(-rc));
    goto fail;
  }
  c->root_fd = own_open_dir_at(fd, ENTRIES_FOLDER, true);
  if (c->root_fd < 0) {
    *errmsg = c->root_fd == -ENOTDIR || c->root_fd == -ELOOP || c->root_fd == -EEXIST
                  ? format("the cache directory's " ENTRIES_FOLDER "/ is not a directory")
                  : format("cannot create the cache directory's " ENTRIES_FOLDER "/: %s",
                           strerror(-c->root_fd));
    goto fail;
  }
  spread_subfolders(c->root_fd);
  close(fd);
  c->dir = xstrdup(dir);
  c->root = format("%s/" ENTRIES_FOLDER, dir);
  c->shards = xcalloc(NUM_SHARDS, sizeof *c->shards);
  for (int i = 0; i < NUM_SHARDS; i++)
    c->shards[i] = -1;
  c->policy = *policy;
  return 0;
fail:
  close(fd);
  return -1;
}

void cache_close(Cache *c) {
  for (int i = 0; i < NUM_SHARDS; i++)
    if (c->shards[i] >= 0) close(c->shards[i]);
  close(c->root_fd);
  free(c->shards);
  free(c->root);
  free(c->dir);
  *c = (Cache){0};
}

// Reads the regular file FD of SIZE bytes (as fstat said): 0, or -1.
static int read_entry(int fd, size_t size, Buffer *out) {
  uint8_t *data = xmalloc(size ? size : 1);
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += n;
  }
  if (done != size) {
    free(data);
    return -1;
  }
  *out = (Buffer){data, size, false};
  return 0;
}

// Maps the regular file FD of SIZE bytes (as fstat said): 0, or -1. An entry is replaced by
// a rename, never written in place: the mapping keeps the bytes it was made with.
static int map_entry(int fd, size_t size, Buffer *out) {
  void *data = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  if (data == MAP_FAILED) return -1;
  *out = (Buffer){data, size, true};
  return 0;
}

// Thread-safe: every call works on its own file; the rename makes writes atomic.
static int get_entry(const Cache *c, const char *kind, const char *key, bool mapped,
                     Buffer *value) {
  int dir = shard_dir(c, key, false);
  if (dir < 0) return -1;
  char *name = format("%s-%s", kind, key);
  // Only a regular file is read, never through a link: a FIFO would block the link.
  int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  free(name);
  if (fd < 0) return -1;
  struct stat st;
  Buffer b;
  int rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
               ? (mapped ? map_entry : read_entry)(fd, st.st_size, &b)
               : -1;
  close(fd);
  if (rc) return -1;
  size_t size;
  if (cache_entry_payload(kind, key, b.data, b.size, &size)) {
    // Corrupt, truncated, foreign or another key's: a miss; the caller's store replaces it.
    char *path = entry_path(c, kind, key);
    note("cache: ignoring damaged entry %s", path);
    free(path);
    buffer_free(&b);
    return -1;
  }
  if (mapped && !size) { // no pages to keep (a mapping is never empty)
    buffer_free(&b);
    return -1;
  }
  buffer_shrink(&b, size);
  *value = b;
  return 0;
}

int cache_get(const Cache *c, const char *kind, const char *key, Buffer *value) {
  return get_entry(c, kind, key, false, value);
}

int cache_map(const Cache *c, const char *kind, const char *key, Buffer *value) {
  return get_entry(c, kind, key, true, value);
}

void buffer_shrink(Buffer *b, size_t size) {
  if (b->mapped) {
    // The pages past the kept bytes' last one go now: buffer_free unmaps SIZE bytes.
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t kept = ((uintptr_t)b->data + size + page - 1) & ~(page - 1);
    uintptr_t mapped = ((uintptr_t)b->data + b->size + page - 1) & ~(page - 1);
    if (mapped > kept) munmap((void *)kept, mapped - kept);
  }
  b->size = size;
}

int cache_take_payload(const char *kind, const char *key, Buffer *b) {
  size_t size;
  if (cache_entry_payload(kind, key, b->data, b->size, &size) || !size) return -1;
  buffer_shrink(b, size);
  return 0;
}

// Writes the entry under a name of this process's, then renames it over KIND-KEY: whatever
// was there (a damaged entry, a FIFO, a link) is replaced, never written through.
int cache_put(const Cache *c, const char *kind, const char *key, const Buffer *value) {
  int dir = shard_dir(c, key, true);
  if (dir < 0) return dir;
  uint8_t trailer[TRAILER_SIZE];
  make_trailer(kind, key, value, 1, trailer);
  // Unique across hosts: a cache on a shared file system has writers on several (issue 26).
  char *name = format("%s-%s", kind, key);
  char *tmp = NULL, *tmp_path = NULL;
  char *dir_path = format("%s/%02x", c->root, shard_of(key));
  int fd = own_create_temporary_guarded_at(dir, dir_path, name, &tmp, &tmp_path), rc = 0;
  free(dir_path);
  if (fd < 0) {
    rc = fd;
    goto done;
  }
  struct iovec parts[2] = {{value->data, value->size}, {trailer, TRAILER_SIZE}};
  size_t total = value->size + TRAILER_SIZE, done = 0;
  while (done < total && !rc) {
    ssize_t n = writev(fd, parts, 2);
    if (n < 0 && errno != EINTR) rc = -errno;
    if (n <= 0) continue;
    done += n;
    // A short write: the rest of each part.
    for (int i = 0; i < 2; i++) {
      size_t take = (size_t)n < parts[i].iov_len ? (size_t)n : parts[i].iov_len;
      parts[i].iov_base = (uint8_t *)parts[i].iov_base + take;
      parts[i].iov_len -= take;
      n -= take;
    }
  }
  if (close(fd) < 0 && !rc) rc = -errno;
  if (!rc) rc = own_rename_at(dir, tmp, dir, name);
  if (rc) own_remove_at(dir, tmp, NULL);
  keep_on_success(tmp_path);
done:
  free(tmp_path);
  free(tmp);
  free(name);
  return rc;
}

int cache_adopt(const Cache *c, const char *kind, const char *key, int from, const char *name,
                const Buffer *payload, const Buffer *extra, bool keep) {
  int dir = shard_dir(c, key, true);
  if (dir < 0) return dir;
  Buffer parts[2] = {*payload, extra ? *extra : (Buffer){0}};
  uint8_t trailer[TRAILER_SIZE];
  make_trailer(kind, key, parts, 2, trailer);
  int fd = own_append_at(from, name);
  if (fd < 0) return fd;
  struct stat st;
  int rc = fstat(fd, &st) < 0 ? -errno : 0;
  if (!rc && (uint64_t)st.st_size != payload->size) rc = -EINVAL;
  struct iovec tail[2] = {{parts[1].data, parts[1].size}, {trailer, TRAILER_SIZE}};
  ssize_t want = (ssize_t)(parts[1].size + TRAILER_SIZE);
  ssize_t n = rc ? 0 : writev(fd, tail, 2);
  if (!rc && n != want) rc = n < 0 ? -errno : -EIO;
  if (close(fd) < 0 && !rc) rc = -errno;
  // Linked, not renamed: a rename between two folders takes the file system's one rename
  // lock (s_vfs_rename_mutex on Linux), which all threads of a cold link would queue on. An
  // entry already there (damaged, or a concurrent link's) is replaced by a rename within its
  // folder.
  char *entry = format("%s-%s", kind, key);
  if (!rc) rc = own_link_at(from, name, dir, entry);
  if (rc == -EEXIST) {
    char *tmp = temporary_name(entry);
    rc = own_link_at(from, name, dir, tmp);
    if (!rc && (rc = own_rename_at(dir, tmp, dir, entry))) own_remove_at(dir, tmp, NULL);
    free(tmp);
  }
  if (!rc && !keep) own_remove_at(from, name, NULL);
  free(entry);
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

// Calls VISIT for every file of every entry folder, with the folder's descriptor. A folder
// that is not one (a link planted at its name) is left alone.
static void each_entry_file(const Cache *c, void (*visit)(void *, int, int, const char *),
                            void *arg) {
  for (int i = 0; i < NUM_SHARDS; i++) {
    char name[3];
    snprintf(name, sizeof name, "%02x", i);
    int fd = openat(c->root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
      if (fd >= 0) close(fd);
      continue;
    }
    for (struct dirent *e; (e = readdir(d));)
      if (e->d_type == DT_REG || e->d_type == DT_UNKNOWN) visit(arg, dirfd(d), i, e->d_name);
    closedir(d);
  }
}

typedef struct {
  const Cache *c;
  const char *kind, *prefix;
  size_t kind_len;
  int to;
  const StrMap *there;        // the links TO holds already, name to inode (decimal)
  StringList *names, *inodes; // per entry folder: the links made or found, their inodes
} Export;

// Runs on a worker thread: links folder I's entries of the kind that TO does not hold yet (or
// holds as another file); writes only its own lists and the names it links.
static void export_folder(void *arg, size_t i) {
  Export *x = arg;
  char folder[3];
  snprintf(folder, sizeof folder, "%02x", (int)i);
  int fd = own_open_dir_at(x->c->root_fd, folder, false);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  for (struct dirent *e; (e = readdir(d));) {
    const char *name = e->d_name;
    if ((e->d_type != DT_REG && e->d_type != DT_UNKNOWN) || strncmp(name, x->kind, x->kind_len) ||
        name[x->kind_len] != '-' || entry_name_length(name) != strlen(name))
      continue;
    char *as = format("%s%s", x->prefix, name + x->kind_len + 1);
    char inode[32];
    snprintf(inode, sizeof inode, "%llu", (unsigned long long)e->d_ino);
    const char *held = strmap_get(x->there, as);
    struct stat st;
    // The entry itself, linked there by an earlier link (one inode, a regular file as the
    // entry is): nothing to make.
    if (held && !strcmp(held, inode) &&
        (e->d_type == DT_REG ||
         (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)))) {
      strlist_push(&x->names[i], as);
      strlist_push(&x->inodes[i], xstrdup(inode));
      continue;
    }
    if (held) own_remove_at(x->to, as, NULL); // an entry replaced since, or removed and made again
    // The link made is this process's own, in its own folder: checked there, where no one
    // else can replace it between the check and libLTO's read.
    if (own_link_at(dirfd(d), name, x->to, as) == 0) {
      if (fstatat(x->to, as, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
        strlist_push(&x->names[i], as);
        strlist_push(&x->inodes[i], format("%llu", (unsigned long long)st.st_ino));
        continue;
      }
      own_remove_at(x->to, as, NULL); // a link: never handed to libLTO
    }
    free(as);
  }
  closedir(d);
}

// The names in the folder TO that begin with PREFIX, to their inodes (decimal).
static void names_there(int to, const char *prefix, StrMap *there) {
  int fd = dup(to);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  rewinddir(d); // the copy shares TO's position
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
    strmap_put(there, e->d_name, format("%llu", (unsigned long long)e->d_ino));
  }
  closedir(d);
}

size_t cache_export_entries(const Cache *c, const char *kind, int to, const char *prefix,
                            StrMap *linked, int jobs) {
  StrMap there = {0};
  names_there(to, prefix, &there);
  Export x = {.c = c, .kind = kind, .prefix = prefix, .kind_len = strlen(kind), .to = to,
              .there = &there, .names = xcalloc(NUM_SHARDS, sizeof(StringList)),
              .inodes = xcalloc(NUM_SHARDS, sizeof(StringList))};
  parallel_for(NUM_SHARDS, jobs, export_folder, &x);
  for (int i = 0; i < NUM_SHARDS; i++) {
    for (size_t k = 0; k < x.names[i].count; k++)
      strmap_put(linked, x.names[i].items[k], xstrdup(x.inodes[i].items[k]));
    strlist_free(&x.names[i]);
    strlist_free(&x.inodes[i]);
  }
  // What the folder held of entries gone since (pruned, damaged) or of no entry at all.
  for (size_t i = 0; i < there.cap; i++) {
    if (!there.keys[i]) continue;
    if (!strmap_get(linked, there.keys[i])) own_remove_at(to, there.keys[i], NULL);
    free(there.values[i]);
  }
  strmap_free(&there);
  free(x.names);
  free(x.inodes);
  return linked->count;
}

bool cache_refresh(const Cache *c, const char *kind, const char *key, uint64_t size) {
  int dir = shard_dir(c, key, false);
  if (dir < 0) return false;
  char *name = format("%s-%s", kind, key);
  struct stat st;
  // Its modification time made now, not through a link: pruning by age spares it.
  bool there = fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
               (uint64_t)st.st_size == size + TRAILER_SIZE &&
               utimensat(dir, name, NULL, AT_SYMLINK_NOFOLLOW) == 0;
  free(name);
  return there;
}

void cache_remove_damaged(const Cache *c, const char *kind, const char *key,
                          const struct stat *seen) {
  int dir = shard_dir(c, key, false);
  if (dir < 0) return;
  char *name = format("%s-%s", kind, key);
  // Only the file that failed its check: a concurrent link may have replaced it since.
  own_remove_at(dir, name, seen);
  free(name);
}

typedef struct {
  int shard;
  char *name;
  time_t used;
  uint64_t size;
  struct stat seen;
} EntryInfo;

static int by_oldest(const void *a, const void *b) {
  const EntryInfo *x = a, *y = b;
  if (x->used != y->used) return x->used < y->used ? -1 : 1;
  if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
  return strcmp(x->name, y->name);
}

// A temporary ("KIND-KEY.tmp.HOST.PID.N") older than this was left by a link that was
// killed; a younger one is being written by a concurrent link and is not touched.
enum { STALE_TEMPORARY = 86400 };

typedef struct {
  const Cache *c;
  time_t now;
  EntryInfo *entries;
  size_t n, cap;
  uint64_t total;
  int kept; // the folder of the ThinLTO entries' second names, or -1
} Pruning;

// Removes the entry NAME of the folder DIR if it still is the file SEEN; a ThinLTO entry's
// second name in libLTO's kept folder goes with it (while it is that file), or the file
// would stay, its space not given back, until the next link.
static void remove_entry(Pruning *p, int dir, const char *name, const struct stat *seen) {
  if (own_remove_at(dir, name, seen) || p->kept < 0 || strncmp(name, "thinlto-", 8)) return;
  char *second = format(CACHE_LIBLTO_PREFIX "%s", name + 8);
  own_remove_at(p->kept, second, seen);
  free(second);
}

// Removes an entry unused for longer than prune_after and a stale temporary; keeps the
// others for the size limits. Nothing but an entry's name, as a regular file, is touched.
static void prune_entry(void *arg, int dir, int shard, const char *name) {
  Pruning *p = arg;
  size_t len = entry_name_length(name);
  bool temporary = len && !strncmp(name + len, ".tmp.", 5);
  struct stat st;
  if (!len || (name[len] && !temporary) || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
      !S_ISREG(st.st_mode))
    return;
  time_t used = st.st_atime > st.st_mtime ? st.st_atime : st.st_mtime;
  if (temporary) {
    if (p->now - st.st_mtime > STALE_TEMPORARY) own_remove_at(dir, name, &st);
    return;
  }
  if ((uint64_t)(p->now - used) > p->c->policy.prune_after) {
    remove_entry(p, dir, name, &st);
    return;
  }
  if (p->n == p->cap)
    p->entries = xrealloc(p->entries, (p->cap = p->cap ? p->cap * 2 : 64) * sizeof *p->entries);
  p->entries[p->n++] = (EntryInfo){shard, xstrdup(name), used, (uint64_t)st.st_size, st};
  p->total += st.st_size;
}

// Removes the entries unused for longer than prune_after, then the oldest ones until the
// cache fits the size limits. Runs at most once per prune_interval (a stamp records when).
void cache_prune(const Cache *c) {
  struct stat st;
  time_t now = time(NULL);
  if (fstatat(c->root_fd, ".last-prune", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      (uint64_t)(now - st.st_mtime) < c->policy.prune_interval)
    return;
  int stamp = own_create_at(c->root_fd, ".last-prune", 0666);
  if (stamp >= 0) close(stamp);
  else utimensat(c->root_fd, ".last-prune", NULL, AT_SYMLINK_NOFOLLOW);
  Pruning p = {.c = c, .now = now};
  p.kept = openat(c->root_fd, CACHE_LIBLTO_FOLDER, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  each_entry_file(c, prune_entry, &p);
  if (p.n) qsort(p.entries, p.n, sizeof *p.entries, by_oldest);
  size_t first = 0;
  while (first < p.n && ((c->policy.max_bytes && p.total > c->policy.max_bytes) ||
                         (c->policy.max_files && p.n - first > c->policy.max_files))) {
    char name[3];
    snprintf(name, sizeof name, "%02x", p.entries[first].shard);
    int dir = own_open_dir_at(c->root_fd, name, false);
    if (dir >= 0) remove_entry(&p, dir, p.entries[first].name, &p.entries[first].seen), close(dir);
    p.total -= p.entries[first].size;
    first++;
  }
  for (size_t i = 0; i < p.n; i++)
    free(p.entries[i].name);
  free(p.entries);
  if (p.kept >= 0) close(p.kept);
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
