// SPIR-V validation with spirv-val (SPIRV-Tools), and the blocking child-process runner
// it shares with translator.c. It does not interpret or fix what spirv-val reports.
#include "sycl_thinlto.h"

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

// Trailing newlines off spirv-val's message; the result is malloc'd.
static char *trimmed(const Buffer *b) {
  size_t n = b->size;
  while (n && (b->data[n - 1] == '\n' || b->data[n - 1] == '\r'))
    n--;
  return xstrndup(b->data ? (const char *)b->data : "", n);
}

// Debian's spirv-val 2023.1 (and later releases too, see chipStar#1484) rejects valid
// SPV_INTEL_function_pointers code: the forward reference of OpConstantFunctionPointerINTEL
// to its OpFunction (SPIRV-LLVM-Translator#3185) and any OpTypePointer to a function type
// ("Invalid use of function type result id": it allows a function type in OpFunction only,
// while the extension's function pointers are such pointers; a kernel that only calls through
// one has OpTypePointer Function %fnty, with no CodeSectionINTEL in the message). It stops at
// that first error, so such a module cannot be checked there.
static bool declares_function_pointers(const Buffer *spirv) {
  const uint32_t *w = (const uint32_t *)spirv->data;
  size_t n = spirv->size / 4;
  for (size_t i = 5; i < n && w[i] >> 16;) {
    if ((w[i] & 0xffff) == 17 /* OpCapability */ && i + 1 < n && w[i + 1] == 5603) return true;
    i += w[i] >> 16;
  }
  return false;
}

static bool function_pointers_unsupported(const char *text) {
  return strstr(text, "OpConstantFunctionPointerINTEL") || strstr(text, "CodeSectionINTEL") ||
         strstr(text, "OpFunctionPointerCallINTEL") ||
         strstr(text, "Invalid use of function type result id");
}

int spirv_validate(const Buffer *spirv, char **errmsg) {
  *errmsg = NULL;
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char *path = format("%s/%s-XXXXXX.spv", dir, TOOL_NAME);
  int fd = mkostemps(path, 4, O_CLOEXEC);
  if (fd < 0) {
    *errmsg =
        format("cannot create a temporary file for spirv-val in %s: %s", dir, strerror(errno));
    free(path);
    return -1;
  }
  remove_on_failure(path);
  int result = -1;
  const uint8_t *p = spirv->data;
  size_t left = spirv->size;
  while (left) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *errmsg = format("cannot write %s for spirv-val: %s", path, strerror(errno));
      close(fd);
      goto fail_file;
    }
    p += n;
    left -= n;
  }
  if (close(fd) < 0) {
    *errmsg = format("cannot write %s for spirv-val: %s", path, strerror(errno));
    goto fail_file;
  }

  const char *argv[] = {"spirv-val", path, NULL};
  Buffer output;
  int status;
  int rc = run_tool(argv, &output, &status);
  if (rc == -ENOENT) {
    *errmsg = xstrdup("spirv-val not found on PATH (install spirv-tools, or pass --no-validate)");
    goto fail_file;
  }
  if (rc < 0) {
    *errmsg = format("cannot run spirv-val: %s", strerror(-rc));
    goto fail_file;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    result = 0;
  } else {
    char *text = trimmed(&output);
    if (WIFEXITED(status) && declares_function_pointers(spirv) &&
        function_pointers_unsupported(text)) {
      // Not a verdict on the module; said with -v, not failed.
      note("not validated: this spirv-val cannot check SPV_INTEL_function_pointers (%.*s)",
           (int)strcspn(text, "\n"), text);
      result = 0;
    } else if (WIFSIGNALED(status))
      *errmsg =
          format("spirv-val crashed (signal %d)%s%s", WTERMSIG(status), *text ? ": " : "", text);
    else if (*text)
      *errmsg = format("invalid SPIR-V: %s", text);
    else
      *errmsg = format("invalid SPIR-V (spirv-val exited with status %d)", WEXITSTATUS(status));
    free(text);
  }
  free(output.data);
fail_file:
  unlink(path);
  keep_on_success(path);
  free(path);
  return result;
}
