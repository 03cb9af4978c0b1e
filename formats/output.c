// Writes the linked images as concatenated OffloadBinary v1 blobs (IMG_SPIRV, OFK_SYCL),
// atomically, in image order, each as soon as it and every image before it are done. It
// does not wrap images for the host.
//
// Into a regular file (a temporary until the commit renames it), a thread of the writer's own
// makes the blobs and writes them: the hooks' loop hands an image over and goes on. An image
// whose turn has not come (a relink's unchanged images wait for the edited ones before them)
// is also written at once where the file at the output's path, the last link's output, has a
// blob of the same size in the same position: when an edit left the sizes as they were, only
// the edited images are left to write once they are done. Such a guess is checked when the
// image's turn comes, and the image written again at its place if the guess was wrong; bytes
// a wrong guess left are overwritten by the image whose place they are in, or cut off at the
// end. Guesses never overlap each other (they are the last output's places, for images of the
// same sizes) nor what is already in place (only places at or past its end are guessed).
#include "formats/formats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// An image's blob as it is written: the OffloadBinary's head, then the image's SPIR-V from
// the buffer the image came in (taken over, never copied), then zeros to the blob's end.
typedef struct {
  Buffer head, image;
  size_t padding;
} Blob;

static uint64_t blob_size(const Blob *b) {
  return b->head.size + b->image.size + b->padding;
}

// A written blob's memory goes back; a mapped image (a cache hit's entry) stays mapped until
// the exit unless leaks are checked: an munmap while the link's threads live interrupts every
// core that ran one (a TLB shootdown), and 997 of them after a relink's last image took 8-9 ms
// of the output stage on 16 cores; the exit unmaps them at once, its threads gone.
static void blob_free(Blob *b) {
  free(b->head.data);
  if (LEAKS_CHECKED || !b->image.mapped) buffer_free(&b->image);
  *b = (Blob){0};
}

static const uint8_t zeros[8]; // a blob's padding: less than its alignment

static void write_blob_at(AtomicFile *f, const Blob *b, uint64_t offset) {
  Buffer parts[] = {b->head, b->image, {(uint8_t *)zeros, b->padding, false}};
  atomic_pwrite_parts(f, parts, 3, offset);
}

static void write_blob(AtomicFile *f, const Blob *b) {
  atomic_write(f, b->head.data, b->head.size);
  atomic_write(f, b->image.data, b->image.size);
  atomic_write(f, zeros, b->padding);
}

// Image I's blob, which takes over its SPIR-V (the bulk of a result). Thread-safe for
// distinct images.
static Blob make_blob(const OutputWriter *w, size_t i) {
  OutputImage *image = &w->images[i];
  char *symbols = strlist_join(image->symbols, "\n");
  OffloadString strings[] = {
      {"triple", image->triple ? image->triple : SPIRV_TRIPLE},
      {"arch", image->arch ? image->arch : w->arch ? w->arch : ""},
      {"symbols", symbols},
      {"properties", *image->properties}, // issue 4
  };
  OffloadEntry e = {
      .image_kind = image->kind ? image->kind : IMG_SPIRV,
      .offload_kind = OFK_SYCL,
      .strings = strings,
      .num_strings = sizeof(strings) / sizeof(*strings),
      .image_size = image->spirv->size,
  };
  Blob blob = {.image = *image->spirv};
  blob.padding = offload_binary_append_head(&blob.head, &e);
  if (blob.padding > sizeof zeros) die("a blob padded with %zu bytes", blob.padding);
  free(symbols);
  *image->spirv = (Buffer){0};
  return blob;
}

typedef struct {
  const OutputWriter *w;
  const size_t *images; // the images whose blobs to make
  Blob *blobs;          // per image of the output
} Blobs;

// Runs on a worker thread: touches only image IMAGES[K] and its blob.
static void make_blob_of(void *arg, size_t k) {
  Blobs *b = arg;
  b->blobs[b->images[k]] = make_blob(b->w, b->images[k]);
}

// Many images ready at once (a relink's unchanged ones) have their blobs made on -j threads.
enum { BLOBS_IN_PARALLEL = 16 };
static void make_blobs(const OutputWriter *w, const size_t *images, size_t n, Blob *blobs) {
  Blobs b = {w, images, blobs};
  parallel_for(n, n >= BLOBS_IN_PARALLEL ? w->jobs : 1, make_blob_of, &b);
}

// The writer's thread and what it keeps (a regular file only).
struct OutputThread {
  uv_thread_t thread;
  uv_mutex_t lock;
  uv_cond_t wake;
  size_t *handed, num_handed; // under LOCK: images handed over, not yet taken
  bool closing;               // under LOCK: every image is handed over
  // The thread's own:
  size_t *taken;
  Blob *blobs;                 // per image: made, kept while it may have to be written again
  bool *made, *guessed;        // guessed: written at the last output's place
  uint64_t *last_at, *last_size; // the last output's blobs, NUM_LAST of them
  size_t num_last;
  uint64_t end;                // images [0, w->next) are bytes [0, end), in place
  bool beyond;                 // a guess was written: the file may hold bytes past END
};

static const uint8_t blob_magic[4] = {0x10, 0xff, 0x10, 0xad};

// The places of the blobs of the file at PATH (the last link's output, if one is there), from
// their headers alone, at most MAX of them: anything that is not a blob ends the list. A
// guess, checked against each image's place.
static void read_last_places(const char *path, struct OutputThread *t, size_t max) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    uint64_t at = 0, size = (uint64_t)st.st_size;
    t->last_at = xcalloc(max + 1, sizeof(uint64_t));
    t->last_size = xcalloc(max + 1, sizeof(uint64_t));
    for (uint8_t head[16]; t->num_last < max && size - at >= sizeof head;) {
      uint64_t blob;
      if (pread(fd, head, sizeof head, (off_t)at) != (ssize_t)sizeof head ||
          memcmp(head, blob_magic, sizeof blob_magic))
        break;
      memcpy(&blob, head + 8, sizeof blob);
      if (blob < sizeof head || blob > size - at) break;
      t->last_at[t->num_last] = at;
      t->last_size[t->num_last++] = blob;
      at += blob;
    }
  }
  close(fd);
}

// The writer's thread: the blobs of the images taken, then every image whose turn has come
// written in place (unless a guess put it there), then the others at their guessed places.
static void take(OutputWriter *w, size_t n) {
  struct OutputThread *t = w->thread;
  double start = now_seconds();
  make_blobs(w, t->taken, n, t->blobs);
  for (size_t k = 0; k < n; k++)
    t->made[t->taken[k]] = true;
  for (; w->next < w->count && t->made[w->next]; w->next++) {
    size_t i = w->next;
    if (!t->guessed[i] || t->last_at[i] != t->end) write_blob_at(&w->file, &t->blobs[i], t->end);
    t->end += blob_size(&t->blobs[i]);
    blob_free(&t->blobs[i]);
  }
  for (size_t k = 0; k < n; k++) {
    size_t i = t->taken[k];
    if (i < w->next || i >= t->num_last || blob_size(&t->blobs[i]) != t->last_size[i] ||
        t->last_at[i] < t->end)
      continue;
    write_blob_at(&w->file, &t->blobs[i], t->last_at[i]);
    t->guessed[i] = t->beyond = true;
  }
  if (n >= BLOBS_IN_PARALLEL) trace_span("output written", NULL, start, now_seconds(), 0);
}

static void writer_thread(void *arg) {
  OutputWriter *w = arg;
  struct OutputThread *t = w->thread;
  signal_stack_begin();
  read_last_places(w->file.path, t, w->count);
  uv_mutex_lock(&t->lock);
  for (;;) {
    while (!t->num_handed && !t->closing)
      uv_cond_wait(&t->wake, &t->lock);
    size_t n = t->num_handed;
    bool closing = t->closing;
    memcpy(t->taken, t->handed, n * sizeof(size_t));
    t->num_handed = 0;
    uv_mutex_unlock(&t->lock);
    take(w, n);
    uv_mutex_lock(&t->lock);
    if (closing && !t->num_handed) break;
  }
  uv_mutex_unlock(&t->lock);
  signal_stack_end();
}

static void start_writer(OutputWriter *w) {
  struct OutputThread *t = xcalloc(1, sizeof *t);
  size_t n = w->count ? w->count : 1;
  t->handed = xcalloc(n, sizeof(size_t));
  t->taken = xcalloc(n, sizeof(size_t));
  t->blobs = xcalloc(n, sizeof(Blob));
  t->made = xcalloc(n, sizeof(bool));
  t->guessed = xcalloc(n, sizeof(bool));
  if (uv_mutex_init(&t->lock) || uv_cond_init(&t->wake)) die("cannot make the output's lock");
  w->thread = t;
  if (uv_thread_create(&t->thread, writer_thread, w)) die("cannot start a thread");
}

// Every image not handed over yet goes to the thread, which ends once it has written them.
static void stop_writer(OutputWriter *w) {
  struct OutputThread *t = w->thread;
  uv_mutex_lock(&t->lock);
  for (size_t i = 0; i < w->count; i++)
    if (!w->ready[i]) {
      w->ready[i] = true;
      t->handed[t->num_handed++] = i;
    }
  t->closing = true;
  uv_cond_signal(&t->wake);
  uv_mutex_unlock(&t->lock);
  uv_thread_join(&t->thread);
  if (t->beyond) atomic_truncate(&w->file, t->end); // what wrong guesses left past the end
  uv_cond_destroy(&t->wake);
  uv_mutex_destroy(&t->lock);
  free(t->handed);
  free(t->taken);
  free(t->blobs);
  free(t->made);
  free(t->guessed);
  free(t->last_at);
  free(t->last_size);
  free(t);
  w->thread = NULL;
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

void output_ready(OutputWriter *w, const size_t *images, size_t n) {
  for (size_t k = 0; k < n; k++)
    w->ready[images[k]] = true;
  if (!w->streaming || !n) return;
  if (!w->thread) start_writer(w);
  struct OutputThread *t = w->thread;
  uv_mutex_lock(&t->lock);
  memcpy(t->handed + t->num_handed, images, n * sizeof *images);
  t->num_handed += n;
  uv_cond_signal(&t->wake);
  uv_mutex_unlock(&t->lock);
}

void output_commit(OutputWriter *w) {
  if (w->thread) {
    stop_writer(w);
  } else { // in place, or no image handed over before the commit: in order, from here
    size_t n = w->count - w->next, *all = xcalloc(n ? n : 1, sizeof(size_t));
    Blob *blobs = xcalloc(w->count ? w->count : 1, sizeof(Blob));
    for (size_t k = 0; k < n; k++)
      all[k] = w->next + k;
    make_blobs(w, all, n, blobs);
    for (; w->next < w->count; w->next++) {
      write_blob(&w->file, &blobs[w->next]);
      blob_free(&blobs[w->next]);
    }
    free(blobs);
    free(all);
  }
  free(w->ready);
  w->ready = NULL;
  char *path = xstrdup(w->file.path); // a failed commit frees the file's own copy
  int rc = atomic_commit(&w->file);
  if (rc) fatal(path, "cannot write output: %s", strerror(-rc));
  free(path);
}
