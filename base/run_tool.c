// Runs another program to completion and captures what it prints (spirv-val, a translator,
// the host linker). It decides nothing about what the output means.
#include "base/base.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

// In the child, between fork and exec: system calls only (the parent may have threads). It
// ends with its parent: a wrapper killed by SIGKILL has no handler to end its device link,
// so the kernel sends that link SIGTERM (it then cleans up after itself). A parent that died
// before the request was made is seen by getppid. Then it starts clean: default signal
// dispositions (we may ignore SIGPIPE) and an empty mask (the caller may be a thread with
// signals blocked). An exec that fails sends its errno up ERROR_FD.
// With ARGV NULL the child runs FN(ARG) instead of a program and exits with its value.
__attribute__((noreturn)) static void start_child(const char *const argv[], int (*fn)(void *),
                                                  void *arg, pid_t parent, int output_fd,
                                                  int error_fd) {
  int e = 0;
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0) e = errno;
  if (!e && getppid() != parent) _exit(127);
  struct sigaction default_action = {.sa_handler = SIG_DFL};
  for (int sig = 1; sig < NSIG; sig++)
    sigaction(sig, &default_action, NULL); // SIGKILL, SIGSTOP and the unused fail: no matter
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (!e && (null < 0 || dup2(null, 0) < 0 || dup2(output_fd, 1) < 0 || dup2(output_fd, 2) < 0))
    e = errno;
  if (!e && !argv) {
    close(error_fd); // started: nothing to report
    int rc = fn(arg);
    fflush(NULL);
    _exit(rc);
  }
  if (!e) {
    execvp(argv[0], (char *const *)argv);
    e = errno;
  }
  while (write(error_fd, &e, sizeof e) < 0 && errno == EINTR)
    ;
  _exit(127);
}

// Thread-safety: every call owns its pipes and child; nothing here is shared between calls.
// The pipes are close-on-exec, so a child started by another thread meanwhile cannot hold
// their write ends open. waitpid names our own pid, so it neither steals nor is stolen from
// libuv's SIGCHLD handling.
int run_tool(const char *const argv[], Buffer *output, int *wait_status) {
  *output = (Buffer){0};
  int fds[2], error_fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) return -errno;
  if (pipe2(error_fds, O_CLOEXEC) < 0) {
    int e = -errno;
    close(fds[0]);
    close(fds[1]);
    return e;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) start_child(argv, NULL, NULL, parent, fds[1], error_fds[1]);
  int rc = pid < 0 ? errno : 0;
  close(fds[1]);
  close(error_fds[1]);
  if (!rc) { // the exec's errno, or nothing once the exec closed the pipe
    int e;
    ssize_t n;
    while ((n = read(error_fds[0], &e, sizeof e)) < 0 && errno == EINTR)
      ;
    if (n == (ssize_t)sizeof e) {
      rc = e;
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  }
  close(error_fds[0]);
  if (rc) {
    close(fds[0]);
    return -rc;
  }
  track_child(pid); // a signal that ends us ends it too

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
}

pid_t child_start(const char *const argv[], int (*fn)(void *), void *arg, int output_fd) {
  int error_fds[2];
  if (pipe2(error_fds, O_CLOEXEC) < 0) return -errno;
  pid_t parent = getpid();
  fflush(NULL); // what we printed is not printed again by the child
  pid_t pid = fork();
  if (pid == 0) start_child(argv, fn, arg, parent, output_fd, error_fds[1]);
  int rc = pid < 0 ? errno : 0;
  close(error_fds[1]);
  if (!rc) { // the exec's errno, or nothing once the exec (or FN's start) closed the pipe
    int e;
    ssize_t n;
    while ((n = read(error_fds[0], &e, sizeof e)) < 0 && errno == EINTR)
      ;
    if (n == (ssize_t)sizeof e) {
      rc = e;
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  }
  close(error_fds[0]);
  if (rc) return -rc;
  track_child(pid); // a signal that ends us ends it too
  return pid;
}

pid_t child_wait(pid_t child, int *wait_status) {
  pid_t pid;
  while ((pid = waitpid(child, wait_status, 0)) < 0)
    if (errno != EINTR) return -errno;
  untrack_child(pid);
  return pid;
}

char *executable_path(void) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) die("cannot find our own executable: %s", strerror(errno));
  self[n] = 0;
  return xstrdup(self);
}
