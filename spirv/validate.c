// SPIR-V validation with SPIRV-Tools' validator (spirv-val's library), in process. It does
// not interpret or fix what it reports.
#include "spirv/spirv.h"

#include <spirv-tools/libspirv.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

// In-process, through SPIRV-Tools' C API (the library spirv-val is built on, same release):
// a spirv-val process per image cost an exec, a temporary file and the tool's start-up.
// SPIR-V 1.6 without environment restrictions, spirv-val's default. Thread-safe: each call
// has its own context; the validator keeps no state between calls.
int spirv_validate(const Buffer *image, char **errmsg) {
  *errmsg = NULL;
  if (image->size % 4) {
    *errmsg = format("invalid SPIR-V: %zu bytes, not a whole number of words", image->size);
    return -1;
  }
  // SPIRV-Tools 2023.1 rejects SPV_INTEL_global_variable_host_access ("Invalid capability
  // operand: 6187"), which every image with a device global uses: it checks the rest.
  Buffer copy = {0};
  buffer_append(&copy, image->data, image->size);
  if (spirv_strip_host_access(&copy, NULL, NULL, errmsg)) {
    free(copy.data);
    return -1;
  }
  const Buffer *spirv = &copy;
  spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  if (!ctx) {
    *errmsg = xstrdup("cannot create a SPIRV-Tools context");
    free(copy.data);
    return -1;
  }
  spv_const_binary_t binary = {(const uint32_t *)spirv->data, spirv->size / 4};
  spv_diagnostic diagnostic = NULL;
  spv_result_t rc = spvValidate(ctx, &binary, &diagnostic);
  int result = 0;
  if (rc != SPV_SUCCESS) {
    // As spirv-val prints it: "error: line N: what" (N counts instructions).
    char *text = diagnostic && diagnostic->error
                     ? format("error: line %zu: %s", diagnostic->position.index, diagnostic->error)
                     : format("error: validation failed (code %d)", (int)rc);
    size_t len = strlen(text); // the validator ends its message with a newline
    while (len && text[len - 1] == '\n')
      text[--len] = 0;
    if (declares_function_pointers(spirv) && function_pointers_unsupported(text)) {
      // Not a verdict on the module; said with -v, not failed.
      note("not validated: this spirv-val cannot check SPV_INTEL_function_pointers (%.*s)",
           (int)strcspn(text, "\n"), text);
    } else {
      *errmsg = format("invalid SPIR-V: %s", text);
      result = -1;
    }
    free(text);
  }
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(ctx);
  free(copy.data);
  return result;
}
