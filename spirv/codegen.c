// SPIR-V generation with LLVM's own backend, in process, and the worker that serves it to
// the worker pool over stdin/stdout. It does not schedule or parallelize.
#include "spirv/spirv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

// The extensions generated code may use. LLVM 22's backend emits an OpExtension only
// for what a module actually needs, so a plain kernel gains none of these. Measured
// with llc 22 + spirv-val 2023.1: without the first two, indirect calls and dynamic
// allocas are hard errors; atomic fadd/fmin/fmax need the atomic-float ones; bitreverse
// aborts the backend without SPV_KHR_bit_instructions. "all" is not used: it turns on
// float_controls2 (execution mode 6028, rejected by spirv-val 2023.1), linkonce_odr,
// no_integer_wrap and optnone decorations in every module, and SPV_ALTERA_* names
// older consumers do not know. Device globals carry HostAccessINTEL with their unique ID
// (hooks/finalize.c), which needs SPV_INTEL_global_variable_host_access.
const char *const spirv_extensions = "+SPV_INTEL_function_pointers,"
                                     "+SPV_INTEL_variable_length_array,"
                                     "+SPV_EXT_shader_atomic_float_add,"
                                     "+SPV_EXT_shader_atomic_float_min_max,"
                                     "+SPV_EXT_shader_atomic_float16_add,"
                                     "+SPV_KHR_bit_instructions,"
                                     "+SPV_INTEL_global_variable_host_access";

static pthread_once_t target_once = PTHREAD_ONCE_INIT;

// The backend reads its extensions from the process-wide `-spirv-ext` option, which
// llvm-c can only set through the command-line parser: once per process.
static void init_spirv_target(void) {
  LLVMInitializeSPIRVTargetInfo();
  LLVMInitializeSPIRVTarget();
  LLVMInitializeSPIRVTargetMC();
  LLVMInitializeSPIRVAsmPrinter();
  char *ext = format("-spirv-ext=%s", spirv_extensions);
  const char *argv[] = {TOOL_NAME, ext};
  LLVMParseCommandLineOptions(2, argv, NULL);
  free(ext);
}

// Error diagnostics of one context, collected instead of printed.
typedef struct {
  Buffer text; // NUL-terminated when non-empty
  int errors;
} DiagnosticLog;

static void collect_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  DiagnosticLog *log = ctx;
  LLVMDiagnosticSeverity severity = LLVMGetDiagInfoSeverity(di);
  if (severity != LLVMDSError) return; // warnings and remarks are not ours to report
  char *desc = LLVMGetDiagInfoDescription(di);
  size_t len = strlen(desc); // some end in a newline: the messages around them add their own
  while (len && (desc[len - 1] == '\n' || desc[len - 1] == '\r'))
    len--;
  if (log->text.size) log->text.data[log->text.size - 1] = '\n';
  buffer_append(&log->text, desc, len);
  buffer_append(&log->text, "", 1);
  LLVMDisposeMessage(desc);
  log->errors++;
}

static char *take_diagnostics(DiagnosticLog *log, const char *fallback) {
  char *msg = log->text.size ? (char *)log->text.data : xstrdup(fallback);
  log->text = (Buffer){0};
  return msg;
}

// LLVM 22's SPIR-V backend mistranslates a declaration that is both called and address-taken
// (an imported SYCL_EXTERNAL function, or a set's virtual function that a kernel calls directly
// once devirtualized and names in a vtable): it emits two OpFunction with the same Import name
// and takes the address with OpSpecConstantOp Bitcast of the OpFunction itself instead of
// OpConstantFunctionPointerINTEL; spirv-link crashes on that. A call through `freeze ptr @f`
// is an indirect call, which the backend emits right (OpFunctionPointerCallINTEL). Only this
// backend needs it; no pass runs after it that would fold the freeze away again.
static void call_address_taken_declarations_indirectly(LLVMModuleRef m) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f)) continue;
    size_t num_calls = 0, cap = 0;
    LLVMValueRef *calls = NULL;
    bool address_taken = false;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      bool is_call = LLVMIsACallInst(user) && LLVMGetCalledValue(user) == f;
      for (unsigned a = 0; is_call && a < LLVMGetNumArgOperands(user); a++)
        address_taken |= LLVMGetOperand(user, a) == f;
      if (!is_call) {
        address_taken = true;
      } else if (num_calls == 0 || calls[num_calls - 1] != user) {
        if (num_calls == cap) calls = xrealloc(calls, (cap = cap ? 2 * cap : 8) * sizeof *calls);
        calls[num_calls++] = user;
      }
    }
    for (size_t i = 0; address_taken && i < num_calls; i++) {
      LLVMPositionBuilderBefore(b, calls[i]);
      LLVMSetOperand(calls[i], LLVMGetNumOperands(calls[i]) - 1, LLVMBuildFreeze(b, f, ""));
    }
    free(calls);
  }
  LLVMDisposeBuilder(b);
}

int spirv_emit(LLVMModuleRef m, Buffer *out, char **errmsg) {
  pthread_once(&target_once, init_spirv_target);
  call_address_taken_declarations_indirectly(m);
  *out = (Buffer){0};
  *errmsg = NULL;

  const char *triple = LLVMGetTarget(m);
  if (!triple || !*triple) triple = SPIRV_TRIPLE;
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    *errmsg = format("no SPIR-V target for triple '%s': %s", triple, msg);
    LLVMDisposeMessage(msg);
    return -1;
  }

  // Backend errors reported as diagnostics land in LOG; the caller's handler is restored.
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMDiagnosticHandler saved_handler = LLVMContextGetDiagnosticHandler(ctx);
  void *saved_ctx = LLVMContextGetDiagnosticContext(ctx);
  DiagnosticLog log = {0};
  LLVMContextSetDiagnosticHandler(ctx, collect_diagnostic, &log);

  // The modules arrive optimized (their compile jobs, then finalize's light pipeline), and
  // SPIR-V is compiled again by whoever consumes it: -O2's machine passes (LSR, machine CSE,
  // LICM, sinking) only cost time here. DPC++'s own flow, the SPIR-V translator, does no
  // machine-level optimization at all, and -O0 is what LLVM's SPIR-V backend tests run.
  // Measured on the large benchmark's 400 units, 2 cores, two runs each of `sycl-thinlto link
  // -j2 -v --no-validate --device-libs=devicelib.bc u*.o -o out.bin`: the hooks' CPU time
  // went from 18.7-19.3 s at -O2 to 15.0-15.2 s.
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, "", "", LLVMCodeGenLevelNone,
                                                    LLVMRelocDefault, LLVMCodeModelDefault);
  if (!tm) {
    *errmsg = format("cannot create a target machine for '%s'", triple);
    goto fail_handler;
  }
  // Codegen rewrites M in place; callers emit from a module they no longer need.
  LLVMMemoryBufferRef mb = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &mb)) {
    char *diags = take_diagnostics(&log, "");
    *errmsg = format("SPIR-V backend failed: %s%s%s", msg ? msg : "", *diags ? "\n" : "", diags);
    free(diags);
    LLVMDisposeMessage(msg);
    goto fail_tm;
  }
  if (log.errors) {
    char *diags = take_diagnostics(&log, "");
    *errmsg = format("SPIR-V backend failed: %s", diags);
    free(diags);
    LLVMDisposeMemoryBuffer(mb);
    goto fail_tm;
  }
  size_t size = LLVMGetBufferSize(mb);
  out->data = xmalloc(size);
  memcpy(out->data, LLVMGetBufferStart(mb), size);
  out->size = size;
  LLVMDisposeMemoryBuffer(mb);
  LLVMDisposeTargetMachine(tm);
  LLVMContextSetDiagnosticHandler(ctx, saved_handler, saved_ctx);
  free(log.text.data);
  return 0;

fail_tm:
  LLVMDisposeTargetMachine(tm);
fail_handler:
  LLVMContextSetDiagnosticHandler(ctx, saved_handler, saved_ctx);
  free(log.text.data);
  return -1;
}

//
// The worker: a process forked by hooks/spawner.c for hooks/pool.c.
//
// Frames both ways are WorkerFrame headers (spirv/spirv.h) in host byte order: parent
// and worker are the same binary on the same machine. The worker answers each request
// before reading the next; EOF on stdin between requests ends it with status 0.
//
// Each request is served by a fork()ed child, never by the worker itself. LLVM 22.1.8's
// SPIR-V backend keeps module state in a static (SPIRVModuleAnalysis::MAI,
// llvm/llvm-project#160613): from the second module on, one process emits duplicate
// result ids in about half of the modules (measured: 29 of 60). A child forked from a
// process that never ran the backend starts clean every time, for the price of a fork
// (not an exec: libLLVM stays loaded and initialized). It also confines a backend crash
// or fatal error to one request: the worker reports it and serves the next one.
//

// The worker process is single-threaded; these belong to it alone (a child has its own
// copies). Frames go to a private copy of stdout, so nothing LLVM prints can corrupt one.
static int request_fd = -1, response_fd = -1;

static int write_all(int fd, const void *data, size_t size) {
  const uint8_t *p = data;
  while (size) {
    ssize_t n = write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    p += n;
    size -= n;
  }
  return 0;
}

// 0 on a full read, 1 on EOF before the first byte, or a negative errno
// (-EPIPE for EOF in the middle).
static int read_all(int fd, void *data, size_t size) {
  uint8_t *p = data;
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, p + got, size - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) return got ? -EPIPE : 1;
    got += n;
  }
  return 0;
}

static int write_frame(int fd, uint32_t kind, const void *payload, size_t size) {
  WorkerFrame header = {WORKER_MAGIC, kind, size};
  int rc = write_all(fd, &header, sizeof header);
  return rc ? rc : write_all(fd, payload, size);
}

// In a child, LLVM calls this on report_fatal_error (many SPIR-V backend errors are
// fatal) before it exits: the request still gets an answer.
static void answer_fatal_error(const char *reason) {
  char *msg = format("SPIR-V backend failed: LLVM ERROR: %s", reason);
  write_frame(response_fd, WORKER_ERROR, msg, strlen(msg));
  free(msg);
}

// One request: bitcode in, SPIR-V or an error message out (*errmsg, malloc'd).
static int codegen_request(const uint8_t *bitcode, size_t size, Buffer *spirv, char **errmsg) {
  LLVMContextRef ctx = LLVMContextCreate();
  DiagnosticLog log = {0};
  LLVMContextSetDiagnosticHandler(ctx, collect_diagnostic, &log);
  LLVMMemoryBufferRef mb =
      LLVMCreateMemoryBufferWithMemoryRange((const char *)bitcode, size, "request", 0);
  LLVMModuleRef m = NULL;
  int rc = -1;
  if (LLVMParseBitcodeInContext2(ctx, mb, &m)) {
    char *diags = take_diagnostics(&log, "unknown error");
    *errmsg = format("cannot read bitcode: %s", diags);
    free(diags);
    goto fail_parse;
  }
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    *errmsg = format("invalid module: %s", msg);
    LLVMDisposeMessage(msg);
    goto fail_module;
  }
  LLVMDisposeMessage(msg);
  rc = spirv_emit(m, spirv, errmsg);
fail_module:
  LLVMDisposeModule(m);
fail_parse:
  LLVMDisposeMemoryBuffer(mb);
  LLVMContextDispose(ctx);
  free(log.text.data);
  return rc;
}

// Test-only failure triggers, active only with SYCL_THINLTO_WORKER_CRASH_TEST set: the
// 4-byte request TAG (unit tests), or a module naming a symbol, with the variable set to a
// comma-separated list of KIND followed by the name ("worker:_ZTS2K1,kill:_ZTS2K2"); names
// are plain bytes in bitcode's strtab. Kinds: worker: the worker crashes (SIGSEGV); kill:
// the worker is killed (SIGKILL, what the out-of-memory killer sends); backend: the backend
// child crashes; backend-kill: the backend child is killed; invalid: the SPIR-V it answers
// fails validation.
static bool crash_test_requested(const uint8_t *bitcode, size_t size, const char *tag,
                                 const char *kind) {
  const char *test = getenv("SYCL_THINLTO_WORKER_CRASH_TEST");
  if (!test) return false;
  if (tag && size == 4 && !memcmp(bitcode, tag, 4)) return true;
  size_t n = strlen(kind);
  for (const char *entry = test; *entry;) {
    size_t len = strcspn(entry, ",");
    if (len > n && !strncmp(entry, kind, n) && memmem(bitcode, size, entry + n, len - n))
      return true;
    entry += len + (entry[len] == ',');
  }
  return false;
}

// Test-only: an OpReturn after the last function, outside any block. The scans of
// hooks/hook.c walk past it; only the validator objects ("Return must appear in a block").
static void make_invalid_spirv(Buffer *spirv) {
  uint32_t op_return = 1u << 16 | 253;
  buffer_append(spirv, &op_return, sizeof op_return);
}

// The child's side: answers on RESULT_FD, its stdout and stderr in LOG_FD; never returns.
// The module a request emits: bitcode to parse (a pool worker's request), or M itself, in
// memory, which the child has a copy of (a local distributor's worker).
typedef struct {
  const uint8_t *bitcode;
  size_t size;
  LLVMModuleRef m;
} EmitRequest;

static int emit_module(LLVMModuleRef m, Buffer *spirv, char **errmsg) {
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    *errmsg = format("invalid module: %s", msg);
    LLVMDisposeMessage(msg);
    return -1;
  }
  LLVMDisposeMessage(msg);
  return spirv_emit(m, spirv, errmsg);
}

static __attribute__((noreturn)) void serve_in_child(const EmitRequest *req, int result_fd,
                                                     int log_fd) {
  const uint8_t *bitcode = req->bitcode;
  size_t size = req->size;
  response_fd = result_fd;
  dup2(log_fd, 1);
  dup2(log_fd, 2);
  LLVMResetFatalErrorHandler(); // whoever forked it: the error is answered on RESULT_FD
  LLVMInstallFatalErrorHandler(answer_fatal_error);
  // Test-only (test/unit/test_pool.c, lit): a backend crash the worker must survive.
  if (bitcode && crash_test_requested(bitcode, size, "CRSC", "backend:")) raise(SIGSEGV);
  if (bitcode && crash_test_requested(bitcode, size, NULL, "backend-kill:")) raise(SIGKILL);
  Buffer spirv = {0};
  char *errmsg = NULL;
  int failed = req->m ? emit_module(req->m, &spirv, &errmsg)
                     : codegen_request(bitcode, size, &spirv, &errmsg);
  if (!failed && bitcode && crash_test_requested(bitcode, size, NULL, "invalid:")) make_invalid_spirv(&spirv);
  int rc = !failed ? write_frame(result_fd, WORKER_SPIRV, spirv.data, spirv.size)
                   : write_frame(result_fd, WORKER_ERROR, errmsg, strlen(errmsg));
  _exit(rc ? 3 : 0); // no atexit work: the worker still owns everything shared
}

// The last bytes the child wrote to its log, for a crash message ("" if none).
static char *log_tail(int log_fd) {
  enum { KEEP = 4096 };
  off_t end = lseek(log_fd, 0, SEEK_END);
  if (end <= 0) return xstrdup("");
  off_t start = end > KEEP ? end - KEEP : 0;
  char *text = xcalloc(1, KEEP + 1);
  ssize_t n = pread(log_fd, text, end - start, start);
  if (n < 0) n = 0;
  while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
    n--;
  text[n] = 0;
  return text;
}

// Serves one request in a child and leaves exactly one whole response frame in *ANSWER: the
// child's, if it gave one whole frame; otherwise one saying why not.
static void emit_in_child(const EmitRequest *req, Buffer *answer_out) {
  int pipe_fds[2] = {-1, -1};
  int log_fd = memfd_create("sycl-thinlto-worker-log", MFD_CLOEXEC);
  char *why = NULL;
  if (log_fd < 0) {
    why = format("SPIR-V worker: cannot create a log for the backend: %s", strerror(errno));
    goto answer_why;
  }
  if (pipe2(pipe_fds, O_CLOEXEC) < 0) {
    why = format("SPIR-V worker: cannot create a pipe: %s", strerror(errno));
    goto answer_why;
  }
  pid_t self = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    why = format("SPIR-V worker: cannot fork for the backend: %s", strerror(errno));
    goto answer_why;
  }
  if (pid == 0) {
    // It ends with the worker (which ends with the spawner, which ends with the linker):
    // a link killed in the middle of a module leaves no backend running on.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != self) _exit(127);
    close(pipe_fds[0]);
    serve_in_child(req, pipe_fds[1], log_fd);
  }
  close(pipe_fds[1]);
  pipe_fds[1] = -1;

  // Read to EOF before waiting: an answer larger than the pipe would block the child.
  Buffer answer = {0};
  char chunk[65536];
  for (;;) {
    ssize_t n = read(pipe_fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer_append(&answer, chunk, n);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }

  WorkerFrame h = {0};
  if (answer.size >= sizeof h) memcpy(&h, answer.data, sizeof h);
  bool whole = answer.size >= sizeof h && h.magic == WORKER_MAGIC &&
               (h.kind == WORKER_SPIRV || h.kind == WORKER_ERROR) &&
               answer.size - sizeof h == h.size;
  // A fatal LLVM error answers, then exits 1; anything else must exit 0 to count.
  bool clean = WIFEXITED(status) &&
               (WEXITSTATUS(status) == 0 || (WEXITSTATUS(status) == 1 && h.kind == WORKER_ERROR));
  if (whole && clean) {
    *answer_out = answer;
    goto done;
  }
  free(answer.data);
  char *tail = log_tail(log_fd);
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
    why = format("SPIR-V backend was killed (signal %d, %s): by another process, or by the "
                 "out-of-memory killer",
                 SIGKILL, strsignal(SIGKILL));
  else if (WIFSIGNALED(status))
    why = format("SPIR-V backend crashed (signal %d, %s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
  else
    why = format("SPIR-V backend exited with status %d without an answer", WEXITSTATUS(status));
  if (*tail) {
    char *with_log = format("%s; its output:\n%s", why, tail);
    free(why);
    why = with_log;
  }
  free(tail);
answer_why:
  *answer_out = (Buffer){0};
  WorkerFrame frame = {WORKER_MAGIC, WORKER_ERROR, strlen(why)};
  buffer_append(answer_out, &frame, sizeof frame);
  buffer_append(answer_out, why, strlen(why));
  free(why);
done:
  if (pipe_fds[0] >= 0) close(pipe_fds[0]);
  if (pipe_fds[1] >= 0) close(pipe_fds[1]);
  if (log_fd >= 0) close(log_fd);
}

// One request answered with one response frame. 0, or a negative errno when the response
// cannot be written.
static int serve_request(const uint8_t *bitcode, size_t size) {
  Buffer answer;
  emit_in_child(&(EmitRequest){bitcode, size, NULL}, &answer);
  int rc = write_all(response_fd, answer.data, answer.size);
  free(answer.data);
  return rc;
}

int spirv_emit_forked(LLVMModuleRef m, Buffer *out, char **errmsg) {
  pthread_once(&target_once, init_spirv_target); // in the parent: once for every child
  Buffer answer;
  emit_in_child(&(EmitRequest){NULL, 0, m}, &answer);
  WorkerFrame h;
  memcpy(&h, answer.data, sizeof h);
  const char *payload = (const char *)answer.data + sizeof h;
  *out = (Buffer){0};
  *errmsg = NULL;
  if (h.kind == WORKER_SPIRV)
    buffer_append(out, payload, h.size);
  else
    *errmsg = xstrndup(payload, h.size);
  if (!out->data && !*errmsg) buffer_append(out, "", 0);
  free(answer.data);
  return *errmsg ? -1 : 0;
}

// Takes stdin and stdout for the protocol and leaves the process nothing else: every
// descriptor above 2 that slipped through the spawn is closed, fd 0 becomes /dev/null
// and fd 1 a copy of stderr. 0, or a negative errno.
static int take_protocol_fds(void) {
#ifdef __linux__
  if (close_range(3, ~0U, 0) < 0)
#endif
    for (int fd = 3; fd < 1024; fd++)
      close(fd);
  request_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
  if (request_fd < 0) return -errno;
  response_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (response_fd < 0) return -errno;
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0) return -errno;
  if (dup2(null, 0) < 0 || dup2(2, 1) < 0) return -errno;
  close(null);
  return 0;
}

static void init_worker(void) {
  pthread_once(&target_once, init_spirv_target);
  LLVMEnablePrettyStackTrace(); // a crashing child leaves a stack dump in its log
  LLVMResetFatalErrorHandler(); // not the linker's (fatal(): its clean-up, its exit)
  LLVMInstallFatalErrorHandler(answer_fatal_error);
}

void spirv_target_init(void) {
  pthread_once(&target_once, init_spirv_target);
}

void spirv_worker_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_worker);
}

int worker_main(void) {
  int rc = take_protocol_fds();
  if (rc < 0) {
    fprintf(stderr, "%s worker: cannot set up its descriptors: %s\n", TOOL_NAME, strerror(-rc));
    return 2;
  }
  spirv_worker_init(); // a no-op after the spawner's: what every child needs, set up once

  for (;;) {
    WorkerFrame header;
    rc = read_all(request_fd, &header, sizeof header);
    if (rc == 1) return 0; // EOF between requests: the pool is done with us
    if (rc < 0) {
      fprintf(stderr, "%s worker: reading a request: %s\n", TOOL_NAME, strerror(-rc));
      return 2;
    }
    if (header.magic != WORKER_MAGIC || header.kind != WORKER_CODEGEN ||
        header.size > (1ull << 40)) {
      fprintf(stderr, "%s worker: malformed request header\n", TOOL_NAME);
      return 2;
    }
    uint8_t *bitcode = xmalloc(header.size);
    rc = read_all(request_fd, bitcode, header.size);
    if (rc) {
      fprintf(stderr, "%s worker: reading %llu bytes of bitcode: %s\n", TOOL_NAME,
              (unsigned long long)header.size, rc == 1 ? "end of input" : strerror(-rc));
      free(bitcode);
      return 2;
    }
    // Test-only (test/unit/test_pool.c, lit): a worker crash the pool must survive.
    if (crash_test_requested(bitcode, header.size, "CRSH", "worker:")) raise(SIGSEGV);
    if (crash_test_requested(bitcode, header.size, NULL, "kill:")) raise(SIGKILL);
    rc = serve_request(bitcode, header.size);
    free(bitcode);
    if (rc < 0) {
      fprintf(stderr, "%s worker: writing a response: %s\n", TOOL_NAME, strerror(-rc));
      return 2;
    }
  }
}
