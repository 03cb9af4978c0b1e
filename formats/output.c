// Writes the linked images as concatenated OffloadBinary v1 blobs (IMG_SPIRV, OFK_SYCL),
// atomically, in image order, each as soon as it and every image before it are done. It
// does not wrap images for the host.
#include "formats/formats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

// Appends image I's blob to the file and frees its SPIR-V, the bulk of a result.
static void write_image(OutputWriter *w, size_t i) {
  OutputImage *image = &w->images[i];
  char *symbols = strlist_join(image->symbols, "\n");
  char *properties = propsets_to_json(image->properties); // issue 4
  OffloadString strings[] = {
      {"triple", image->triple ? image->triple : SPIRV_TRIPLE},
      {"arch", image->arch ? image->arch : w->arch ? w->arch : ""},
      {"symbols", symbols},
      {"properties", properties},
  };
  OffloadEntry e = {
      .image_kind = image->kind ? image->kind : IMG_SPIRV,
      .offload_kind = OFK_SYCL,
      .strings = strings,
      .num_strings = sizeof(strings) / sizeof(*strings),
      .image = image->spirv->data,
      .image_size = image->spirv->size,
  };
  Buffer blob = {0};
  offload_binary_append(&blob, &e);
  atomic_write(&w->file, blob.data, blob.size);
  free(blob.data);
  free(symbols);
  free(properties);
  free(image->spirv->data);
  *image->spirv = (Buffer){0};
}

void output_open(OutputWriter *w, const char *path, const char *arch, OutputImage *images,
                 size_t count) {
  *w = (OutputWriter){.arch = arch, .images = images, .count = count};
  int rc = atomic_open(&w->file, path);
  if (rc) fatal(path, "cannot write output: %s", strerror(-rc));
  w->ready = xcalloc(count ? count : 1, sizeof(bool));
  // A regular file is written through a temporary that a failure removes; a device or a
  // FIFO is written in place, so nothing reaches it before the link has succeeded.
  w->streaming = w->file.tmp != NULL;
}

void output_ready(OutputWriter *w, size_t i) {
  w->ready[i] = true;
  while (w->streaming && w->next < w->count && w->ready[w->next])
    write_image(w, w->next++);
}

void output_commit(OutputWriter *w) {
  for (; w->next < w->count; w->next++)
    write_image(w, w->next);
  free(w->ready);
  w->ready = NULL;
  char *path = xstrdup(w->file.path); // a failed commit frees the file's own copy
  int rc = atomic_commit(&w->file);
  if (rc) fatal(path, "cannot write output: %s", strerror(-rc));
  free(path);
}
