// Stands in for the SYCL runtime's registration entry points: prints what the linker
// wrapper registered (layouts from upstream OffloadWrapper.cpp, SYCL flavour).
#include <stdint.h>
#include <stdio.h>

#include "sycl_image_layout.h"

void __sycl_register_lib(struct sycl_bin_desc *desc) {
  printf("registered %u image(s)\n", desc->num_images);
  for (unsigned i = 0; i < desc->num_images; i++) {
    struct sycl_device_image *img = &desc->images[i];
    uint32_t magic = 0;
    if (img->end - img->start >= 4) magic = *(const uint32_t *)img->start;
    printf("image %u: target %s, format %u, magic %08x, kernels:", i, img->target, img->format,
           magic);
    for (struct sycl_offload_entry *e = img->entries_begin; e != img->entries_end; e++)
      printf(" %s", e->name);
    printf("\n");
  }
}

void __sycl_unregister_lib(struct sycl_bin_desc *desc) {
  (void)desc;
}
