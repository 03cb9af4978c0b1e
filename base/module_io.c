// Reading and writing LLVM modules through llvm-c, each context with its own diagnostics.
// LLVM's default handler prints and calls exit(1) on errors; ours only records the text.
#include "base/base.h"

#include <llvm-c/Transforms/PassBuilder.h>

#include <limits.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *last_error;
} Diagnostics;

static void keep_diagnostic(LLVMDiagnosticInfoRef info, void *arg) {
  Diagnostics *d = arg;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError) return;
  char *text = LLVMGetDiagInfoDescription(info);
  free(d->last_error);
  d->last_error = xstrdup(text);
  LLVMDisposeMessage(text);
}

LLVMContextRef context_create(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(ctx, keep_diagnostic, xcalloc(1, sizeof(Diagnostics)));
  return ctx;
}

void context_dispose(LLVMContextRef ctx) {
  Diagnostics *d = LLVMContextGetDiagnosticContext(ctx);
  LLVMContextDispose(ctx);
  if (d) free(d->last_error);
  free(d);
}

const char *context_last_error(LLVMContextRef ctx) {
  Diagnostics *d = LLVMContextGetDiagnosticContext(ctx);
  return d ? d->last_error : NULL;
}

int module_parse(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name, bool lazy,
                 LLVMModuleRef *out, char **errmsg) {
  if (!lazy) return bridge_read_whole(ctx, data, size, name, out, errmsg);
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size, name, false);
  LLVMBool failed = LLVMGetBitcodeModuleInContext2(ctx, buf, out); // takes the buffer over
  if (failed) {
    const char *why = context_last_error(ctx);
    *errmsg = format("invalid bitcode: %s", why ? why : "unreadable module");
    *out = NULL;
    return -1;
  }
  return 0;
}

// Kernels are listed one name a line (.sym files, the OffloadBinary "symbols" key, which
// clang-sycl-linker writes the same way): a line break in a name would make two kernels of
// one, a NUL would cut it. Such a kernel is refused where its module is read; any other byte
// (spaces included) is kept whole. 0, or -1 with *errmsg.
static int check_kernel_names(LLVMModuleRef m, char **errmsg) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || !is_kernel(f)) continue;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!memchr(name, '\n', len) && !memchr(name, '\r', len) && !memchr(name, 0, len)) continue;
    Buffer shown = {0};
    for (size_t i = 0; i < len; i++) {
      char esc[8];
      unsigned char c = name[i];
      if (c == '\n' || c == '\r' || c == 0)
        buffer_append(&shown, esc, (size_t)snprintf(esc, sizeof esc, "\\x%02x", c));
      else
        buffer_append(&shown, &c, 1);
    }
    buffer_append(&shown, "", 1);
    *errmsg = format("kernel '%s': a kernel's name may not hold a line break or a NUL (kernels "
                     "are listed one name a line: .sym files, the images' symbols)",
                     (char *)shown.data);
    free(shown.data);
    return -1;
  }
  return 0;
}

// The SYCL function metadata read as integers (properties/compute.c, split/split.c,
// split/virtual.c), in the forms DPC++ and clang write them. LLVM's verifier does not look
// inside them: a string where a size belongs was read as 0, and intel's sycl-post-link
// asserts on it. Aspects are bare integers or !{!"name", integer} pairs.
static const struct {
  const char *kind;
  unsigned min, max; // operands
  bool aspects;
  const char *holds;
} sycl_integer_metadata[] = {
    {"reqd_work_group_size", 1, 3, false, "1 to 3 integer constants"},
    {"max_work_group_size", 1, 3, false, "1 to 3 integer constants"},
    // The first operand is read, as intel's tools do; intel's own tests write
    // !intel_reqd_sub_group_size !{i32 16, i32 16} (per-reqd-sub-group-size-split-3.ll).
    {"work_group_num_dim", 1, UINT_MAX, false, "integer constants, at least one"},
    {"intel_reqd_sub_group_size", 1, UINT_MAX, false, "integer constants, at least one"},
    {"max_linear_work_group_size", 1, UINT_MAX, false, "integer constants, at least one"},
    {"sycl_fixed_targets", 0, UINT_MAX, false, "integer constants only"},
    {"sycl_kernel_omit_args", 0, UINT_MAX, false, "integer constants only"},
    {"sycl_used_aspects", 0, UINT_MAX, true,
     "integer constants or !{!\"name\", integer} pairs only"},
    {"sycl_declared_aspects", 0, UINT_MAX, true,
     "integer constants or !{!\"name\", integer} pairs only"},
};

// An integer the readers can take whole (LLVMConstIntGetZExtValue: 64 bits at most).
static bool is_integer_constant(LLVMValueRef v) {
  return v && LLVMIsAConstantInt(v) && LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64;
}

static bool is_aspect_pair(LLVMValueRef v) {
  if (!v || !LLVMIsAMDNode(v) || LLVMGetMDNodeNumOperands(v) != 2) return false;
  LLVMValueRef pair[2];
  LLVMGetMDNodeOperands(v, pair);
  return pair[0] && LLVMIsAMDString(pair[0]) && is_integer_constant(pair[1]);
}

static bool holds_its_form(LLVMValueRef node, size_t k) {
  unsigned n = LLVMGetMDNodeNumOperands(node);
  if (n < sycl_integer_metadata[k].min || n > sycl_integer_metadata[k].max) return false;
  LLVMValueRef *ops = xcalloc(n + 1, sizeof *ops);
  LLVMGetMDNodeOperands(node, ops);
  bool ok = true;
  for (unsigned i = 0; i < n && ok; i++)
    ok =
        is_integer_constant(ops[i]) || (sycl_integer_metadata[k].aspects && is_aspect_pair(ops[i]));
  free(ops);
  return ok;
}

// 0, or -1 with *errmsg "function NAME: !KIND must hold ...", for the first function (in
// module order) whose metadata is not of its form.
static int check_sycl_metadata(LLVMModuleRef m, char **errmsg) {
  enum { KINDS = sizeof sycl_integer_metadata / sizeof *sycl_integer_metadata };
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  unsigned ids[KINDS];
  for (size_t k = 0; k < KINDS; k++)
    ids[k] = LLVMGetMDKindIDInContext(ctx, sycl_integer_metadata[k].kind,
                                      (unsigned)strlen(sycl_integer_metadata[k].kind));
  int status = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !status; f = LLVMGetNextFunction(f)) {
    size_t count;
    LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(f, &count);
    for (size_t e = 0; e < count && !status; e++) {
      unsigned id = LLVMValueMetadataEntriesGetKind(entries, (unsigned)e);
      for (size_t k = 0; k < KINDS && !status; k++) {
        if (id != ids[k]) continue;
        LLVMValueRef node =
            LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(entries, (unsigned)e));
        if (holds_its_form(node, k)) continue;
        *errmsg = format("function %s: !%s must hold %s", LLVMGetValueName2(f, &(size_t){0}),
                         sycl_integer_metadata[k].kind, sycl_integer_metadata[k].holds);
        status = -1;
      }
    }
    if (entries) LLVMDisposeValueMetadataEntries(entries);
  }
  return status;
}

// What the verifier does not check and the tool relies on: kernel names, SYCL metadata.
static int check_sycl_module(LLVMModuleRef m, char **errmsg) {
  return check_kernel_names(m, errmsg) ? -1 : check_sycl_metadata(m, errmsg);
}

int module_verify(LLVMModuleRef m, char **errmsg) {
  return bridge_verify_module(m, errmsg) ? -1 : check_sycl_module(m, errmsg);
}

int module_parse_verified(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name,
                          LLVMModuleRef *out, char **errmsg) {
  if (bridge_read_verified(ctx, data, size, name, out, errmsg)) return -1;
  if (check_sycl_module(*out, errmsg) == 0) return 0;
  LLVMDisposeModule(*out);
  *out = NULL;
  return -1;
}

Buffer module_write(LLVMModuleRef m) {
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(m);
  Buffer out = {.size = LLVMGetBufferSize(buf)};
  out.data = xmalloc(out.size);
  memcpy(out.data, LLVMGetBufferStart(buf), out.size);
  LLVMDisposeMemoryBuffer(buf);
  return out;
}

// NULL for success, or the error's message (malloc'd); consumes ERR.
static char *error_text(LLVMErrorRef err) {
  if (!err) return NULL;
  char *why = LLVMGetErrorMessage(err);
  char *copy = xstrdup(why);
  LLVMDisposeErrorMessage(why);
  return copy;
}

char *run_passes(LLVMModuleRef m, const char *passes) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(m, passes, NULL, options);
  LLVMDisposePassBuilderOptions(options);
  return error_text(err);
}

char *run_function_passes(LLVMValueRef f, const char *passes) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPassesOnFunction(f, passes, NULL, options);
  LLVMDisposePassBuilderOptions(options);
  return error_text(err);
}

LLVMValueRef global_metadata_node(LLVMValueRef gv, const char *name) {
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(gv));
  unsigned kind = LLVMGetMDKindIDInContext(ctx, name, (unsigned)strlen(name));
  size_t count;
  LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(gv, &count);
  LLVMValueRef node = NULL;
  for (size_t i = 0; i < count && !node; i++)
    if (LLVMValueMetadataEntriesGetKind(entries, (unsigned)i) == kind)
      node = LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(entries, (unsigned)i));
  if (entries) LLVMDisposeValueMetadataEntries(entries);
  return node;
}

bool is_internalizable(LLVMValueRef gv) {
  if (LLVMIsDeclaration(gv)) return false;
  LLVMLinkage l = LLVMGetLinkage(gv);
  return l != LLVMInternalLinkage && l != LLVMPrivateLinkage && l != LLVMAppendingLinkage;
}

void make_internal(LLVMValueRef gv) {
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMSetVisibility(gv, LLVMDefaultVisibility);
  LLVMSetComdat(gv, NULL);
}

LLVMValueRef first_global_object(LLVMModuleRef m) {
  LLVMValueRef f = LLVMGetFirstFunction(m);
  return f ? f : LLVMGetFirstGlobal(m);
}

LLVMValueRef next_global_object(LLVMValueRef gv) {
  if (!LLVMIsAFunction(gv)) return LLVMGetNextGlobal(gv);
  LLVMValueRef next = LLVMGetNextFunction(gv);
  return next ? next : LLVMGetFirstGlobal(LLVMGetGlobalParent(gv));
}

static const char spirv64_datalayout[] =
    "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:"
    "64-G1";

void set_canonical_triple(LLVMModuleRef m) {
  if (!strcmp(LLVMGetTarget(m), SPIRV_TRIPLE)) return;
  LLVMSetTarget(m, SPIRV_TRIPLE);
  LLVMSetDataLayout(m, spirv64_datalayout);
}

bool is_llvm_bitcode(const uint8_t *data, size_t size) {
  static const uint8_t raw[4] = {'B', 'C', 0xC0, 0xDE};
  static const uint8_t wrapper[4] = {0xDE, 0xC0, 0x17, 0x0B}; // 0x0B17C0DE, little-endian
  return size >= 4 && (!memcmp(data, raw, 4) || !memcmp(data, wrapper, 4));
}

bool is_kernel(LLVMValueRef f) {
  unsigned cc = LLVMGetFunctionCallConv(f);
  return cc == CC_SPIR_KERNEL || cc == CC_AMDGPU_KERNEL || cc == CC_PTX_KERNEL;
}
