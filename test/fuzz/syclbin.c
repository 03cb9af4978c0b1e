// Fuzz target: the SYCLBIN reader (formats/syclbin.c, over OffloadBinary v2) on any bytes.
// Whatever it accepts must point inside the input, and its entries must survive being written
// as a v2 binary again and read back.
#include "formats/formats.h"
#include "inside.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Syclbin s;
  char *errmsg;
  is_syclbin(data, size);
  if (syclbin_read(data, size, &s, &errmsg)) {
    free(errmsg);
    return 0;
  }
  syclbin_state_name(s.state);
  for (size_t m = 0; m < s.num_modules; m++)
    for (size_t i = 0; i < s.modules[m].num_images; i++) {
      const SyclbinReadImage *image = &s.modules[m].images[i];
      if (!inside(image->bytes, image->size, data, size) || image->entry >= s.num_entries)
        abort();
      char *text = propsets_to_prop(&image->metadata, &errmsg);
      free(text ? text : errmsg);
    }
  for (size_t i = 0; i < s.num_entries; i++)
    if (!inside(s.entries[i].image, s.entries[i].image_size, data, size)) abort();
  // What was read, written again as a v2 binary, reads back as a SYCLBIN file of as many
  // modules (the writer's own output).
  Buffer again = {0};
  offload_binary_write_v2(&again, s.entries, s.num_entries);
  Syclbin back;
  if (syclbin_read(again.data, again.size, &back, &errmsg)) abort();
  if (back.num_modules != s.num_modules || back.state != s.state) abort();
  syclbin_free(&back);
  free(again.data);
  syclbin_free(&s);
  return 0;
}
