// sycl-bench-spec-floor: the work LLVM itself does for a native lowering of one
// specialization constant of N i32s (bench/RESULTS.md, "A large specialization constant"),
// through llvm-c alone and nothing of ours: N new i32 constants (the IDs), N calls of
// __spirv_SpecConstant, the descriptors' constants as metadata (each distinct value once: the
// IDs, the offsets above them, the size), and the one node of 3N + 1 operands. It prints the
// CPU seconds of each; the lowering cannot take less than their sum.
//
// Given MODULE (what test/lit/post-link/Inputs/spec_big.py N writes), it also times our own
// lowering of it (lower_spec_constants, native, as `sycl-post-link -spec-const=native`), each
// round the floor and ours in turn, each in a context of its own, and prints the medians side
// by side: ours against the floor, and ours against the second.
//
//   sycl-bench-spec-floor [-r ROUNDS] N [MODULE]
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include "hooks/hooks.h"
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// LLVM's own work for N elements, in a context of its own; prints its parts, returns the sum.
static double floor_run(unsigned n) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("floor", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef params[2] = {i32, i32};
  LLVMTypeRef getter_type = LLVMFunctionType(i32, params, 2, 0);
  LLVMValueRef getter = LLVMAddFunction(m, "_Z20__spirv_SpecConstantii", getter_type);
  LLVMValueRef kernel =
      LLVMAddFunction(m, "K", LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, kernel, "entry"));
  LLVMValueRef zero = LLVMConstInt(i32, 0, 0);
  LLVMValueRef *ids = malloc(n * sizeof *ids);
  LLVMMetadataRef *md = calloc(4 * (size_t)n + 5, sizeof *md); // by value: offsets reach 4N
  LLVMMetadataRef *ops = malloc((3 * (size_t)n + 1) * sizeof *ops);

  double t0 = cpu_seconds();
  for (unsigned i = 0; i < n; i++)
    ids[i] = LLVMConstInt(i32, i, 0);
  double t1 = cpu_seconds();
  for (unsigned i = 0; i < n; i++)
    LLVMBuildCall2(b, getter_type, getter, (LLVMValueRef[]){ids[i], zero}, 2, "");
  double t2 = cpu_seconds();
  ops[0] = LLVMMDStringInContext2(ctx, "uid_big", 7);
  for (unsigned i = 0; i < n; i++) {
    size_t value[3] = {i, 4 * (size_t)i, 4};
    for (int k = 0; k < 3; k++) {
      size_t v = value[k];
      if (!md[v]) md[v] = LLVMValueAsMetadata(v < n ? ids[v] : LLVMConstInt(i32, v, 0));
      ops[1 + 3 * (size_t)i + k] = md[v];
    }
  }
  double t3 = cpu_seconds();
  LLVMMetadataRef node = LLVMMDNodeInContext2(ctx, ops, 3 * (size_t)n + 1);
  LLVMAddNamedMetadataOperand(m, "sycl.specialization-constants", LLVMMetadataAsValue(ctx, node));
  double t4 = cpu_seconds();
  printf("floor N %u: ID constants %.3f s, calls %.3f s, descriptor metadata %.3f s, "
         "node %.3f s, sum %.3f s (CPU)\n",
         n, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0);

  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  free(ids);
  free(md);
  free(ops);
  return t4 - t0;
}

// Our lowering of MODULE, in a context of its own: the CPU seconds of lower_spec_constants.
static double ours_run(const char *path) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buffer;
  LLVMModuleRef m;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buffer, &msg) ||
      LLVMParseIRInContext(ctx, buffer, &m, &msg)) { // takes the buffer
    fprintf(stderr, "sycl-bench-spec-floor: error: %s: %s\n", path, msg ? msg : "unreadable");
    exit(1);
  }
  bool changed = false;
  char *errmsg = NULL;
  double t0 = cpu_seconds();
  int rc = lower_spec_constants(m, SPEC_CONST_NATIVE, false, &changed, &errmsg);
  double t1 = cpu_seconds();
  if (rc || !changed) {
    fprintf(stderr, "sycl-bench-spec-floor: error: %s: %s\n", path,
            errmsg ? errmsg : "no specialization constant lowered");
    exit(1);
  }
  printf("ours  %s: lowering %.3f s (CPU)\n", path, t1 - t0);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return t1 - t0;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  int rounds = 1, i = 1;
  if (i + 1 < argc && !strcmp(argv[i], "-r")) {
    rounds = atoi(argv[i + 1]);
    i += 2;
  }
  if (rounds < 1 || rounds > 100 || argc - i > 2) {
    fprintf(stderr, "usage: sycl-bench-spec-floor [-r ROUNDS] N [MODULE]\n");
    return 2;
  }
  unsigned n = i < argc ? (unsigned)strtoul(argv[i], NULL, 10) : 1000000;
  const char *module = i + 1 < argc ? argv[i + 1] : NULL;
  double floor_s[100], ours_s[100];
  for (int r = 0; r < rounds; r++) {
    floor_s[r] = floor_run(n);
    if (module) ours_s[r] = ours_run(module);
  }
  double f = median(floor_s, rounds);
  printf("median of %d: floor %.3f s", rounds, f);
  if (module) {
    double o = median(ours_s, rounds);
    printf(", ours %.3f s, ours / floor %.2f, ours against 1 s %.2f", o, o / f, o);
  }
  printf("\n");
  return 0;
}
