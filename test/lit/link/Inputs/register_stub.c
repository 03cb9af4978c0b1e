// Stands in for the SYCL runtime's registration entry points: prints what the linker
// wrapper registered (layouts from upstream OffloadWrapper.cpp, SYCL flavour).
#include <stdint.h>
#include <stdio.h>

struct offload_entry {
  uint64_t reserved;
  uint16_t version, kind;
  uint32_t flags;
  void *addr;
  const char *name;
  uint64_t size, data;
  void *aux;
};
struct device_image {
  uint16_t version;
  uint8_t kind, format;
  const char *target, *compile_options, *link_options;
  const unsigned char *start, *end;
  struct offload_entry *entries_begin, *entries_end;
  void *properties_begin, *properties_end;
};
struct bin_desc {
  uint16_t version, num_images;
  struct device_image *images;
  struct offload_entry *host_entries_begin, *host_entries_end;
};

void __sycl_register_lib(struct bin_desc *desc) {
  printf("registered %u image(s)\n", desc->num_images);
  for (unsigned i = 0; i < desc->num_images; i++) {
    struct device_image *img = &desc->images[i];
    uint32_t magic = 0;
    if (img->end - img->start >= 4) magic = *(const uint32_t *)img->start;
    printf("image %u: target %s, format %u, magic %08x, kernels:", i, img->target, img->format,
           magic);
    for (struct offload_entry *e = img->entries_begin; e != img->entries_end; e++)
      printf(" %s", e->name);
    printf("\n");
  }
}

void __sycl_unregister_lib(struct bin_desc *desc) {
  (void)desc;
}
