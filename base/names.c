// What a function's name and attributes say about it: a builtin the implementation provides,
// or a SYCL_EXTERNAL function. Pure predicates for resolution, the split and the hooks.
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

bool demangle_names = true;

char *symbol_for_message(const char *name) {
  char *demangled = demangle_names ? bridge_demangle(name) : NULL;
  if (!demangled || !strcmp(demangled, name)) {
    free(demangled);
    return xstrdup(name);
  }
  // Device code has no RTTI: a typeinfo name (_ZTS<type>) is a kernel's, named by its type
  // as the source named it ("typeinfo name for Shared" said nothing of a kernel).
  static const char typeinfo[] = "typeinfo name for ";
  char *both = !strncmp(demangled, typeinfo, sizeof typeinfo - 1)
                   ? format("kernel %s (%s)", demangled + sizeof typeinfo - 1, name)
                   : format("%s (%s)", demangled, name);
  free(demangled);
  return both;
}

// A kernel's name: the mangled name of its type (_ZTS<type>), whose demangling reads
// "typeinfo name for <type>"; the type is the name the source gave the kernel.
static char *kernel_name_for_message(const char *name, size_t len) {
  char *mangled = xstrndup(name, len);
  char *demangled = bridge_demangle(mangled);
  if (!demangled) return mangled;
  free(mangled);
  static const char typeinfo[] = "typeinfo name for ";
  if (!strncmp(demangled, typeinfo, sizeof typeinfo - 1)) {
    char *type = xstrdup(demangled + sizeof typeinfo - 1);
    free(demangled);
    return type;
  }
  return demangled;
}

char *kernel_source_name(const char *name) {
  return kernel_name_for_message(name, strlen(name));
}

char *kernels_for_message(const char *kernels) {
  if (!demangle_names) return xstrdup(kernels);
  Buffer out = {0};
  for (const char *s = kernels; *s;) {
    size_t len = strcspn(s, " ");
    if (len) {
      char *name = kernel_name_for_message(s, len);
      if (out.size) buffer_append(&out, ", ", 2);
      buffer_append(&out, name, strlen(name));
      free(name);
    }
    s += len + (s[len] == ' ');
  }
  buffer_append(&out, "", 1);
  return (char *)out.data;
}


static bool has_prefix(const char *s, const char *prefix) {
  return !strncmp(s, prefix, strlen(prefix));
}

// The only names resolution lets stay undefined, and never entry points. Each is provided by
// something that is not a unit of this link:
//   llvm.*         intrinsics, lowered by the backend
//   __spirv_*      SPIR-V instructions and builtin variables, which the SPIR-V backend lowers
//                  (also mangled: _Z18__spirv_ocl_printfPU3AS2Kcz)
//   __sycl_*       the SYCL implementation's own, lowered by its passes (spec constants, ...)
//   __esimd_*      ESIMD intrinsics, lowered for the ESIMD back end
//   __builtin_*    the device compiler's builtins (IGC's __builtin_IB_*, ...)
//   __devicelib_*  the fallback device libraries the runtime links when the device lacks the
//                  extension (the devicelib requirement mask tells it which)
//   __clc_*        libclc's implementation functions, the OpenCL implementation's own
// Every other name, __-prefixed or not (extern "C" __my_helper, _ZN7__mylib1fEi), is linked
// from the unit that defines it or is an undefined symbol. The SYCL/imported symbols
// property has a wider rule of its own (properties/compute.c).
bool is_builtin_name(const char *name) {
  if (has_prefix(name, "llvm.")) return true;
  // A mangled free function: _Z <length> <name>.
  const char *bare = name;
  if (has_prefix(bare, "_Z") && bare[2] >= '0' && bare[2] <= '9') {
    bare += 2;
    while (*bare >= '0' && *bare <= '9')
      bare++;
  }
  static const char *const prefixes[] = {"__spirv_",   "__sycl_",      "__esimd_",
                                         "__builtin_", "__devicelib_", "__clc_"};
  for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
    if (has_prefix(bare, prefixes[i])) return true;
  return false;
}

bool module_has_module_ids(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "sycl-module-id", 14))
      return true;
  return false;
}

// DPC++ (seed 000): SYCL_EXTERNAL functions carry sycl-module-id, and nothing else is one: not
// a constructor, destructor or helper the front end emitted because a SYCL_EXTERNAL function
// uses it. Upstream clang marks nothing; it emits only what kernels and sycl_external
// functions reach, and an externally visible spir_func definition is all a SYCL_EXTERNAL
// function can be told by there.
bool is_sycl_external(LLVMValueRef f, bool module_ids) {
  if (LLVMIsDeclaration(f) || is_kernel(f)) return false;
  if (is_builtin_name(LLVMGetValueName2(f, &(size_t){0}))) return false;
  if (module_ids)
    return LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "sycl-module-id", 14);
  return LLVMGetFunctionCallConv(f) == CC_SPIR_FUNC && LLVMGetLinkage(f) == LLVMExternalLinkage;
}
