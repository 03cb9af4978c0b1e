// What a process killed by SIGKILL leaves behind, removed by the next one: temporaries of an
// output whose process has ended, and temporary directories whose lock nobody holds. It
// removes nothing of a live process, nor anything whose owner it cannot judge (another host).
#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

// A process of this host that still exists (EPERM: it does, and is someone else's).
static bool process_exists(long pid) {
  return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

// The PID of NAME if it ends in ".tmp.HOST.PID.N" with HOST this host's name, else 0.
static long temporary_owner(const char *name) {
  char *marker = format(".tmp.%s.", host_name());
  long pid = 0;
  for (const char *at = strstr(name, marker); at && !pid; at = strstr(at + 1, marker)) {
    const char *p = at + strlen(marker);
    char *end;
    long owner = strtol(p, &end, 10);
    if (end == p || *end != '.' || owner <= 0) continue;
    p = end + 1;
    strtoul(p, &end, 10);
    if (end != p && !*end && p[0] != '-' && p[0] != '+') pid = owner;
  }
  free(marker);
  return pid;
}

// A temporary of an output whose name was cut to fit (temporary_name): exactly NAME_MAX
// bytes, a prefix of BASE, then ".tmp.HOST.".
static bool is_cut_temporary_of(const char *name, const char *base, size_t base_len) {
  if (strlen(name) != NAME_MAX) return false;
  char *marker = format(".tmp.%s.", host_name());
  const char *at = strstr(name, marker);
  free(marker);
  size_t kept = at ? (size_t)(at - name) : 0;
  return kept && kept < base_len && !strncmp(name, base, kept);
}

// Removes FILE if it is a regular file whose lock (own_create_temporary's) nobody holds: a
// process in another PID namespace, whose PID means nothing here, holds its own. 1 if removed.
static int remove_if_unlocked(const char *file) {
  int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  int removed = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
                own_remove_dead_file(file, &st) == 0;
  close(fd);
  return removed;
}

void remove_dead_temporaries(const char *path) {
  char *copy = xstrdup(path), *copy2 = xstrdup(path);
  const char *dir = dirname(copy), *base = basename(copy2);
  size_t base_len = strlen(base);
  DIR *d = opendir(dir);
  for (struct dirent *e; d && base_len && (e = readdir(d));) {
    bool cut = is_cut_temporary_of(e->d_name, base, base_len);
    if (strncmp(e->d_name, base, base_len) && !cut) continue;
    long pid = temporary_owner(cut ? e->d_name : e->d_name + base_len);
    if (!pid || pid == getpid() || process_exists(pid)) continue;
    char *file = format("%s/%s", dir, e->d_name);
    if (remove_if_unlocked(file) == 1)
      note("%s: removed, a temporary of process %ld, which has ended", file, pid);
    free(file);
  }
  if (d) closedir(d);
  free(copy);
  free(copy2);
}

//
// Temporary directories: DIR/.lock is locked (flock) by the process that made DIR for as long
// as it lives, and the lock file appears only once locked, so a directory whose lock another
// process can take is a dead process's. flock works across hosts on NFS too; a directory
// without a lock file (being made right now, or by an older version) is left alone.
//

static const char lock_name[] = ".lock";

typedef struct {
  char *dir;
  int fd;
} HeldLock;
static HeldLock *held; // the main thread's: temporary directories are made and removed there
static size_t num_held;

// Removes DIR's files and DIR if its lock can be taken; the lock is let go after.
static void remove_if_abandoned(const char *dir) {
  char *lock = format("%s/%s", dir, lock_name);
  int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  free(lock);
  if (fd < 0) return;
  struct stat st;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0 && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
      own_remove_dead_dir(dir, &st) == 0)
    note("%s: removed, a temporary directory of a process that has ended", dir);
  close(fd);
}

static void remove_abandoned_dirs(const char *parent, const char *name) {
  char *prefix = format("%s-", name);
  DIR *d = opendir(parent);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
    char *dir = format("%s/%s", parent, e->d_name);
    struct stat st;
    if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
      remove_if_abandoned(dir);
    free(dir);
  }
  if (d) closedir(d);
  free(prefix);
}

char *make_temp_dir(const char *parent, const char *name) {
  remove_abandoned_dirs(parent, name);
  char *prefix = format("%s/%s-", parent, name);
  int error = 0;
  char *dir = own_make_dir(prefix, 0700, true, &error);
  if (!dir) fatal(prefix, "cannot create a directory: %s", strerror(error));
  free(prefix);
  // Locked under another name, then renamed: no one sees .lock unlocked.
  char *unlocked = format("%s/%s.%ld", dir, lock_name, (long)getpid());
  char *lock = format("%s/%s", dir, lock_name);
  // A directory that cannot be locked (a full file system, a path at its length limit) is
  // used unlocked: the writes into it fail with the reason, and no one reclaims it.
  int fd = own_create(unlocked, 0600);
  int e = fd < 0 ? -fd : flock(fd, LOCK_EX) < 0 ? errno : 0;
  if (!e) e = -own_rename(unlocked, lock, false);
  if (!e) {
    held = xrealloc(held, (num_held + 1) * sizeof *held);
    held[num_held++] = (HeldLock){xstrdup(dir), fd};
  } else {
    note("%s: cannot lock it: %s", dir, strerror(e));
    if (fd >= 0) {
      close(fd);
      own_remove(unlocked);
    }
  }
  free(unlocked);
  free(lock);
  return dir;
}

// The lock of the folder PARENT/KEPT, taken: its descriptor, or -1 (no folder or no lock
// there, or another process holds it).
static int take_kept_lock(const char *dir) {
  char *lock = format("%s/%s", dir, lock_name);
  int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  free(lock);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || flock(fd, LOCK_EX | LOCK_NB) < 0)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

char *claim_kept_dir(const char *parent, const char *name, const char *kept) {
  remove_abandoned_dirs(parent, name);
  char *from = format("%s/%s", parent, kept), *prefix = format("%s/%s-", parent, name);
  // Locked before it is moved: under NAME-XXXXXX, a folder whose lock is free is a dead
  // process's to any make_temp_dir.
  int fd = take_kept_lock(from), error = 0;
  char *dir = fd >= 0 ? own_claim_dir(from, prefix, &error) : NULL;
  free(from);
  free(prefix);
  if (!dir) {
    if (fd >= 0) close(fd);
    return NULL;
  }
  // The folder moved may not be the one whose lock was taken (that one claimed, and another
  // left there, in between): its own lock then, or it is left to whoever removes it.
  char *lock = format("%s/%s", dir, lock_name);
  struct stat taken, there;
  if (fstat(fd, &taken) < 0 || lstat(lock, &there) < 0 || taken.st_dev != there.st_dev ||
      taken.st_ino != there.st_ino) {
    close(fd);
    fd = take_kept_lock(dir);
  }
  if (fd < 0 || own_adopt(lock)) {
    if (fd >= 0) close(fd);
    own_forget(dir);
    free(lock);
    free(dir);
    return NULL;
  }
  free(lock);
  remove_dir_on_failure(dir);
  held = xrealloc(held, (num_held + 1) * sizeof *held);
  held[num_held++] = (HeldLock){xstrdup(dir), fd};
  return dir;
}

bool keep_temp_dir(const char *dir, const char *parent, const char *kept) {
  size_t i = 0;
  while (i < num_held && strcmp(held[i].dir, dir))
    i++;
  if (i == num_held) return false; // unlocked: no one could tell whether it is in use
  char *to = format("%s/%s", parent, kept);
  // Moved while locked, then let go: never seen unlocked under a name of the dead's.
  int rc = own_leave_dir(dir, to);
  free(to);
  if (rc) return false;
  close(held[i].fd);
  free(held[i].dir);
  held[i] = held[--num_held];
  return true;
}

void remove_temp_dir(const char *dir) {
  char *lock = format("%s/%s", dir, lock_name);
  own_remove(lock);
  free(lock);
  int rc = own_empty_dir(dir);
  if (rc) note("%s: not removed: %s", dir, strerror(-rc));
  keep_on_success(dir);
  for (size_t i = 0; i < num_held; i++) {
    if (strcmp(held[i].dir, dir)) continue;
    close(held[i].fd);
    free(held[i].dir);
    held[i] = held[--num_held];
    break;
  }
}
