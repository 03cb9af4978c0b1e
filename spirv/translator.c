// SPIR-V generation with an external SPIRV-LLVM-Translator (`llvm-spirv IN.bc -o OUT.spv`):
// its version check and one child process per image. It does not pick or find the tool.
#include "spirv/spirv.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h>

// The translator reads our bitcode only if it is built for the same LLVM major
// (ARCHITECTURE: llvm-spirv-15 fails on LLVM 22 bitcode with "Unknown attribute kind").
// Its --version prints LLVM's banner: "LLVM version 22.1.8" (upstream) or
// "Debian LLVM version 15.0.6" (Debian's llvm-spirv-15). Messages leave out PATH: the
// caller names it (`sycl-thinlto: error: PATH: translator is built for LLVM 15, ...`).
int translator_check_version(const char *path, char **errmsg) {
  *errmsg = NULL;
  const char *argv[] = {path, "--version", NULL};
  Buffer out;
  int status;
  int rc = run_tool(argv, &out, &status);
  if (rc < 0) {
    *errmsg = rc == -ENOENT   ? xstrdup("translator not found")
              : rc == -EACCES ? xstrdup("translator is not executable")
                              : format("cannot run the translator: %s", strerror(-rc));
    return -1;
  }
  const char *text = (const char *)out.data;
  int result = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    int first_line = (int)strcspn(text, "\n");
    *errmsg =
        format("'--version' failed (%s %d)%s%.*s", WIFSIGNALED(status) ? "signal" : "exit status",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), first_line ? ": " : "",
               first_line, text);
    goto done;
  }
  const char *v = strstr(text, "LLVM version ");
  char *end;
  long major = v ? strtol(v + strlen("LLVM version "), &end, 10) : 0;
  if (!v || end == v + strlen("LLVM version ") || major <= 0) {
    *errmsg = xstrdup("cannot tell which LLVM the translator is built for ('--version' prints "
                      "no 'LLVM version X.Y.Z')");
    goto done;
  }
  if (major != LLVM_VERSION_MAJOR) {
    *errmsg = format("translator is built for LLVM %ld, %s needs LLVM %d", major, TOOL_NAME,
                     LLVM_VERSION_MAJOR);
    goto done;
  }
  result = 0;
done:
  free(out.data);
  return result;
}

// One translation in flight. Loop thread only: libuv callbacks own it until the last
// handle is closed, then the done callback runs and it is freed.
typedef struct {
  uv_process_t process;
  uv_pipe_t out, err;
  int open_handles;
  char *tool, *spv_path;
  TranslateDone done;
  void *arg;
  int spawn_error;
  bool exited, out_done, err_done, closing;
  int64_t exit_status;
  int term_signal;
  Buffer output; // stdout and stderr, as they arrive
  char chunk[4096];
} Translation;

static const uint8_t spirv_magic[4] = {0x03, 0x02, 0x23, 0x07}; // 0x07230203, little-endian

// All handles are closed: nothing of libuv refers to T any more.
static void translation_closed(uv_handle_t *handle) {
  Translation *t = handle->data;
  if (--t->open_handles) return;
  Buffer spirv = {0};
  char *errmsg = NULL;
  size_t n = t->output.size;
  const char *text = t->output.data ? (const char *)t->output.data : "";
  while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
    n--;

  if (t->spawn_error) {
    errmsg = format("cannot run %s: %s", t->tool, uv_strerror(t->spawn_error));
  } else if (t->term_signal || t->exit_status) {
    errmsg =
        format("%s failed (%s %d)%s%.*s", t->tool, t->term_signal ? "signal" : "exit status",
               t->term_signal ? t->term_signal : (int)t->exit_status, n ? ":\n" : "", (int)n, text);
  } else {
    int rc = read_file(t->spv_path, &spirv);
    if (rc < 0) {
      errmsg = format("%s exited 0 but its output %s cannot be read: %s", t->tool, t->spv_path,
                      strerror(-rc));
    } else if (spirv.size < 20 || memcmp(spirv.data, spirv_magic, 4) != 0) {
      errmsg = format("%s wrote %s, which is not SPIR-V", t->tool, t->spv_path);
      free(spirv.data);
      spirv = (Buffer){0};
    }
  }
  own_remove(t->spv_path); // ours, also when partial; the caller keeps what it needs
  TranslateDone done = t->done;
  void *arg = t->arg;
  free(t->tool);
  free(t->spv_path);
  free(t->output.data);
  free(t);
  done(arg, spirv, errmsg);
}

static void close_translation(Translation *t) {
  t->closing = true;
  uv_close((uv_handle_t *)&t->process, translation_closed);
  uv_close((uv_handle_t *)&t->out, translation_closed);
  uv_close((uv_handle_t *)&t->err, translation_closed);
}

// The result is known once the process has exited and both pipes reached EOF.
static void maybe_finish(Translation *t) {
  if (t->exited && t->out_done && t->err_done && !t->closing) close_translation(t);
}

static void translator_exited(uv_process_t *process, int64_t exit_status, int term_signal) {
  Translation *t = process->data;
  untrack_child(process->pid);
  t->exited = true;
  t->exit_status = exit_status;
  t->term_signal = term_signal;
  maybe_finish(t);
}

static void alloc_chunk(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  (void)suggested;
  Translation *t = handle->data;
  buf->base = t->chunk;
  buf->len = sizeof t->chunk;
}

static void read_output(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  Translation *t = stream->data;
  if (nread > 0) {
    buffer_append(&t->output, buf->base, nread);
  } else if (nread < 0) {
    uv_read_stop(stream);
    if (stream == (uv_stream_t *)&t->out)
      t->out_done = true;
    else
      t->err_done = true;
    maybe_finish(t);
  }
}

void translator_submit(uv_loop_t *loop, const char *path, const char *input_bc, TranslateDone done,
                       void *arg) {
  Translation *t = xcalloc(1, sizeof *t);
  t->tool = xstrdup(path);
  t->spv_path = format("%s.spv", input_bc);
  t->done = done;
  t->arg = arg;
  t->open_handles = 3;
  uv_pipe_init(loop, &t->out, 0);
  uv_pipe_init(loop, &t->err, 0);
  t->out.data = t->err.data = t;

  char *ext = format("--spirv-ext=%s", spirv_extensions);
  char *input = xstrdup(input_bc), *output_flag = xstrdup("-o");
  char *args[] = {t->tool, input, output_flag, t->spv_path, ext, NULL};
  uv_stdio_container_t stdio[3] = {
      {.flags = UV_IGNORE},
      {.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)&t->out},
      {.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)&t->err},
  };
  uv_process_options_t options = {
      .exit_cb = translator_exited,
      .file = t->tool,
      .args = args,
      .stdio_count = 3,
      .stdio = stdio,
  };
  int rc = uv_spawn(loop, &t->process, &options);
  t->process.data = t;
  free(ext);
  free(input);
  free(output_flag);
  if (rc < 0) goto fail_spawn;
  track_child(t->process.pid); // a signal that ends us ends it too
  if ((rc = uv_read_start((uv_stream_t *)&t->out, alloc_chunk, read_output)) < 0 ||
      (rc = uv_read_start((uv_stream_t *)&t->err, alloc_chunk, read_output)) < 0) {
    // Not expected for fresh pipes; the exit callback still comes, the EOFs will not.
    uv_process_kill(&t->process, SIGKILL);
    t->out_done = t->err_done = true;
    buffer_append(&t->output, "cannot read its output: ", 24);
    buffer_append(&t->output, uv_strerror(rc), strlen(uv_strerror(rc)));
  }
  return;

fail_spawn:
  // The callback runs from the close callbacks, never from inside this call.
  t->spawn_error = rc;
  close_translation(t);
}
