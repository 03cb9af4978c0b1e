// What a failing or interrupted process leaves behind: the paths to remove (temporaries, a
// partial output) and the children to end, for exit_failure() and for SIGINT, SIGTERM, SIGHUP.
// It does not decide what is temporary; whoever creates a file registers it here.
#include "sycl_thinlto.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

//
// The paths. Threads add and remove them under a lock; a signal handler walks the list
// without it (it may have interrupted the lock's holder). So a node is published whole by one
// atomic store, and a removed one is freed only if no handler has begun to walk the list: the
// handler says so (walking) before it reads the first pointer, and all of these are
// sequentially consistent, so a remover that sees no walk has unlinked the node before the
// handler can reach it.
//

typedef struct CleanupPath {
  struct CleanupPath *_Atomic next;
  char *path; // not changed while listed
} CleanupPath;

static pthread_mutex_t paths_lock = PTHREAD_MUTEX_INITIALIZER;
static CleanupPath *_Atomic paths;
static atomic_bool walking;

void remove_on_failure(const char *path) {
  CleanupPath *node = xmalloc(sizeof *node);
  node->path = xstrdup(path);
  pthread_mutex_lock(&paths_lock);
  atomic_store(&node->next, atomic_load(&paths));
  atomic_store(&paths, node);
  pthread_mutex_unlock(&paths_lock);
}

void keep_on_success(const char *path) {
  pthread_mutex_lock(&paths_lock);
  for (CleanupPath *_Atomic *link = &paths, *node; (node = atomic_load(link));) {
    if (strcmp(node->path, path)) {
      link = &node->next;
      continue;
    }
    atomic_store(link, atomic_load(&node->next));
    if (!atomic_load(&walking)) { // else the handler may be reading it: the process ends anyway
      free(node->path);
      free(node);
    }
  }
  pthread_mutex_unlock(&paths_lock);
}

void remove_failure_paths(void) {
  pthread_mutex_lock(&paths_lock);
  for (CleanupPath *node = atomic_load(&paths); node; node = atomic_load(&node->next)) {
    // A directory goes with the files in it (one level: our temporary directories are flat).
    if (unlink(node->path) == 0 || errno != EISDIR) continue;
    remove_files_in(node->path, "");
    rmdir(node->path);
  }
  pthread_mutex_unlock(&paths_lock);
}

// In the handler, with system calls only: a file, or a flat directory and its files.
static void remove_path_now(const char *path) {
  if (unlink(path) == 0 || errno != EISDIR) return;
  static _Alignas(8) char entries[4096]; // one handler runs at a time
  for (int pass = 0; pass < 2; pass++) { // entries removed while listed may hide others
    int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) break;
    long n;
    while ((n = syscall(SYS_getdents64, dir, entries, sizeof entries)) > 0) {
      for (long at = 0; at < n;) {
        // struct linux_dirent64: u64 inode, s64 offset, u16 record length, u8 type, name.
        unsigned short length;
        memcpy(&length, entries + at + 16, sizeof length);
        const char *name = entries + at + 19;
        if (strcmp(name, ".") && strcmp(name, "..")) unlinkat(dir, name, 0);
        at += length;
      }
    }
    close(dir);
  }
  rmdir(path);
}

//
// The children: processes started and not yet reaped (the SPIR-V worker spawner, tools,
// the wrapper's steps). A fixed table of atomic slots, which the handler can read; a child
// that finds no free slot is not ended by a signal (1024 at once: far more than -j runs).
//

enum { MAX_CHILDREN = 1024 };
static atomic_int children[MAX_CHILDREN];

void track_child(int pid) {
  if (pid <= 0) return;
  for (int i = 0; i < MAX_CHILDREN; i++) {
    int free_slot = 0;
    if (atomic_compare_exchange_strong(&children[i], &free_slot, pid)) return;
  }
}

void untrack_child(int pid) {
  if (pid <= 0) return;
  for (int i = 0; i < MAX_CHILDREN; i++) {
    int mine = pid;
    if (atomic_compare_exchange_strong(&children[i], &mine, 0)) return;
  }
}

// Gives every child SIG: a child of our own binary (the wrapper's device link) then cleans up
// after itself, the spawner's workers die with the spawner.
static void signal_children_now(int sig) {
  for (int i = 0; i < MAX_CHILDREN; i++) {
    int pid = atomic_load(&children[i]);
    if (pid > 0) kill(pid, sig);
  }
}

// Waits up to two seconds for the children to end, then kills what is left: the wrapper's
// device link must be gone before the wrapper removes the directory it writes into.
static void wait_children_now(void) {
  for (int round = 0; round < 300; round++) {
    bool running = false;
    for (int i = 0; i < MAX_CHILDREN; i++) {
      int pid = atomic_load(&children[i]);
      if (pid <= 0) continue;
      if (round == 200) kill(pid, SIGKILL); // two seconds are up
      if (waitpid(pid, NULL, WNOHANG) == 0)
        running = true;
      else
        atomic_store(&children[i], 0); // ended (reaped now, or by its own waiter: ECHILD)
    }
    if (!running) return;
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
}

static void remove_paths_now(void) {
  atomic_store(&walking, true);
  for (CleanupPath *node = atomic_load(&paths); node; node = atomic_load(&node->next))
    remove_path_now(node->path);
}

//
// The signals.
//

static const int ending_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NUM_ENDING = sizeof ending_signals / sizeof *ending_signals };
static struct sigaction saved[NUM_ENDING];
static bool installed[NUM_ENDING];
static atomic_bool ending;

// Async-signal-safe throughout: atomics and system calls. The first signal ends the process
// by its default action once the children are ended and the paths removed, so the exit
// status says which signal it was. Other threads run on meanwhile: the paths are removed
// again after the wait, no output is committed and no exit taken once this has begun
// (atomic_commit, exit_failure and main ask ending_by_signal), and a signal that comes
// meanwhile on another thread waits.
static void on_ending_signal(int sig) {
  int saved_errno = errno;
  if (atomic_exchange(&ending, true)) {
    for (;;)
      pause();
  }
  signal_children_now(sig);
  remove_paths_now();
  wait_children_now();
  remove_paths_now(); // what threads wrote meanwhile
  struct sigaction default_action = {.sa_handler = SIG_DFL};
  sigaction(sig, &default_action, NULL);
  errno = saved_errno;
  raise(sig); // pending until the handler returns (the signal is blocked in it), then fatal
}

bool ending_by_signal(void) {
  return atomic_load(&ending);
}

void wait_while_ending(void) {
  while (atomic_load(&ending))
    pause(); // the handler ends the process
}

void install_signal_cleanup(void) {
  struct sigaction sa = {.sa_handler = on_ending_signal};
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NUM_ENDING; i++)
    sigaddset(&sa.sa_mask, ending_signals[i]);
  for (int i = 0; i < NUM_ENDING; i++) {
    // A signal ignored when we start (nohup, a background job's SIGINT) stays ignored.
    if (sigaction(ending_signals[i], NULL, &saved[i]) < 0 || saved[i].sa_handler == SIG_IGN)
      continue;
    installed[i] = sigaction(ending_signals[i], &sa, NULL) == 0;
  }
}

void uninstall_signal_cleanup(void) {
  for (int i = 0; i < NUM_ENDING; i++)
    if (installed[i]) sigaction(ending_signals[i], &saved[i], NULL);
}
