// Runs another program to completion and captures what it prints (spirv-val, a translator,
// the host linker). It decides nothing about what the output means.
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

// Thread-safety: every call owns its pipe, child and temporary file; nothing here is
// shared between calls. The pipe is close-on-exec, so a child started by another thread
// meanwhile cannot hold its write end open. waitpid names our own pid, so it neither
// steals nor is stolen from libuv's SIGCHLD handling.
int run_tool(const char *const argv[], Buffer *output, int *wait_status) {
  *output = (Buffer){0};
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) return -errno;

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  int rc = posix_spawn_file_actions_init(&actions);
  if (rc) goto fail_actions;
  rc = posix_spawnattr_init(&attr);
  if (rc) goto fail_attr;
  // The child starts clean: default signal dispositions (we may ignore SIGPIPE) and an
  // empty mask (the caller may be a thread with signals blocked).
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  if ((rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)) ||
      (rc = posix_spawn_file_actions_adddup2(&actions, fds[1], 1)) ||
      (rc = posix_spawn_file_actions_adddup2(&actions, fds[1], 2)) ||
      (rc = posix_spawnattr_setsigdefault(&attr, &all)) ||
      (rc = posix_spawnattr_setsigmask(&attr, &none)) ||
      (rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)))
    goto fail_spawn;
  pid_t pid;
  rc = posix_spawnp(&pid, argv[0], &actions, &attr, (char *const *)argv, environ);
  if (rc) goto fail_spawn;
  track_child(pid); // a signal that ends us ends it too
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);

  char chunk[4096];
  for (;;) {
    ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; // EOF; a read error ends the capture, the exit status still counts
    buffer_append(output, chunk, n);
  }
  close(fds[0]);
  buffer_append(output, "", 1); // NUL-terminated for the callers' messages
  output->size--;
  while (waitpid(pid, wait_status, 0) < 0)
    if (errno != EINTR) {
      rc = errno;
      untrack_child(pid);
      free(output->data);
      *output = (Buffer){0};
      return -rc;
    }
  untrack_child(pid);
  return 0;

fail_spawn:
  posix_spawnattr_destroy(&attr);
fail_attr:
  posix_spawn_file_actions_destroy(&actions);
fail_actions:
  close(fds[0]);
  close(fds[1]);
  return -rc;
}
