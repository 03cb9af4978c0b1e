// Fuzz target: the reader of the images a linked program registers (linked_images,
// formats/linked.c) on any bytes. What it finds lies inside them; it never runs away.
#include "formats/formats.h"
#include "inside.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LinkedImage *images;
  size_t count;
  char *errmsg = NULL;
  if (linked_images(data, size, &images, &count, &errmsg)) {
    free(errmsg);
    return 0;
  }
  for (size_t i = 0; i < count; i++) {
    const LinkedImage *img = &images[i];
    if (!inside(img->image, img->image_size, data, size)) abort();
    char *json = propsets_to_json(&img->properties); // every property set can be written
    free(json);
  }
  linked_images_free(images, count);
  return 0;
}
