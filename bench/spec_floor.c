// sycl-bench-spec-floor: the work LLVM itself does for a native lowering of one
// specialization constant of N i32s (bench/RESULTS.md, "A large specialization constant"),
// through llvm-c alone and nothing of ours: N new i32 constants (the IDs), N calls of
// __spirv_SpecConstant, the descriptors' constants as metadata (each distinct value once: the
// IDs, the offsets above them, the size), and the one node of 3N + 1 operands. It prints the
// CPU seconds of each; the lowering cannot take less than their sum.
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000000;
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
  printf("N %u: ID constants %.3f s, calls %.3f s, descriptor metadata %.3f s, node %.3f s, "
         "sum %.3f s (CPU)\n",
         n, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0);

  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  free(ids);
  free(md);
  free(ops);
  return 0;
}
