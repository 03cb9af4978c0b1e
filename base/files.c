// Files in and out: whole reads, read-only mappings, and atomic writes through a temporary
// that a failure removes. It decides nothing about which paths may be written.
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

// Inputs are read whole, so a file larger than this is refused before a byte of it is read:
// an 8 GB sparse file took 8 GB. SYCL_THINLTO_MAX_INPUT_SIZE (bytes, or with a K, M or G
// suffix: KiB, MiB, GiB) moves the limit.
static uint64_t max_input_size = (uint64_t)4 << 30;
static char input_size_text[160];

void input_size_limit_init(void) {
  const char *env = getenv("SYCL_THINLTO_MAX_INPUT_SIZE");
  if (env && *env) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    int shift = !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30 : -1;
    if (env[0] == '-' || end == env || errno || shift < 0 || v == 0 || v > (UINT64_MAX >> shift))
      fatal(NULL, "SYCL_THINLTO_MAX_INPUT_SIZE: expected a size in bytes (or with K, M, G), not '%s'",
            env);
    max_input_size = (uint64_t)v << shift;
  }
  snprintf(input_size_text, sizeof input_size_text,
           "larger than the input size limit, %llu bytes (SYCL_THINLTO_MAX_INPUT_SIZE raises it)",
           (unsigned long long)max_input_size);
}

uint64_t input_size_limit(void) {
  return max_input_size;
}

// Linux grows a process's descriptor table when a descriptor past its size is opened (64,
// then 128, 256, 512, ...), and once the table is shared by threads each growth waits for an
// RCU grace period (expand_fdtable's synchronize_rcu), while every other thread that opens
// or creates a descriptor waits for the growth. A link's workers open the cache's 256 entry
// folders (their descriptors are kept) and entries besides: three growths, each stopping the
// whole process for 8-25 ms on the 16-core device (bench/RESULTS.md, relink7). Grown here,
// before any thread, the table is grown without a wait, and it never shrinks. A descriptor
// duplicated to the table's last slot and closed again leaves no descriptor open.
void descriptor_table_init(void) {
  long want = 1024;
  struct rlimit rl;
  if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < want)
    want = (long)rl.rlim_cur;
  if (want <= 64) return; // the table's first size
  int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return; // nothing lost but the wait
  int last = fcntl(fd, F_DUPFD_CLOEXEC, (int)(want - 1));
  if (last >= 0) close(last);
  close(fd);
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
  if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_input_size) {
    close(fd);
    return -EFBIG;
  }
  // CAP + 1 bytes: reading a regular file to its end, at exactly st_size, needs no growth.
  size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size : 65536, size = 0;
  uint8_t *data = xmalloc(cap + 1);
  for (;;) {
    if (size > max_input_size) { // a pipe, or a file that grew while it was read
      free(data);
      close(fd);
      return -EFBIG;
    }
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
  if (rc == -EFBIG) {
    if (!input_size_text[0]) input_size_limit_init();
    return input_size_text;
  }
  return rc == -ENODEV ? "a device, not a file" : strerror(-rc);
}

bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// Maps the open file FD (closed here) if it is regular and not empty; ST gets its fstat.
static int map_descriptor(int fd, struct stat *st, Buffer *out) {
  int rc = fstat(fd, st) < 0 ? -errno : !S_ISREG(st->st_mode) || !st->st_size ? -EINVAL : 0;
  void *data = rc ? MAP_FAILED : mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (!rc && data == MAP_FAILED) rc = -errno;
  close(fd);
  if (rc) return rc;
  *out = (Buffer){data, (size_t)st->st_size, true};
  return 0;
}

int map_file(const char *path, Buffer *out) {
  int fd = open(path, O_RDONLY);
  struct stat st;
  return fd < 0 ? -errno : map_descriptor(fd, &st, out);
}

int map_file_at(int dir, const char *name, struct stat *st, Buffer *out) {
  *st = (struct stat){0};
  // Mapping a file whose access time is not newer than its change time writes its inode
  // (relatime), as the hard links libLTO makes of its cache hits leave every one of them:
  // a journaled write per result, after libLTO's own read of the hit has already recorded
  // its use (what pruning reads). Only the owner may leave the time as it is (O_NOATIME).
  int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOATIME);
  if (fd < 0 && errno == EPERM)
    fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  return fd < 0 ? -errno : map_descriptor(fd, st, out);
}

uint64_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

int check_room(const char *dir, uint64_t bytes) {
  // A name longer than the writers' own ("llvmcache-<40 hex digits>.temp-stream-XXXXXX",
  // "N.spirv64.thinlto.o"): a path they could not open fails here too.
  char *base = format("%s/.room.%.*d", dir, 60, 0), *probe = NULL;
  // An unnamed file where the file system makes one: nothing is left in DIR whenever the run
  // ends (a signal between its making and its record left a named probe in the folder); the
  // writers' name length is then checked by the length of that name alone.
  int fd = strlen(base) + 40 >= PATH_MAX ? -ENAMETOOLONG
                                          : own_create_unnamed(dir);
  if (fd == -ENAMETOOLONG) {
    free(base);
    return fd;
  }
  if (fd < 0) fd = own_create_temporary(base, &probe);
  free(base);
  int rc = fd < 0 ? fd : 0;
  // fallocate, not posix_fallocate: where a file system cannot reserve, glibc's fallback
  // would write BYTES of zeros. Such a file system is not checked.
  if (fd >= 0 && bytes && fallocate(fd, 0, 0, (off_t)bytes) < 0 && errno != EOPNOTSUPP)
    rc = -errno;
  if (fd >= 0) {
    close(fd);
    if (probe) own_remove(probe);
  }
  free(probe);
  return rc;
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
  *f = (AtomicFile){.fd = -1, .path = xstrdup(path)};
  // An existing FIFO, terminal or device (/dev/null) is written in place: renaming over it
  // would replace the node itself. Anything else gets a temporary made exclusively.
  struct stat st;
  int fd = stat(path, &st) == 0 && !S_ISREG(st.st_mode) ? own_open_in_place(path) : -EEXIST;
  if (fd == -EEXIST) fd = own_create_temporary(path, &f->tmp);
  if (fd < 0) {
    atomic_abort(f);
    return fd;
  }
  f->fd = fd;
  return 0;
}

int atomic_write(AtomicFile *f, const void *data, size_t size) {
  if (!f->error) f->error = write_all(f->fd, data, size);
  return f->error;
}

int atomic_pwrite(AtomicFile *f, const void *data, size_t size, uint64_t offset) {
  return atomic_pwrite_parts(f, &(Buffer){(uint8_t *)data, size, false}, 1, offset);
}

int atomic_pwrite_parts(AtomicFile *f, const Buffer *parts, int n, uint64_t offset) {
  struct iovec iov[ATOMIC_PARTS_MAX];
  if (n > ATOMIC_PARTS_MAX) die("%d parts to write at once", n);
  size_t size = 0;
  for (int i = 0; i < n; i++) {
    iov[i] = (struct iovec){parts[i].data, parts[i].size};
    size += parts[i].size;
  }
  // A short write leaves the rest of the parts: the written bytes come off the first ones.
  struct iovec *rest = iov;
  while (!f->error && size) {
    ssize_t done = pwritev(f->fd, rest, n, (off_t)offset);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) f->error = done < 0 ? -errno : -EIO;
    if (done <= 0) break;
    size -= done;
    offset += done;
    for (; n && (size_t)done >= rest->iov_len; rest++, n--)
      done -= rest->iov_len;
    if (n) rest->iov_base = (uint8_t *)rest->iov_base + done, rest->iov_len -= done;
  }
  return f->error;
}

int atomic_truncate(AtomicFile *f, uint64_t size) {
  if (!f->error && ftruncate(f->fd, (off_t)size) < 0) f->error = -errno;
  return f->error;
}

// The rename replaces what stands at PATH, a link there too (the link, not its target).
static int commit(AtomicFile *f, bool output) {
  int e = f->error;
  if (close(f->fd) < 0 && !e) e = -errno;
  f->fd = -1;
  if (!e && ending_by_signal()) e = -EINTR; // the signal's handler is removing f->tmp
  if (!e && f->tmp) e = own_rename(f->tmp, f->path, output);
  if (e) {
    atomic_abort(f);
    return e;
  }
  free(f->tmp);
  free(f->path);
  *f = (AtomicFile){.fd = -1};
  return 0;
}

int atomic_commit(AtomicFile *f) {
  return commit(f, false);
}

void atomic_abort(AtomicFile *f) {
  if (f->fd >= 0) close(f->fd);
  if (f->tmp) own_remove(f->tmp);
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

int write_output_atomic(const char *path, const void *data, size_t size) {
  AtomicFile f;
  int e = atomic_open(&f, path);
  if (e) return e;
  atomic_write(&f, data, size);
  // Listed under its final name as the rename happens (own_rename records it first): no
  // moment passes in which a failure would leave it behind.
  return commit(&f, true);
}

int replace_file(const char *tmp, const char *path) {
  struct stat st;
  if (stat(path, &st) < 0 || S_ISREG(st.st_mode)) return own_rename(tmp, path, false);
  Buffer b;
  int rc = read_file(tmp, &b);
  if (rc == 0) {
    rc = write_file_atomic(path, b.data, b.size); // written in place: PATH is not regular
    free(b.data);
  }
  own_remove(tmp);
  return rc;
}
