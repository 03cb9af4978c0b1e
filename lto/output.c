// Writes the linked images as concatenated OffloadBinary v1 blobs (IMG_SPIRV, OFK_SYCL),
// atomically, in image order. It does not wrap images for the host.
#include "sycl_thinlto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *join_lines(const StringList *l) {
  Buffer b = {0};
  for (size_t i = 0; i < l->count; i++) {
    if (i) buffer_append(&b, "\n", 1);
    buffer_append(&b, l->items[i], strlen(l->items[i]));
  }
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

void write_output(const char *path, const char *arch, ImageResult *results, size_t count) {
  AtomicFile file;
  int rc = atomic_open(&file, path);
  if (rc) fatal(path, "cannot write output: %s", strerror(-rc));
  Buffer out = {0};
  for (size_t i = 0; i < count; i++) {
    char *symbols = join_lines(&results[i].symbols);
    char *properties = propsets_to_json(&results[i].properties); // issue 4
    OffloadString strings[] = {
        {"triple", SPIRV_TRIPLE},
        {"arch", arch ? arch : ""},
        {"symbols", symbols},
        {"properties", properties},
    };
    OffloadEntry e = {
        .image_kind = IMG_SPIRV,
        .offload_kind = OFK_SYCL,
        .strings = strings,
        .num_strings = sizeof(strings) / sizeof(*strings),
        .image = results[i].spirv.data,
        .image_size = results[i].spirv.size,
    };
    offload_binary_append(&out, &e);
    free(symbols);
    free(properties);
    // One image at a time: the output is never assembled whole beside the images.
    atomic_write(&file, out.data, out.size);
    out.size = 0;
    free(results[i].spirv.data);
    results[i].spirv = (Buffer){0};
  }
  free(out.data);
  rc = atomic_commit(&file);
  if (rc) fatal(path, "cannot write output: %s", strerror(-rc));
}
