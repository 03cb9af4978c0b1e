// Stands in for the SYCL runtime: prints everything a wrapper object registers, property
// sets included (DPC++ layout: a uint32 in the size field, byte arrays after a bit count).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sycl_image_layout.h"

void __sycl_register_lib(struct sycl_bin_desc *desc) {
  printf("descriptor version %u, %u image(s)\n", desc->version, desc->num_images);
  for (unsigned i = 0; i < desc->num_images; i++) {
    struct sycl_device_image *img = &desc->images[i];
    uint32_t magic = img->end - img->start >= 4 ? *(const uint32_t *)img->start : 0;
    printf("image %u: version %u, kind %u, format %u, target %s, magic %08x, %ld bytes\n", i,
           img->version, img->offload_kind, img->format, img->target, magic,
           (long)(img->end - img->start));
    // PRINT_REGISTERED_DUMP=PREFIX: image I's bytes, as registered, go to PREFIX.I.
    const char *dump = getenv("PRINT_REGISTERED_DUMP");
    if (dump) {
      char path[4096];
      snprintf(path, sizeof path, "%s.%u", dump, i);
      FILE *f = fopen(path, "wb");
      if (f) {
        fwrite(img->start, 1, (size_t)(img->end - img->start), f);
        fclose(f);
      }
    }
    for (struct sycl_offload_entry *e = img->entries_begin; e != img->entries_end; e++)
      printf("  kernel %s (entry version %u, kind %u)\n", e->name, e->version, e->kind);
    for (struct sycl_property_set *s = img->properties_begin; s != img->properties_end; s++) {
      printf("  set [%s]\n", s->name);
      for (struct sycl_property *p = s->begin; p != s->end; p++) {
        if (p->type == 1) {
          printf("    %s = %llu\n", p->name, (unsigned long long)p->size);
          continue;
        }
        uint64_t bits = 0;
        for (int b = 0; b < 8; b++)
          bits |= (uint64_t)p->value[b] << (8 * b);
        printf("    %s = %llu bits:", p->name, (unsigned long long)bits);
        for (uint64_t b = 8; b < p->size; b++)
          printf(" %02x", p->value[b]);
        printf("\n");
      }
    }
  }
}

void __sycl_unregister_lib(struct sycl_bin_desc *desc) {
  printf("unregistered %u image(s)\n", desc->num_images);
}
