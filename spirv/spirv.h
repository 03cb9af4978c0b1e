// spirv/ — SPIR-V generation and checks: the backend in worker processes, an external
// translator, the validator, and the small rewrites of SPIR-V words. Uses base/ only.
#ifndef SYCL_THINLTO_SPIRV_H
#define SYCL_THINLTO_SPIRV_H

#include "base/base.h"

#ifdef __cplusplus
extern "C" {
#endif

// spirv/codegen.c: the SPIR-V backend, in process; codegen rewrites M. Not thread-safe (fact 9),
// and only the first call in a process is reliable: LLVM 22.1.8 keeps module state in a
// static (llvm/llvm-project#160613), so later calls can emit duplicate ids. Use the
// worker pool, which runs each module in a fresh fork. 0, or -1 with *errmsg.
int spirv_emit(LLVMModuleRef m, Buffer *out, char **errmsg);
// spirv/codegen.c: what a worker's child does with one request (a distributed job too):
// M verified and emitted with spirv_emit in a child forked for it (which has M's copy), as a
// pool worker's requests are: a process may call it any number of times (fact 9), and a
// crash or a fatal LLVM error of the backend is the call's error (*errmsg), not the
// caller's end. M is left as it was. 0, or -1. Single-threaded callers only.
int spirv_emit_forked(LLVMModuleRef m, Buffer *out, char **errmsg);
// A SPIR-V worker, forked by hooks/spawner.c: serves codegen requests on stdin/stdout,
// each in a child forked for it; returns its exit status.
int worker_main(void);
// The SPIR-V target registered and its options set, once per process: what a process that
// forks many one-module emitters (the local distributor) does before its first fork.
void spirv_target_init(void);
// What every worker needs set up once (the target, the fatal-error handler): the spawner
// calls it before it forks any.
void spirv_worker_init(void);
// The SPIR-V extensions generated code may use (the backend's -spirv-ext, the
// translator's --spirv-ext); each is emitted only where a module needs it.
extern const char *const spirv_extensions;
// The worker protocol, served by codegen.c and spoken by hooks/pool.c: a WorkerFrame
// in host byte order, then SIZE payload bytes. Request WORKER_CODEGEN (bitcode);
// response WORKER_SPIRV (SPIR-V) or WORKER_ERROR (message text).
enum { WORKER_MAGIC = 0x57544c53, WORKER_CODEGEN = 1, WORKER_SPIRV = 2, WORKER_ERROR = 3 };
typedef struct {
  uint32_t magic, kind;
  uint64_t size;
} WorkerFrame;

// spirv/scan.c: names the module imports and exports (LinkageAttributes decorations).
int spirv_linkage(const uint8_t *data, size_t size, StringList *imports, StringList *exports,
                  char **errmsg);

// spirv/fixup.c: OpConstantNull of scalar integers becomes OpConstant 0 (see the file for why).
int spirv_fix_null_integers(Buffer *spirv, char **errmsg);

// spirv/host_access.c: SPV_INTEL_global_variable_host_access (issue 16). Takes its capability,
// extension and every HostAccessINTEL decoration out of SPIRV (tools that predate it reject
// the module: spirv-val 2023.1, spirv-link, llvm-spirv-15); with VARS, each decorated
// variable is appended to *vars / *count (malloc'd names). 0, or -1 with *errmsg.
typedef struct {
  uint32_t variable; // its result id
  char *name;        // the decoration's name: the device global's unique ID
} HostAccessVariable;
int spirv_strip_host_access(Buffer *spirv, HostAccessVariable **vars, size_t *count, char **errmsg);

// spirv/translator.c: an external SPIRV-LLVM-Translator.
// Checks that `PATH --version` reports our LLVM major. 0, or -1 with *errmsg, which
// leaves PATH for the caller to name. Blocking; any thread.
int translator_check_version(const char *path, char **errmsg);
typedef void (*TranslateDone)(void *arg, Buffer spirv, char *errmsg);
// Spawns `PATH INPUT_BC -o INPUT_BC.spv --spirv-ext=...` through libuv; loop thread only.
// DONE runs from a loop callback, never inside this call, with the SPIR-V (the .spv file
// is removed) or a message with the exit status and the translator's output.
void translator_submit(uv_loop_t *loop, const char *path, const char *input_bc, TranslateDone done,
                       void *arg);

// spirv/validate.c: SPIRV-Tools' validator (what spirv-val runs) on SPIRV, in-process. 0, or -1
// with *errmsg carrying its message. Thread-safe.
int spirv_validate(const Buffer *spirv, char **errmsg);

#ifdef __cplusplus
}
#endif

#endif
