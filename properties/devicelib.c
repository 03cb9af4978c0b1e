// The devicelib requirement mask: which fallback device library a __devicelib_ declaration
// needs, looked up in devicelib_table.def. It does not scan modules (compute.c does).
#include "sycl_thinlto.h"

#include <pthread.h>
#include <string.h>

#define DEVICELIB_LIBRARY(library, bit) enum { devicelib_bit_##library = bit };
#include "devicelib_table.def"
#undef DEVICELIB_LIBRARY

static const struct {
  const char *name;
  uint32_t bit;
} devicelib_functions[] = {
#define DEVICELIB(library, suffix) {"__devicelib_" #suffix, devicelib_bit_##library},
#include "devicelib_table.def"
#undef DEVICELIB
};

static StrMap devicelib_index; // name -> bit, built once
static pthread_once_t devicelib_index_once = PTHREAD_ONCE_INIT;

static void build_devicelib_index(void) {
  for (size_t i = 0; i < sizeof devicelib_functions / sizeof *devicelib_functions; i++)
    strmap_put(&devicelib_index, devicelib_functions[i].name,
               (void *)(uintptr_t)devicelib_functions[i].bit);
}

uint32_t devicelib_bit(const char *name) {
  if (strncmp(name, "__devicelib_", 12)) return 0;
  pthread_once(&devicelib_index_once, build_devicelib_index);
  uint32_t bit = (uint32_t)(uintptr_t)strmap_get(&devicelib_index, name);
  if (bit) return bit;
  // intel's group-sort fallback library, matched by prefix.
  if (!strncmp(name, "__devicelib_default_work_group_", 31) ||
      !strncmp(name, "__devicelib_default_sub_group_", 30))
    return 0x400;
  return 0;
}

size_t devicelib_table_size(void) {
  return sizeof devicelib_functions / sizeof *devicelib_functions;
}
