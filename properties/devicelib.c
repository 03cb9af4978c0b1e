// The devicelib requirement mask: which fallback device library a __devicelib_ declaration
// needs, looked up in devicelib_table.def, and which library defines a libm-style name. It
// does not scan modules (compute.c does).
#include "properties/properties.h"

#include <pthread.h>
#include <stdio.h>
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

// DPC++ ships each fallback library in two halves: libsycl-cmath.bc's cmath_wrapper defines
// sqrtf by calling __devicelib_sqrtf, which the runtime's fallback SPIR-V (or the device)
// provides. So a plain name is in a wrapper library's table exactly when __devicelib_ + name
// is in the fallback library's, and the library follows from the table's bit.
static const struct {
  uint32_t bit;
  const char *file;
} wrapper_libraries[] = {
    {devicelib_bit_math, "libsycl-cmath.bc"},
    {devicelib_bit_math_fp64, "libsycl-cmath-fp64.bc"},
    {devicelib_bit_complex, "libsycl-complex.bc"},
    {devicelib_bit_complex_fp64, "libsycl-complex-fp64.bc"},
};

const char *devicelib_wrapper_library(const char *name) {
  char full[128];
  if (!strncmp(name, "__", 2) ||
      snprintf(full, sizeof full, "__devicelib_%s", name) >= (int)sizeof full)
    return NULL;
  uint32_t bit = devicelib_bit(full);
  for (size_t i = 0; i < sizeof wrapper_libraries / sizeof *wrapper_libraries; i++)
    if (wrapper_libraries[i].bit == bit) return wrapper_libraries[i].file;
  return NULL;
}
