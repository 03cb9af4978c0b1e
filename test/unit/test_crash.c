// Specification of cleanup.c's crash handling: a crash while a thread reads an input is that
// input's error (exit 1), any other an internal error (EXIT_INTERNAL_ERROR); a stack overflow
// is caught too, on the main thread and on a parallel_for worker; either way the temporaries
// are removed and the children ended. Each case crashes a forked child for real.
#include "base/base.h"

#include "check.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int never; // keeps the compiler from seeing that the recursion never ends

static int overflow_stack(int depth) {
  volatile char frame[512];
  frame[0] = (char)depth;
  if (never) return frame[0];
  return overflow_stack(depth + 1) + frame[0];
}

// A real fault, which UBSan does not stop first (as it does a store through NULL).
static void crash_by_fault(void) {
  volatile int *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) abort();
  *p = 1;
}

static void read_and_overflow(void *arg, size_t i) {
  (void)arg;
  if (i != 1) return;
  reading_input_begin("deep.bc", "bitcode");
  overflow_stack(0);
}

typedef enum {
  INPUT_SEGV,
  INPUT_OVERFLOW,
  WORKER_OVERFLOW,
  INTERNAL_BUS,
  INTERNAL_AFTER_READ,
  DIE,
} Case;

static const char *temp_path, *child_pid_path;

// The child: a temporary and a child of its own, then the crash.
static void crash(Case c) {
  install_signal_cleanup();
  set_crash_stage("unit test");
  remove_on_failure(temp_path);
  if (write_file_atomic(temp_path, "x", 1)) _exit(3);
  pid_t sleeper = fork();
  if (sleeper == 0) { // without the test's pipe: a sleeper left behind must not hang the test
    uninstall_signal_cleanup();
    close(2);
    for (;;)
      pause();
  }
  track_child(sleeper);
  char *text = format("%d", (int)sleeper);
  if (write_file_atomic(child_pid_path, text, strlen(text))) _exit(3);
  switch (c) {
  case INPUT_SEGV:
    reading_input_begin("bad.bc", "bitcode");
    crash_by_fault();
    break;
  case INPUT_OVERFLOW:
    reading_input_begin("deep.bc", "bitcode");
    overflow_stack(0);
    break;
  case WORKER_OVERFLOW:
    parallel_for(2, 2, read_and_overflow, NULL);
    break;
  case INTERNAL_BUS:
    raise(SIGBUS);
    break;
  case INTERNAL_AFTER_READ:
    reading_input_begin("fine.bc", "bitcode");
    reading_input_end();
    crash_by_fault();
    break;
  case DIE:
    reading_input_begin("fine.bc", "bitcode"); // die() says it is ours all the same
    die("a broken invariant");
  }
  _exit(4); // not reached
}

// Runs case C in a child: its exit code (or 128 + signal) and its stderr.
static int run_case(Case c, char *err, size_t cap) {
  int fds[2];
  if (pipe(fds)) abort();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    crash(c);
  }
  close(fds[1]);
  size_t n = 0;
  ssize_t got;
  while (n + 1 < cap && (got = read(fds[0], err + n, cap - 1 - n)) > 0)
    n += (size_t)got;
  err[n] = 0;
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void check_case(Case c, int code, const char *message, const char *what) {
  char err[4096];
  unlink(child_pid_path);
  int rc = run_case(c, err, sizeof err);
  char *line = format("%s: exit code %d (got %d)", what, code, rc);
  check(rc == code, line);
  free(line);
  line = format("%s: says \"%s\"", what, message);
  check(strstr(err, message) != NULL, line);
  if (!strstr(err, message)) fprintf(stderr, "stderr was: %s\n", err);
  free(line);
  line = format("%s: the temporary is gone", what);
  check(access(temp_path, F_OK) != 0, line);
  free(line);
  Buffer pid_text = {0};
  bool ended = false;
  if (read_file(child_pid_path, &pid_text) == 0) {
    buffer_append(&pid_text, "", 1);
    pid_t sleeper = (pid_t)atoi((char *)pid_text.data);
    ended = sleeper > 0 && kill(sleeper, 0) < 0 && errno == ESRCH;
    if (!ended && sleeper > 0) kill(sleeper, SIGKILL);
    buffer_free(&pid_text);
  }
  line = format("%s: its child is ended", what);
  check(ended, line);
  free(line);
}

int main(void) {
  char dir[] = "/tmp/test-crash-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  temp_path = format("%s/out.tmp", dir);
  child_pid_path = format("%s/child.pid", dir);

  check_case(INPUT_SEGV, 1,
             "sycl-thinlto: error: bad.bc: malformed bitcode: LLVM's bitcode reader crashed on it "
             "(SIGSEGV)\n",
             "a crash while reading an input");
  check_case(INPUT_OVERFLOW, 1, "deep.bc: malformed bitcode: LLVM's bitcode reader crashed on it",
             "a stack overflow while reading an input");
  check_case(WORKER_OVERFLOW, 1, "deep.bc: malformed bitcode: LLVM's bitcode reader crashed on it",
             "a stack overflow in a parallel_for worker while reading an input");
  check_case(INTERNAL_BUS, EXIT_INTERNAL_ERROR,
             "sycl-thinlto: error: internal error: SIGBUS during unit test; please report it\n",
             "a crash of our own");
  check_case(INTERNAL_AFTER_READ, EXIT_INTERNAL_ERROR,
             "internal error: SIGSEGV during unit test; please report it",
             "a crash after the read is done");
  check_case(DIE, EXIT_INTERNAL_ERROR, "internal error: SIGABRT during unit test",
             "die() while reading");

  unlink(child_pid_path);
  rmdir(dir);
  return failures != 0;
}
