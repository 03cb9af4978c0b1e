// The one owner of the file system (issue 30): every file and folder the program creates,
// renames or removes goes through here, and here only what this run created is removed.
// It decides nothing about which paths may be written (base/outputs.c does).
//
// The rules: files are created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW), never by truncating
// what stands at a name; temporaries and folders get a random part in their names (not
// guessable from host and PID), retried on EEXIST; what this run created is remembered by
// device and inode, and a path is removed only while lstat still finds that there; a folder
// is emptied only of the entries this run created (or names it handed to a tool it ran);
// nothing is opened for writing through a symbolic link, except that the final rename onto
// an output replaces a link standing there (the link itself, never its target).
#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

//
// The records. One a path this run created (or named for a tool it runs), pushed on a list
// that a signal handler walks without a lock: a record is published whole by one atomic
// store, its path and identity never change, and records are never freed (small metadata,
// kept until exit), so the handler cannot meet a freed one. What changes is atomic: whether
// it is gone (removed, renamed away) and whether a failure removes it.
//

typedef enum {
  OWN_FILE, // a regular file this run created: DEV and INO
  OWN_DIR,  // a folder this run created: DEV and INO
  OWN_NAME, // a name handed to a tool or library this run runs: any regular file there is
            // the tool's. Its last component may hold one '*' (any run of characters).
} OwnKind;

typedef struct Owned {
  struct Owned *_Atomic next;
  struct Owned *_Atomic next_name; // OWN_NAME records only: the list of expected names
  char *path;
  size_t name_at; // where PATH's last component begins (after its last '/'; 0: no '/')
  dev_t dev;
  ino_t ino;
  OwnKind kind;
  atomic_bool gone, on_failure;
  atomic_bool handed_over;  // OWN_DIR: a tools' working folder, removed with all it holds
  atomic_bool reserved_dir; // OWN_NAME: a folder about to be made (reserve), removed if empty
} Owned;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Owned *_Atomic records;
// The OWN_NAME records among them, few (a folder's expected names): what a name that is no
// recorded path may still be, looked through without walking every record.
static Owned *_Atomic names;

// The newest live record of each path, for lookups outside the handler (under LOCK): open
// addressing, never shrunk. Allocated without xmalloc: out_of_memory's fatal() would clean
// up through here, under the lock it holds.
static Owned **index_slots;
static size_t index_cap, index_count;

// A formatted string; running out of memory here aborts (this file is below memory.c's
// diagnostics, which clean up through it).
__attribute__((format(printf, 1, 2))) static char *owned_format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) abort();
  va_end(ap);
  return s;
}

static uint64_t hash_path(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

static void index_put(Owned *node) {
  if ((index_count + 1) * 2 > index_cap) {
    size_t old_cap = index_cap;
    Owned **old = index_slots;
    index_cap = index_cap ? index_cap * 2 : 256;
    index_slots = calloc(index_cap, sizeof *index_slots);
    if (!index_slots) abort();
    index_count = 0;
    for (size_t i = 0; i < old_cap; i++)
      if (old[i]) index_put(old[i]);
    free(old);
  }
  for (size_t i = hash_path(node->path) & (index_cap - 1);; i = (i + 1) & (index_cap - 1)) {
    if (!index_slots[i]) {
      index_slots[i] = node;
      index_count++;
      return;
    }
    if (!strcmp(index_slots[i]->path, node->path)) {
      atomic_store(&index_slots[i]->gone, true); // a newer record of the same name
      index_slots[i] = node;
      return;
    }
  }
}

static Owned *index_get(const char *path) {
  if (!index_cap) return NULL;
  for (size_t i = hash_path(path) & (index_cap - 1);; i = (i + 1) & (index_cap - 1)) {
    if (!index_slots[i]) return NULL;
    if (!strcmp(index_slots[i]->path, path))
      return atomic_load(&index_slots[i]->gone) ? NULL : index_slots[i];
  }
}

// LISTED (OWN_NAME): on the list of expected names, looked through for what no recorded path
// is; a name reserved for a file this run makes next (own_create_temporary_guarded_at) is found
// by its path alone.
static Owned *record_as(const char *path, OwnKind kind, const struct stat *st, bool on_failure,
                        bool listed, bool indexed) {
  // cleanup.c's exits and signal handlers reach the records through these (it is below us).
  set_failure_removers(remove_failure_paths, remove_failure_paths_now);
  Owned *node = malloc(sizeof *node);
  char *copy = strdup(path);
  if (!node || !copy) abort();
  const char *slash = strrchr(copy, '/');
  *node = (Owned){.path = copy, .name_at = slash ? (size_t)(slash + 1 - copy) : 0, .kind = kind};
  if (st) {
    node->dev = st->st_dev;
    node->ino = st->st_ino;
  }
  atomic_store(&node->on_failure, on_failure);
  pthread_mutex_lock(&lock);
  // Listed before the index retires an older record of the same path: the handler's walk
  // never meets the name with neither record live (a reservation replaced by its file).
  atomic_store(&node->next, atomic_load(&records));
  atomic_store(&records, node);
  if (indexed) index_put(node);
  if (kind == OWN_NAME && listed) {
    atomic_store(&node->next_name, atomic_load(&names));
    atomic_store(&names, node);
  }
  pthread_mutex_unlock(&lock);
  return node;
}

static Owned *record(const char *path, OwnKind kind, const struct stat *st, bool on_failure) {
  return record_as(path, kind, st, on_failure, true, true);
}

static Owned *find(const char *path) {
  pthread_mutex_lock(&lock);
  Owned *node = index_get(path);
  pthread_mutex_unlock(&lock);
  return node;
}

// Whether what lstat finds (ST) is what NODE recorded. System calls only: the handler's.
static bool is_recorded(const Owned *node, const struct stat *st) {
  switch (node->kind) {
  case OWN_FILE:
    return S_ISREG(st->st_mode) && st->st_dev == node->dev && st->st_ino == node->ino;
  case OWN_DIR:
    return S_ISDIR(st->st_mode) && st->st_dev == node->dev && st->st_ino == node->ino;
  case OWN_NAME:
    return S_ISREG(st->st_mode);
  }
  return false;
}

static bool still_ours(const Owned *node) {
  struct stat st;
  return lstat(node->path, &st) == 0 && is_recorded(node, &st);
}

// NAME against a pattern's last component PATTERN ('*' any run of characters, at most one).
static bool name_matches(const char *pattern, const char *name) {
  const char *star = strchr(pattern, '*');
  if (!star) return !strcmp(pattern, name);
  size_t head = (size_t)(star - pattern), tail = strlen(star + 1), n = strlen(name);
  return n >= head + tail && !strncmp(name, pattern, head) && !strcmp(name + n - tail, star + 1);
}

// Whether NODE names the entry NAME of the folder DIR (DIR_LEN bytes).
static bool names_entry(const Owned *node, const char *dir, size_t dir_len, const char *name) {
  if (node->name_at != dir_len + 1 || strncmp(node->path, dir, dir_len)) return false;
  const char *last = node->path + node->name_at;
  return node->kind == OWN_NAME ? name_matches(last, name) : !strcmp(last, name);
}

// NODE is no longer a path of this run's (removed, renamed away, replaced); a pattern of
// expected names stays.
static void retire(Owned *node) {
  if (node->kind != OWN_NAME || !strchr(node->path + node->name_at, '*'))
    atomic_store(&node->gone, true);
}

//
// Names with a random part.
//

static uint64_t random_u64(void) {
  uint64_t r;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
  // No entropy yet (early boot): the clock, the PID and a counter, mixed; still retried on
  // EEXIST, so only guessability suffers, never correctness.
  static atomic_uint_fast64_t counter;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  r = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16) ^
      atomic_fetch_add(&counter, 0x9e3779b97f4a7c15ull);
  r ^= r >> 33;
  r *= 0xff51afd7ed558ccdull;
  return r ^ (r >> 33);
}

static char host[65];

static void read_host_name(void) {
  if (gethostname(host, sizeof host - 1) < 0 || !host[0]) strcpy(host, "host");
  for (char *c = host; *c; c++) // it becomes part of file names
    if (*c == '/' || *c == '.') *c = '_';
}

const char *host_name(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_host_name);
  return host;
}

char *temporary_name(const char *path) {
  // Host and PID say whose it is (base/temporaries.c removes a dead process's); the random
  // number makes it unguessable, and distinct between containers that share a directory and
  // a host name, whose processes may have one PID (issue 30).
  char *suffix = owned_format(".tmp.%s.%ld.%llu", host_name(), (long)getpid(),
                        (unsigned long long)(random_u64() >> 1));
  // An output's name near NAME_MAX (250 bytes) left no room for the suffix: the output
  // could not be written at all ("File name too long"). Its name is cut to make room, to
  // exactly NAME_MAX bytes (remove_dead_temporaries knows such a name by that length).
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash + 1 - path) : 0;
  size_t base_len = strlen(path) - dir_len, suffix_len = strlen(suffix);
  if (base_len + suffix_len > NAME_MAX && suffix_len < NAME_MAX)
    base_len = NAME_MAX - suffix_len;
  char *name = owned_format("%.*s%s", (int)(dir_len + base_len), path, suffix);
  free(suffix);
  return name;
}

//
// Creating.
//

int own_create(const char *path, int mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0) {
    int e = -errno;
    close(fd);
    unlink(path); // made by this call a moment ago, exclusively
    return e;
  }
  record(path, OWN_FILE, &st, false);
  return fd;
}

// A reservation of PATH, a name this run makes next (a file, or a folder if DIR) and removes
// on a failure: a signal between the making and its record would otherwise leave it. The
// record of what is made replaces it.
static Owned *reserve(const char *path, bool dir) {
  Owned *node = record_as(path, OWN_NAME, NULL, true, false, true);
  atomic_store(&node->reserved_dir, dir);
  return node;
}

// After a making reserved by NODE failed with E (a negative errno), or made what is someone
// else's: nothing at the name is removed on our failure.
static int unreserve(Owned *node, int e) {
  atomic_store(&node->gone, true);
  return e;
}

static int create_temporary(const char *path, const char *suffix, char **name) {
  for (int attempt = 0; attempt < 100; attempt++) {
    char *random = temporary_name(path), *tmp = owned_format("%s%s", random, suffix);
    free(random);
    if (!making_begin()) {
      free(tmp);
      return -EINTR;
    }
    Owned *reserved = reserve(tmp, false);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    int e = fd < 0 ? -errno : 0;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) < 0) {
      e = -errno;
      close(fd);
      unlink(tmp); // made by this call a moment ago, exclusively
      fd = -1;
    }
    if (fd >= 0) record(tmp, OWN_FILE, &st, true);
    // A signal's handler that began its removals before the file was made may have finished
    // them: it goes now, by this thread.
    if (fd >= 0 && ending_by_signal()) {
      close(fd);
      unlink(tmp);
      fd = -1, e = -EINTR;
    }
    making_end();
    if (fd >= 0) {
      // Held while it is written: base/temporaries.c removes a temporary only if its lock is
      // free, so no link in another PID namespace takes a live one for a dead process's.
      flock(fd, LOCK_EX | LOCK_NB);
      *name = tmp;
      return fd;
    }
    if (e != -EINTR) unreserve(reserved, e);
    free(tmp);
    if (e != -EEXIST) return e;
  }
  return -EEXIST;
}

int own_create_temporary(const char *path, char **name) {
  return create_temporary(path, "", name);
}

int own_write_temporary(const char *path, const char *suffix, const void *data, size_t size,
                        char **name) {
  int fd = create_temporary(path, suffix, name);
  if (fd < 0) return fd;
  const uint8_t *p = data;
  int rc = 0;
  while (size && !rc) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) rc = -errno;
    if (n > 0) p += n, size -= (size_t)n;
  }
  if (close(fd) < 0 && !rc) rc = -errno;
  if (rc) {
    own_remove(*name);
    free(*name);
    *name = NULL;
  }
  return rc;
}

char *own_tool_output(const char *path, int *error) {
  char *name;
  int fd = own_create_temporary(path, &name);
  if (fd < 0) {
    *error = -fd;
    return NULL;
  }
  close(fd);
  own_expect(name); // the tool may write it in place or rename its own file onto it
  remove_on_failure(name);
  return name;
}

int own_create_replacing(const char *path) {
  char *tmp;
  int fd = own_create_temporary(path, &tmp);
  if (fd < 0) return fd;
  int rc = own_rename(tmp, path, false);
  if (rc < 0) {
    close(fd);
    own_remove(tmp);
    fd = rc;
  }
  free(tmp);
  return fd;
}

int own_open_in_place(const char *path) {
  int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
    // A file (what stood there changed since the caller looked, or a link now points at
    // one): never written in place, nor truncated.
    close(fd);
    return -EEXIST;
  }
  return fd;
}

int own_open_null(int flags) {
  return open("/dev/null", flags & (O_ACCMODE | O_CLOEXEC));
}

// mkdir, and its record (removed on a failure if ON_FAILURE, reserved so from before it is
// made).
static int make_dir(const char *path, int mode, bool on_failure) {
  if (on_failure && !making_begin()) return -EINTR;
  Owned *reserved = on_failure ? reserve(path, true) : NULL;
  int rc = mkdir(path, mode) < 0 ? -errno : 0;
  struct stat st;
  // Made a moment ago; lstat, so that a folder swapped in since is not recorded as ours.
  if (!rc && (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))) rc = -EEXIST;
  if (rc && reserved) unreserve(reserved, rc);
  if (!rc) record(path, OWN_DIR, &st, on_failure);
  if (!rc && on_failure && ending_by_signal()) { // as create_temporary
    rmdir(path);
    rc = -EINTR;
  }
  if (on_failure) making_end();
  return rc;
}

int own_mkdir(const char *path, int mode) {
  return make_dir(path, mode, false);
}

char *own_make_dir(const char *prefix, int mode, bool on_failure, int *error) {
  for (int attempt = 0; attempt < 100; attempt++) {
    char *dir = owned_format("%s%012llx", prefix, (unsigned long long)(random_u64() >> 16));
    int rc = make_dir(dir, mode, on_failure);
    if (!rc) return dir;
    free(dir);
    if (rc != -EEXIST) {
      *error = -rc;
      return NULL;
    }
  }
  *error = EEXIST;
  return NULL;
}

// renameat2 (glibc declares it only with a newer _GNU_SOURCE set): RENAME_NOREPLACE, a folder
// moved never replaces one standing at TO, empty or not, as rename would; RENAME_EXCHANGE,
// two names swapped.
enum { MOVE_NO_REPLACE = 1, MOVE_EXCHANGE = 2 };
static int move(const char *from, const char *to, unsigned flags) {
  return syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags) < 0 ? -errno : 0;
}

char *own_claim_dir(const char *from, const char *prefix, int *error) {
  struct stat st;
  if (lstat(from, &st) < 0 || !S_ISDIR(st.st_mode)) {
    *error = S_ISDIR(st.st_mode) ? errno : ENOTDIR;
    return NULL;
  }
  for (int attempt = 0; attempt < 100; attempt++) {
    char *dir = owned_format("%s%012llx", prefix, (unsigned long long)(random_u64() >> 16));
    int rc = move(from, dir, MOVE_NO_REPLACE);
    struct stat moved;
    // Recorded by the identity now there: a folder swapped in at FROM since the lstat above
    // is the one moved, and is the one recorded.
    if (!rc && lstat(dir, &moved) == 0 && S_ISDIR(moved.st_mode)) {
      record(dir, OWN_DIR, &moved, false);
      return dir;
    }
    free(dir);
    if (rc != -EEXIST) {
      *error = rc ? -rc : ENOTDIR;
      return NULL;
    }
  }
  *error = EEXIST;
  return NULL;
}

int own_leave_dir(const char *dir, const char *to) {
  Owned *node = find(dir);
  if (!node || node->kind != OWN_DIR || !still_ours(node)) return -EPERM;
  int rc = move(dir, to, MOVE_NO_REPLACE);
  if (!rc) atomic_store(&node->gone, true);
  return rc;
}

void own_expect(const char *name) {
  record(name, OWN_NAME, NULL, false);
}

int own_adopt(const char *path) {
  struct stat st;
  if (lstat(path, &st) < 0) return -errno;
  if (!S_ISREG(st.st_mode)) return -EPERM;
  Owned *expected = find(path);
  bool on_failure = expected && atomic_load(&expected->on_failure);
  record(path, OWN_FILE, &st, on_failure);
  return 0;
}

//
// Renaming and removing.
//

//
// The old file a swap displaced (swap_out) is removed on a thread of its own when it is large:
// freeing a relink's 27 MB output (its cached pages and its blocks) took 9 ms of a 1000-unit
// relink on the device's ext4 (3.8 ms at 300 units), which now overlap the link's last steps
// (the relink record). One at a time; own_wait_removals waits for it.
//

enum { REMOVED_IN_BACKGROUND = 1 << 20 }; // bytes: smaller files cost less than a thread
static pthread_mutex_t removal_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t remover;
static bool removing; // under REMOVAL_LOCK: REMOVER runs, or ran and is not joined

static void *remove_displaced(void *arg) {
  Owned *displaced = arg;
  if (!still_ours(displaced) || unlink(displaced->path) == 0 || errno == ENOENT)
    atomic_store(&displaced->gone, true);
  return NULL;
}

static void remove_after_swap(Owned *displaced, const struct stat *old) {
  pthread_mutex_lock(&removal_lock);
  if (removing) pthread_join(remover, NULL);
  removing = old->st_size >= REMOVED_IN_BACKGROUND &&
             pthread_create(&remover, NULL, remove_displaced, displaced) == 0;
  pthread_mutex_unlock(&removal_lock);
  if (!removing) remove_displaced(displaced);
}

void own_wait_removals(void) {
  pthread_mutex_lock(&removal_lock);
  if (removing) pthread_join(remover, NULL);
  removing = false;
  pthread_mutex_unlock(&removal_lock);
}

// FROM (ours, NODE) and the regular file OLD found at TO swap names; OLD, now at FROM, is
// removed. On ext4 a rename over a regular file first writes the new file's data back
// (auto_da_alloc: 16-20 ms in the rename for a relink's 27 MB output); a swap does not, and
// the new file reaches the disk with the next writeback, as an output written where nothing
// stood does. False, nothing changed, where the swap cannot be made (a file system without
// RENAME_EXCHANGE) or did not find OLD at TO (TO replaced meanwhile: swapped back).
static bool swap_out(Owned *node, const char *from, const char *to, const struct stat *old) {
  // Recorded at FROM beside NODE, not in its place: whichever of the two stands at FROM when
  // a failure comes is removed (the handler walks every record; lookups find NODE still).
  Owned *displaced = record_as(from, OWN_FILE, old, true, true, false);
  struct stat now;
  if (move(from, to, MOVE_EXCHANGE) < 0) {
    atomic_store(&displaced->gone, true);
    return false;
  }
  if (lstat(from, &now) < 0 || !is_recorded(displaced, &now)) {
    move(from, to, MOVE_EXCHANGE); // NODE's file back at FROM
    atomic_store(&displaced->gone, true);
    return false;
  }
  atomic_store(&node->gone, true);
  remove_after_swap(displaced, old);
  return true;
}

int own_rename(const char *from, const char *to, bool to_on_failure) {
  Owned *node = find(from);
  struct stat st, old;
  if (!node || node->kind == OWN_DIR) return -EPERM;
  if (lstat(from, &st) < 0) return -errno;
  if (!is_recorded(node, &st)) return -EPERM;
  // Recorded under its new name before the rename: a failure in between removes it there
  // only if the rename happened (the identity is the file's, not the name's). A name given
  // to a failure to remove whatever file lands there (remove_on_failure before it existed)
  // still is; a file recorded there before is another file.
  Owned *before = find(to);
  if (before && before->kind == OWN_NAME && atomic_load(&before->on_failure))
    to_on_failure = true;
  Owned *moved = record(to, OWN_FILE, &st, to_on_failure);
  if (lstat(to, &old) == 0 && S_ISREG(old.st_mode) &&
      (old.st_dev != st.st_dev || old.st_ino != st.st_ino) && swap_out(node, from, to, &old))
    return 0;
  if (rename(from, to) < 0) {
    int e = -errno;
    atomic_store(&moved->gone, true);
    return e;
  }
  atomic_store(&node->gone, true);
  return 0;
}

// The live record of an expected name whose pattern PATH matches ("DIR/image.*"), or NULL.
static Owned *find_pattern(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return NULL;
  for (Owned *node = atomic_load(&names); node; node = atomic_load(&node->next_name))
    if (!atomic_load(&node->gone) && names_entry(node, path, (size_t)(slash - path), slash + 1))
      return node;
  return NULL;
}

int own_remove(const char *path) {
  Owned *node = find(path);
  if (!node) node = find_pattern(path);
  if (!node) return -EPERM;
  struct stat st;
  if (lstat(path, &st) < 0) {
    retire(node);
    return errno == ENOENT ? 0 : -errno;
  }
  if (!is_recorded(node, &st)) {
    retire(node); // something else stands there now: not ours
    return -EPERM;
  }
  if ((node->kind == OWN_DIR ? rmdir(path) : unlink(path)) < 0) return -errno;
  retire(node);
  return 0;
}

void own_forget(const char *path) {
  Owned *node = find(path);
  if (node) atomic_store(&node->gone, true);
}

// Empties the folder NODE of the entries this run recorded in it (every live record of a
// file or name there, in any folder under it first), then removes it: only while it is the
// folder this run made, read through a descriptor that follows no link. System calls and
// atomics only (the signal handler's). DEPTH bounds the descent.
enum { MAX_DEPTH = 8, ENTRIES_SIZE = 4096 };
typedef char EntryBuffers[MAX_DEPTH + 1][ENTRIES_SIZE];
// One remover at a time of each kind: under LOCK, or the one signal handler (which may
// interrupt the other, on any thread).
static _Alignas(8) EntryBuffers locked_buffers, handler_buffers;

// Under LOCK: the live record that names the entry NAME of DIR as what ENTRY is: the index's
// record of that path, else one of the expected names. What walking every record finds, in
// time independent of how many there are (a link's jobs folder: tens of thousands).
static Owned *entry_owner(const Owned *dir, size_t dir_len, const char *name,
                          const struct stat *entry) {
  char *path = owned_format("%s/%s", dir->path, name);
  Owned *node = index_get(path);
  free(path);
  if (node && is_recorded(node, entry)) return node;
  for (node = atomic_load(&names); node; node = atomic_load(&node->next_name))
    if (!atomic_load(&node->gone) && names_entry(node, dir->path, dir_len, name) &&
        is_recorded(node, entry))
      return node;
  return NULL;
}

// The next name after AT in ENTRIES (N bytes of getdents64), "." and ".." skipped; NULL at the
// end or at a record that does not fit. Only reads memory: a signal handler's clean-up uses it.
static const char *next_entry(const char *entries, long n, long *at) {
  while (*at < n) {
    // struct linux_dirent64: u64 inode, s64 offset, u16 record length, u8 type, name.
    unsigned short length;
    memcpy(&length, entries + *at + 16, sizeof length);
    if (length < 20 || *at + length > n) return NULL;
    const char *name = entries + *at + 19;
    *at += length;
    if (strcmp(name, ".") && strcmp(name, "..")) return name;
  }
  return NULL;
}

// The entry NAME of the open folder DIR_FD, which lstat found to be ENTRY, removed whatever
// it is, in a folder handed over to tools (own_hand_over_dir): a link as a link, a FIFO, socket
// or device unlinked without being opened, a folder emptied the same way through descriptors
// that follow no link, at most MAX_DEPTH deep, and never on another file system than DEV (a
// mount point inside stays, and so do the folders above it). System calls only (the handler's).
static bool remove_whole_entry(int dir_fd, const char *name, const struct stat *entry, dev_t dev,
                               int depth, EntryBuffers *buffers) {
  if (!S_ISDIR(entry->st_mode)) return unlinkat(dir_fd, name, 0) == 0;
  if (depth > MAX_DEPTH || entry->st_dev != dev) return false;
  int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) < 0 || st.st_dev != entry->st_dev || st.st_ino != entry->st_ino) {
    close(fd); // another folder swapped in since lstat: not the one listed
    return false;
  }
  char *entries = (*buffers)[depth];
  bool removed_any = true;
  // Listed again while something goes: entries removed while listed may hide others.
  for (int pass = 0; pass < 8 && removed_any; pass++) {
    removed_any = false;
    lseek(fd, 0, SEEK_SET);
    long n;
    while ((n = syscall(SYS_getdents64, fd, entries, ENTRIES_SIZE)) > 0) {
      long at = 0;
      for (const char *child; (child = next_entry(entries, n, &at));) {
        struct stat inner;
        if (fstatat(fd, child, &inner, AT_SYMLINK_NOFOLLOW) == 0 &&
            remove_whole_entry(fd, child, &inner, dev, depth + 1, buffers))
          removed_any = true;
      }
    }
  }
  close(fd);
  return unlinkat(dir_fd, name, AT_REMOVEDIR) == 0;
}

// INDEXED: the caller holds LOCK and may allocate (own_empty_dir); else only system calls and
// atomics are used (a signal handler's clean-up), walking every record.
static bool empty_and_remove(const Owned *dir, int depth, EntryBuffers *buffers, bool indexed) {
  char *entries = (*buffers)[depth];
  int fd = open(dir->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) < 0 || !is_recorded(dir, &st)) {
    close(fd);
    return false;
  }
  size_t dir_len = strlen(dir->path);
  // Entries removed while listed may hide others, and threads still running (libLTO's
  // backends, a job) may add files: emptied until it goes, a few times.
  for (int pass = 0; pass < 50; pass++) {
    if (pass >= 1) {
      if (rmdir(dir->path) == 0) {
        close(fd);
        return true;
      }
      if (errno != ENOTEMPTY) break;
      if (pass >= 2) nanosleep(&(struct timespec){0, 2 * 1000 * 1000}, NULL);
    }
    lseek(fd, 0, SEEK_SET);
    bool unknown = false;
    long n;
    while ((n = syscall(SYS_getdents64, fd, entries, ENTRIES_SIZE)) > 0) {
      long at = 0;
      for (const char *name; (name = next_entry(entries, n, &at));) {
        struct stat entry;
        if (fstatat(fd, name, &entry, AT_SYMLINK_NOFOLLOW) < 0) continue;
        bool removed = false;
        for (Owned *node = indexed ? entry_owner(dir, dir_len, name, &entry) : atomic_load(&records);
             node && !removed; node = indexed ? NULL : atomic_load(&node->next)) {
          if (atomic_load(&node->gone) || !names_entry(node, dir->path, dir_len, name) ||
              !is_recorded(node, &entry))
            continue;
          if (node->kind == OWN_DIR)
            removed = depth < MAX_DEPTH && empty_and_remove(node, depth + 1, buffers, indexed);
          else
            removed = unlinkat(fd, name, 0) == 0;
          if (removed) retire(node);
        }
        // What the tools made in a folder handed over to them is this run's too.
        if (!removed && atomic_load(&dir->handed_over))
          removed = remove_whole_entry(fd, name, &entry, st.st_dev, depth + 1, buffers);
        unknown |= !removed;
      }
    }
    if (unknown && pass >= 1) break; // what this run did not make stays, and so the folder
  }
  close(fd);
  return false;
}

int own_hand_over_dir(const char *path) {
  Owned *node = find(path);
  if (!node || node->kind != OWN_DIR || !still_ours(node)) return -EPERM;
  atomic_store(&node->handed_over, true);
  return 0;
}

int own_empty_dir(const char *path) {
  Owned *node = find(path);
  if (!node || node->kind != OWN_DIR) return -EPERM;
  pthread_mutex_lock(&lock);
  bool removed = empty_and_remove(node, 0, &locked_buffers, true);
  pthread_mutex_unlock(&lock);
  if (removed) atomic_store(&node->gone, true);
  return removed ? 0 : access(path, F_OK) == 0 ? -ENOTEMPTY : 0;
}

//
// What a failure removes: base/cleanup.c's list (issue 24), kept here with the records.
//

void remove_on_failure(const char *path) {
  Owned *node = find(path);
  if (node) {
    atomic_store(&node->on_failure, true);
    return;
  }
  // A name not recorded here: what a tool made at a name this run gave it, or will make.
  struct stat st;
  if (lstat(path, &st) < 0)
    record(path, OWN_NAME, NULL, true);
  else if (S_ISREG(st.st_mode))
    record(path, OWN_FILE, &st, true);
}

void own_remove_on_failure(const char *path) {
  remove_on_failure(path);
}

void remove_on_failure_as(const char *path, const char *made) {
  struct stat st;
  if (lstat(made, &st) == 0 && S_ISREG(st.st_mode)) record(path, OWN_FILE, &st, true);
}

void remove_dir_on_failure(const char *dir) {
  Owned *node = find(dir);
  if (node && node->kind == OWN_DIR) atomic_store(&node->on_failure, true);
}

void keep_on_success(const char *path) {
  Owned *node = find(path);
  if (node) atomic_store(&node->on_failure, false);
}

// The handler's walk, and exit_failure's: newest first, so that what was made in a folder
// goes before the folder.
static void remove_failure_records(EntryBuffers *buffers) {
  for (Owned *node = atomic_load(&records); node; node = atomic_load(&node->next)) {
    if (atomic_load(&node->gone) || !atomic_load(&node->on_failure)) continue;
    if (node->kind == OWN_DIR) {
      if (empty_and_remove(node, 0, buffers, buffers == &locked_buffers)) // LOCK held
        atomic_store(&node->gone, true);
    } else if (node->kind == OWN_NAME && atomic_load(&node->reserved_dir)) {
      rmdir(node->path); // empty: made a moment ago, its record not yet taken
    } else if (still_ours(node) && unlink(node->path) == 0) {
      retire(node);
    }
  }
}

void remove_failure_paths(void) {
  pthread_mutex_lock(&lock);
  remove_failure_records(&locked_buffers);
  pthread_mutex_unlock(&lock);
}

void remove_failure_paths_now(void) {
  remove_failure_records(&handler_buffers);
}

//
// What a dead run of ours left (issue 24): the only removals of what this run did not create.
// The caller has proved the run dead (a free lock, a PID of this host that has ended).
//

int own_remove_dead_file(const char *path, const struct stat *seen) {
  // A regular file only: what is there now must be the one seen (a link has another inode).
  return S_ISREG(seen->st_mode) ? own_remove_at(AT_FDCWD, path, seen) : -EPERM;
}

int own_remove_dead_dir(const char *path, const struct stat *seen) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || st.st_dev != seen->st_dev || st.st_ino != seen->st_ino) {
    close(fd);
    return -EPERM;
  }
  // Its regular files only, one level (the temporary folders are flat); a link is removed
  // as a link, never followed; a folder in it keeps it from going.
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return -EPERM;
  }
  for (struct dirent *e; (e = readdir(d));) {
    struct stat entry;
    if (fstatat(fd, e->d_name, &entry, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(entry.st_mode))
      unlinkat(fd, e->d_name, 0);
  }
  closedir(d);
  return rmdir(path) < 0 ? -errno : 0;
}

//
// Relative to an open folder (the cache's, base/cache.c): every name is one component in a
// folder opened with O_NOFOLLOW, so that nothing is followed through a link planted at the
// folder's name between a check and its use. These record nothing: the cache's entries
// outlive the run by design; what a failure must remove is registered by path
// (own_remove_on_failure) by the caller.
//

int own_open_dir_at(int at, const char *name, bool create) {
  if (create && mkdirat(at, name, 0777) < 0 && errno != EEXIST) return -errno;
  int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

int own_create_at(int dir, const char *name, int mode) {
  int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  return fd < 0 ? -errno : fd;
}

int own_create_temporary_at(int dir, const char *name, char **tmp) {
  for (int attempt = 0; attempt < 100; attempt++) {
    char *try = temporary_name(name);
    int fd = own_create_at(dir, try, 0666);
    if (fd >= 0) {
      *tmp = try;
      return fd;
    }
    free(try);
    if (fd != -EEXIST) return fd;
  }
  return -EEXIST;
}

int own_create_unnamed(const char *dir) {
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  return fd < 0 ? -errno : fd;
}

int own_create_temporary_guarded_at(int dir, const char *dir_path, const char *name, char **tmp,
                                    char **tmp_path) {
  for (int attempt = 0; attempt < 100; attempt++) {
    char *try = temporary_name(name);
    char *path = owned_format("%s/%s", dir_path, try);
    if (!making_begin()) {
      free(try);
      free(path);
      return -EINTR;
    }
    // Reserved before the file is made: a signal between the two would otherwise leave it.
    Owned *node = record_as(path, OWN_NAME, NULL, true, false, true);
    int fd = own_create_at(dir, try, 0666);
    // A signal's handler that began its removals before this file was made may have finished
    // them: the file goes now, by this thread (base/cleanup.c, on_ending_signal).
    if (fd >= 0 && ending_by_signal()) {
      close(fd);
      unlinkat(dir, try, 0);
      fd = -EINTR;
    }
    making_end();
    if (fd >= 0) {
      *tmp = try;
      *tmp_path = path;
      return fd;
    }
    atomic_store(&node->gone, true); // someone's file, or none: never removed
    free(try);
    free(path);
    if (fd != -EEXIST) return fd;
  }
  return -EEXIST;
}

int own_append_at(int dir, const char *name) {
  int fd = openat(dir, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return -EINVAL;
  }
  return fd;
}

int own_rename_at(int from_dir, const char *from, int to_dir, const char *to) {
  return renameat(from_dir, from, to_dir, to) < 0 ? -errno : 0;
}

int own_link_at(int from_dir, const char *from, int to_dir, const char *to) {
  return linkat(from_dir, from, to_dir, to, 0) < 0 ? -errno : 0;
}

int own_remove_at(int dir, const char *name, const struct stat *seen) {
  struct stat st;
  if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) return -errno;
  if ((!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) ||
      (seen && (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino)))
    return -EPERM;
  return unlinkat(dir, name, 0) < 0 ? -errno : 0;
}
