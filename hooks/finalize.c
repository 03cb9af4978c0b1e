// Finalization of a completed image: everything but its entry points becomes internal and
// what nothing reaches is deleted. It does not compute runtime metadata or emit SPIR-V.
#include "sycl_thinlto.h"

#include <ctype.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdlib.h>
#include <string.h>

bool is_implementation_name(const char *name) {
  if (!strncmp(name, "__", 2)) return true;
  if (strncmp(name, "_Z", 2)) return false;
  // The first source name of an Itanium mangling: _Z [N] [CV-qualifiers] [L] <len><id>.
  const char *p = name + 2;
  if (*p == 'N') p++;
  while (*p == 'K' || *p == 'V' || *p == 'r')
    p++;
  if (*p == 'L') p++;
  if (!isdigit((unsigned char)*p)) return false;
  size_t len = strtoul(p, (char **)&p, 10);
  return len >= 2 && strlen(p) >= 2 && p[0] == '_' && p[1] == '_';
}

static void internalize(LLVMValueRef gv, const StringList *entry_points) {
  if (LLVMIsDeclaration(gv)) return;
  LLVMLinkage l = LLVMGetLinkage(gv);
  if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage || l == LLVMAppendingLinkage) return;
  size_t len;
  const char *name = LLVMGetValueName2(gv, &len);
  if (!strncmp(name, "llvm.", 5) || strlist_contains(entry_points, name)) {
    LLVMSetLinkage(gv, LLVMExternalLinkage); // an entry point stays exactly itself
    return;
  }
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMSetVisibility(gv, LLVMDefaultVisibility);
  LLVMSetComdat(gv, NULL);
}

int finalize_module(LLVMModuleRef m, const StringList *entry_points, char **errmsg) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    internalize(f, entry_points);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    internalize(g, entry_points);
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(m, "globaldce,strip-dead-prototypes", NULL, options);
  LLVMDisposePassBuilderOptions(options);
  if (err) {
    char *why = LLVMGetErrorMessage(err);
    *errmsg = format("cannot finalize the image: %s", why);
    LLVMDisposeErrorMessage(why);
    return -1;
  }
  return 0;
}
