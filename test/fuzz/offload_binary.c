// Fuzz target: the OffloadBinary reader (formats/offload_binary.c) on any bytes. Whatever it
// accepts must point inside the input, and must survive being written and read back.
#include "formats/formats.h"
#include "inside.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  OffloadEntry *entries;
  size_t count;
  char *errmsg;
  if (offload_binary_parse(data, size, &entries, &count, &errmsg)) {
    free(errmsg);
    return 0;
  }
  Buffer again = {0};
  for (size_t i = 0; i < count; i++) {
    const OffloadEntry *e = &entries[i];
    if (!inside(e->image, e->image_size, data, size)) abort();
    for (size_t k = 0; k < e->num_strings; k++) {
      const char *key = e->strings[k].key, *value = e->strings[k].value;
      if (!inside(key, strlen(key) + 1, data, size) ||
          !inside(value, strlen(value) + 1, data, size))
        abort();
    }
    offload_entry_get(e, "triple");
    image_kind_name(e->image_kind);
    offload_binary_append(&again, e);
  }
  // What was read, written again, reads back the same (the writer's own output).
  OffloadEntry *back;
  size_t back_count;
  if (offload_binary_parse(again.data, again.size, &back, &back_count, &errmsg)) abort();
  if (back_count != count) abort();
  for (size_t i = 0; i < count; i++) {
    if (back[i].image_size != entries[i].image_size ||
        back[i].num_strings != entries[i].num_strings ||
        back[i].image_kind != entries[i].image_kind ||
        back[i].offload_kind != entries[i].offload_kind ||
        (back[i].image_size && memcmp(back[i].image, entries[i].image, back[i].image_size)))
      abort();
    free(back[i].strings);
    free(entries[i].strings);
  }
  free(back);
  free(entries);
  free(again.data);
  return 0;
}
