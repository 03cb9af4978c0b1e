// SPV_INTEL_global_variable_host_access in SPIR-V words: which variables carry HostAccessINTEL
// and under which name, and the module without the extension for tools that predate it.
#include "spirv/spirv.h"

#include <stdlib.h>
#include <string.h>

enum {
  OP_EXTENSION = 10,
  OP_CAPABILITY = 17,
  OP_DECORATE = 71,
  CAPABILITY_GLOBAL_VARIABLE_HOST_ACCESS_INTEL = 6187,
  DECORATION_HOST_ACCESS_INTEL = 6188,
  SPIRV_MAGIC = 0x07230203,
};

static const char extension_name[] = "SPV_INTEL_global_variable_host_access";

// The NUL-terminated string literal in words [W, W + N), or NULL if it does not end there.
static const char *literal(const uint32_t *w, size_t n) {
  const char *text = (const char *)w;
  return n && memchr(text, 0, n * 4) ? text : NULL;
}

int spirv_strip_host_access(Buffer *spirv, HostAccessVariable **vars, size_t *count,
                            char **errmsg) {
  const uint32_t *in = (const uint32_t *)spirv->data;
  size_t n = spirv->size / 4;
  if (spirv->size % 4 || n < 5 || in[0] != SPIRV_MAGIC) {
    *errmsg = xstrdup("not a little-endian SPIR-V module");
    return -1;
  }
  Buffer out = {0};
  buffer_append(&out, in, 5 * 4);
  bool changed = false;
  for (size_t i = 5; i < n;) {
    uint32_t words = in[i] >> 16, opcode = in[i] & 0xffff;
    if (words == 0 || i + words > n) {
      free(out.data);
      *errmsg = format("malformed SPIR-V instruction at word %zu", i);
      return -1;
    }
    const char *name = NULL;
    bool drop = (opcode == OP_CAPABILITY && words == 2 &&
                 in[i + 1] == CAPABILITY_GLOBAL_VARIABLE_HOST_ACCESS_INTEL) ||
                (opcode == OP_EXTENSION && (name = literal(in + i + 1, words - 1)) &&
                 !strcmp(name, extension_name));
    // OpDecorate %var HostAccessINTEL <access> "<name>"
    if (opcode == OP_DECORATE && words >= 5 && in[i + 2] == DECORATION_HOST_ACCESS_INTEL) {
      drop = true;
      name = literal(in + i + 4, words - 4);
      if (vars && name) {
        *vars = xrealloc(*vars, (*count + 1) * sizeof **vars);
        (*vars)[(*count)++] = (HostAccessVariable){.variable = in[i + 1], .name = xstrdup(name)};
      }
    }
    if (drop)
      changed = true;
    else
      buffer_append(&out, in + i, words * 4);
    i += words;
  }
  if (!changed) {
    free(out.data);
    return 0;
  }
  buffer_free(spirv);
  *spirv = out;
  return 0;
}
