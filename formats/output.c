// Writes the linked images as concatenated OffloadBinary v1 blobs (IMG_SPIRV, OFK_SYCL),
// atomically, in image order, each as soon as it and every image before it are done. It
// does not wrap images for the host.
#include "formats/formats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

// Image I's blob, its SPIR-V freed (the bulk of a result). Thread-safe for distinct images.
static Buffer make_blob(const OutputWriter *w, size_t i) {
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
  free(symbols);
  free(properties);
  free(image->spirv->data);
  *image->spirv = (Buffer){0};
  return blob;
}

typedef struct {
  const OutputWriter *w;
  size_t first;
  Buffer *blobs;
} Blobs;

// Runs on a worker thread: touches only image FIRST + K and its blob.
static void make_blob_of(void *arg, size_t k) {
  Blobs *b = arg;
  b->blobs[k] = make_blob(b->w, b->first + k);
}

// Appends the blobs of images [w->next, END) to the file. Made on up to w->jobs threads when
// there are many (a relink: every unchanged image waits for the edited ones before it, and
// they go out together, after the last codegen), then written in order.
enum { BLOBS_IN_PARALLEL = 16 };
static void write_images(OutputWriter *w, size_t end) {
  size_t n = end - w->next;
  if (!n) return;
  double start = now_seconds();
  Blobs b = {w, w->next, xcalloc(n, sizeof(Buffer))};
  parallel_for(n, n >= BLOBS_IN_PARALLEL ? w->jobs : 1, make_blob_of, &b);
  for (size_t k = 0; k < n; k++) {
    atomic_write(&w->file, b.blobs[k].data, b.blobs[k].size);
    free(b.blobs[k].data);
  }
  free(b.blobs);
  w->next = end;
  if (n >= BLOBS_IN_PARALLEL) trace_span("output written", NULL, start, now_seconds(), 0);
}

void output_open(OutputWriter *w, const char *path, const char *arch, OutputImage *images,
                 size_t count, int jobs) {
  *w = (OutputWriter){.arch = arch, .images = images, .count = count, .jobs = jobs};
  int rc = atomic_open(&w->file, path);
  if (rc) fatal(path, "cannot write output: %s", strerror(-rc));
  w->ready = xcalloc(count ? count : 1, sizeof(bool));
  // A regular file is written through a temporary that a failure removes; a device or a
  // FIFO is written in place, so nothing reaches it before the link has succeeded.
  w->streaming = w->file.tmp != NULL;
}

void output_ready(OutputWriter *w, size_t i) {
  w->ready[i] = true;
  if (!w->streaming) return;
  size_t end = w->next;
  while (end < w->count && w->ready[end])
    end++;
  write_images(w, end);
}

void output_commit(OutputWriter *w) {
  write_images(w, w->count);
  free(w->ready);
  w->ready = NULL;
  char *path = xstrdup(w->file.path); // a failed commit frees the file's own copy
  int rc = atomic_commit(&w->file);
  if (rc) fatal(path, "cannot write output: %s", strerror(-rc));
  free(path);
}
