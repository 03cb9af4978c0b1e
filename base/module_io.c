// Reading and writing LLVM modules through llvm-c, each context with its own diagnostics.
// LLVM's default handler prints and calls exit(1) on errors; ours only records the text.
#include "base/base.h"

#include <llvm-c/Transforms/PassBuilder.h>

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

int module_verify(LLVMModuleRef m, char **errmsg) {
  return bridge_verify_module(m, errmsg) ? -1 : check_kernel_names(m, errmsg);
}

int module_parse_verified(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name,
                          LLVMModuleRef *out, char **errmsg) {
  if (bridge_read_verified(ctx, data, size, name, out, errmsg)) return -1;
  if (check_kernel_names(*out, errmsg) == 0) return 0;
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
  return LLVMGetFunctionCallConv(f) == CC_SPIR_KERNEL;
}
