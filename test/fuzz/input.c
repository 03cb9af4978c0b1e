// Fuzz target: the input classifier as a whole (read_input_bytes in formats/input.c): bytes of
// any form in, device images out, every error through fatal(). Here fatal() returns to the
// target by longjmp instead of exiting, and what the frames it leaves held is not freed (the
// tool would have exited): so each input first runs with the leak checker looking away,
// and one that is accepted runs again, watched, its images checked and freed.
#include "formats/formats.h"
#include "inside.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>

// LeakSanitizer's interface, when it is linked in (ASan builds); else these are NULL.
__attribute__((weak)) void __lsan_disable(void);
__attribute__((weak)) void __lsan_enable(void);

// As in the tool, an allocation that cannot be made fails (glibc's malloc would say no to
// 34 GB here) and LLVM's failure becomes fatal() (bridge_handle_bad_alloc), where ASan would
// report it first. Ours fail the same way, and xmalloc then aborts: a finding.
const char *__asan_default_options(void) {
  return "allocator_may_return_null=1:max_allocation_size_mb=2048";
}

static jmp_buf on_fatal;
static InputSet set; // static: it changes between setjmp and longjmp

static void refuse(void) {
  longjmp(on_fatal, 1);
}

// As the link's handler does (tool/link.c): an LLVM error is the input's.
static void llvm_fatal(const char *reason) {
  fatal(NULL, "LLVM ERROR: %s", reason);
}

// The sanitizers' interface, when linked in; else NULL.
__attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)(void));

static LLVMBool (*real_read)(LLVMContextRef, LLVMMemoryBufferRef, LLVMModuleRef *);

static void helper_exit(void) {
  _exit(1);
}

static void ignore_diagnostic(LLVMDiagnosticInfoRef info, void *context) {
  (void)info, (void)context;
}

static bool transfer(int fd, void *data, size_t size, bool out) {
  for (size_t done = 0; done < size;) {
    ssize_t n = out ? write(fd, (char *)data + done, size - done)
                    : read(fd, (char *)data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += n;
  }
  return true;
}

// The helper: reads (size, bytes) requests, answers one byte once LLVM has read the module:
// 1 if LLVM refused it.
// It does not report or write libFuzzer's crash files: it only dies, and its parent sees it.
static void helper_loop(int in, int out) {
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(helper_exit);
  // Its reports go to standard error, made the null device here. (A report path of
  // "/dev/null" made the sanitizer write files /dev/null.PID, in /dev.)
  int null = open("/dev/null", O_WRONLY);
  dup2(null, 2);
  const int deadly[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof deadly / sizeof *deadly; i++)
    signal(deadly[i], SIG_DFL);
  fatal_hook = helper_exit; // an LLVM error (llvm_fatal): the parent reads it for real
  for (uint64_t size;;) {
    if (!transfer(in, &size, sizeof size, false)) _exit(0);
    char *bytes = malloc(size ? size : 1);
    if (!transfer(in, bytes, size, false)) _exit(0);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMContextSetDiagnosticHandler(ctx, ignore_diagnostic, NULL);
    LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(bytes, size, "", false);
    LLVMModuleRef m;
    char refused = real_read(ctx, buffer, &m) != 0;
    if (refused)
      LLVMDisposeMemoryBuffer(buffer);
    else
      LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    free(bytes);
    if (!transfer(out, &refused, 1, true)) _exit(0);
  }
}

// LLVM's bitcode reader is not hardened against malformed input (LLVM's SECURITY.md: "Many
// of LLVM's tools are explicitly not considered to be hardened against malicious input"),
// and some modules crash it (test/fuzz/README.md). So that fuzzing gets past those to our
// own code, every module this target gives it (bitcode_triple's) is first read by a helper
// process: one the helper dies on is refused here, as if LLVM had refused it, and saved
// under $FUZZ_LLVM_CRASHES if set; one LLVM refuses or stops on is refused (without the
// message); any other is then read here for real.
LLVMBool LLVMGetBitcodeModuleInContext2(LLVMContextRef ctx, LLVMMemoryBufferRef buffer,
                                        LLVMModuleRef *out) {
  static pid_t helper = -1;
  static int request = -1, answer = -1;
  if (!real_read) *(void **)&real_read = dlsym(RTLD_NEXT, "LLVMGetBitcodeModuleInContext2");
  if (helper < 0) {
    int down[2], up[2];
    if (pipe(down) || pipe(up)) abort();
    signal(SIGPIPE, SIG_IGN);
    helper = fork();
    if (helper < 0) abort();
    if (helper == 0) {
      close(down[1]), close(up[0]);
      helper_loop(down[0], up[1]);
    }
    close(down[0]), close(up[1]);
    request = down[1], answer = up[0];
  }
  const uint8_t *bytes = (const uint8_t *)LLVMGetBufferStart(buffer);
  uint64_t size = LLVMGetBufferSize(buffer);
  // A module LLVM refuses is refused here without reading it again: LLVM's error paths leak
  // (a GB, for some), which would pile up input after input.
  char refused;
  if (transfer(request, &size, sizeof size, true) && transfer(request, (void *)bytes, size, true) &&
      transfer(answer, &refused, 1, false)) {
    if (!refused) return real_read(ctx, buffer, out);
    *out = NULL;
    return 1;
  }
  int status = 0;
  while (waitpid(helper, &status, 0) < 0 && errno == EINTR) {
  }
  close(request), close(answer);
  helper = -1;
  // LLVM stopped the helper through fatal() (an LLVM error, a failed allocation): the tool
  // would stop the same way. Not read again here: leaving LLVM by longjmp would leak what
  // it holds, a failed allocation's neighbours of a GB included, input after input.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
    fatal(NULL, "LLVM stopped reading this module (in the helper)");
  const char *dir = getenv("FUZZ_LLVM_CRASHES");
  if (dir) {
    uint64_t hash = 14695981039346656037ull; // FNV-1a: one file per module
    for (size_t i = 0; i < size; i++)
      hash = (hash ^ bytes[i]) * 1099511628211ull;
    char *path = format("%s/llvm-crash-%016llx.bc", dir, (unsigned long long)hash);
    FILE *f = fopen(path, "wb");
    if (f) fwrite(bytes, 1, size, f), fclose(f);
    free(path);
  }
  *out = NULL;
  return 1;
}

// True if the input is accepted; the images are in SET.
static bool classify(const uint8_t *data, size_t size) {
  set = (InputSet){.for_link = true}; // as a link reads its inputs (tool/link.c)
  if (setjmp(on_fatal)) return false;
  read_input_bytes(&set, "input", data, size, false);
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool handlers;
  if (!handlers) {
    handlers = true;
    fatal_hook = refuse;
    LLVMInstallFatalErrorHandler(llvm_fatal);
    bridge_handle_bad_alloc();
  }
  if (__lsan_disable) __lsan_disable();
  bool accepted = classify(data, size);
  input_set_free(&set);
  if (__lsan_enable) __lsan_enable();
  if (!accepted || !classify(data, size)) return 0;
  for (size_t i = 0; i < set.count; i++) {
    const InputImage *in = &set.items[i];
    if (!inside(in->data, in->size, data, size)) abort();
  }
  input_set_free(&set);
  return 0;
}
