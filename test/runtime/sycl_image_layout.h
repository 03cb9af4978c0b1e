// What a wrapper object hands __sycl_register_lib: the descriptor, its images, their offload
// entries and property sets. One copy for the test runtime and the tests' stand-in runtimes.
#ifndef SYCL_IMAGE_LAYOUT_H
#define SYCL_IMAGE_LAYOUT_H

#include <stdint.h>

// The wrapper's layouts (ARCHITECTURE.md, Wrapper; property sets as in seed 000).
struct sycl_offload_entry {
  uint64_t reserved;
  uint16_t version, kind;
  uint32_t flags;
  void *addr;
  const char *name;
  uint64_t size, data;
  void *aux;
};
struct sycl_property {
  const char *name;
  const uint8_t *value; // PROP_BYTES: a u64 bit count, then the bytes; PROP_UINT32: NULL
  uint32_t type;
  uint64_t size; // PROP_BYTES: 8 + byte count; PROP_UINT32: the value itself
};
struct sycl_property_set {
  const char *name;
  struct sycl_property *begin, *end;
};
struct sycl_device_image {
  uint16_t version;
  uint8_t offload_kind, format;
  const char *target, *compile_options, *link_options;
  const uint8_t *start, *end;
  struct sycl_offload_entry *entries_begin, *entries_end;
  struct sycl_property_set *properties_begin, *properties_end;
};
struct sycl_bin_desc {
  uint16_t version, num_images;
  struct sycl_device_image *images;
  struct sycl_offload_entry *host_entries_begin, *host_entries_end;
};

#endif
