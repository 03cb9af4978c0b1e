// A link whose inputs are those of a link before it gives that link's output again, at the
// cost of one stat per input: the record of the last link (each input's identity and content
// hash, the output's hash) and the output itself live in --cache-dir. It links nothing. The
// record also keeps each file's images as the input stage found them and their split entries'
// keys: a link that runs takes an unchanged file's images from there, unread (tool/link.c).
#include "tool/tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// A file is "unchanged" as ninja and ccache decide it: by its identity (device, inode, size,
// modification and status-change times) first, and by the hash of its content only when the
// identity differs. The status-change time is what `touch -r` cannot set back: a file written
// in place with its old size and modification time still shows. A file changed less than
// RACY_NS before the link read it is never trusted by identity (a write in the same tick of
// the file system's clock leaves the times as they were): the link records the content key
// of the bytes it read of it (the input stage hashes them), and the next link hashes the
// file again whatever its identity (is_racy against the record's time).
enum { RECORD_VERSION = 4 }; // 2: the output's identity; 3: the output in pieces; 4: each
                              // file's images and their split entries' keys
static const int64_t RACY_NS = 1000000000;

// The output is recorded in pieces of whole OffloadBinary blobs (images), at most 64 of them,
// each with the content key of its bytes and its copy in the cache under that key: the pieces
// are hashed, stored and read back on every thread of the link (-j), where one key of the
// whole output took one thread two passes over it (its key, then the cache entry's checksum)
// and a copy of it after every recorded link. A relink that changed one image changes the
// piece that holds it: the other pieces are in the cache already and are not written again
// (cache_refresh: a stat, and their time made now).
static const uint8_t blob_magic[4] = {0x10, 0xff, 0x10, 0xad};

// The pieces' bounds: *OFFSETS, the first at 0, the last at SIZE; the count of pieces. A piece
// is K whole blobs, K the count of blobs over 64 (rounded up): an edit that leaves the count
// as it was changes only the pieces of the images it changed. Bytes that are no blob (the
// output is ours, but a file is what it is) go in pieces of SIZE/64 bytes (512 at least).
static size_t piece_bounds(const uint8_t *data, uint64_t size, uint64_t **offsets) {
  uint64_t *ends = xmalloc((size / 16 + 1) * sizeof(uint64_t)); // a blob takes 16 bytes
  size_t blobs = 0;
  uint64_t at = 0;
  while (size - at >= 16 && !memcmp(data + at, blob_magic, sizeof blob_magic)) {
    uint64_t blob;
    memcpy(&blob, data + at + 8, 8);
    if (blob < 16 || blob > size - at) break;
    ends[blobs++] = at += blob;
  }
  size_t k = (blobs + 63) / 64;
  uint64_t chunk = size / 64 < 512 ? 512 : size / 64;
  *offsets = xmalloc((blobs + (size - at) / chunk + 3) * sizeof(uint64_t));
  size_t n = 0;
  (*offsets)[0] = 0;
  for (size_t i = 0; i < blobs; i++)
    if ((i + 1) % k == 0 || i + 1 == blobs) (*offsets)[++n] = ends[i];
  for (; at < size; at = (*offsets)[n])
    (*offsets)[++n] = size - at > chunk ? at + chunk : size;
  free(ends);
  return n;
}

typedef struct {
  const uint8_t *data;     // the output's bytes: hashed (and stored)
  const uint64_t *offsets; // the pieces' bounds
  char (*keys)[CACHE_KEY_SIZE];
  const Cache *cache; // stored under their keys as they are hashed; NULL: only hashed
  Buffer *pieces;     // read back: each piece's entry, or empty for a miss
} Pieces;

static void hash_piece(void *arg, size_t i) {
  Pieces *p = arg;
  const uint8_t *at = p->data + p->offsets[i];
  size_t size = (size_t)(p->offsets[i + 1] - p->offsets[i]);
  cache_content_key(at, size, p->keys[i]);
  if (p->cache && !cache_refresh(p->cache, "relinkout", p->keys[i], size))
    cache_store(p->cache, "relinkout", p->keys[i], &(Buffer){(uint8_t *)at, size, false});
}

// A piece that is missing, damaged or of another size is a miss; one there is removed (the
// next record stores it again: cache_refresh would keep it).
static void read_piece(void *arg, size_t i) {
  Pieces *p = arg;
  size_t size = (size_t)(p->offsets[i + 1] - p->offsets[i]);
  if (!cache_get(p->cache, "relinkout", p->keys[i], &p->pieces[i]) && p->pieces[i].size == size)
    return;
  free(p->pieces[i].data);
  p->pieces[i] = (Buffer){0};
  cache_remove_damaged(p->cache, "relinkout", p->keys[i], NULL);
}

typedef struct {
  uint64_t dev, ino, size;
  int64_t mtime_ns, ctime_ns;
} Identity;

static int64_t ns_of(struct timespec t) {
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return ns_of(t);
}

// 0, or -1 for a path that is not a regular file (a FIFO, a device: not recorded).
static int identity_of(const char *path, Identity *id) {
  struct stat st;
  if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) return -1;
  *id = (Identity){st.st_dev, st.st_ino, (uint64_t)st.st_size, ns_of(st.st_mtim),
                   ns_of(st.st_ctim)};
  return 0;
}

static bool same_identity(const Identity *a, const Identity *b) {
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

static bool is_racy(const Identity *id, int64_t when) {
  return id->mtime_ns >= when - RACY_NS || id->ctime_ns >= when - RACY_NS;
}

// 0 and the content key of PATH's bytes, or -1.
static int content_key(const char *path, char key[CACHE_KEY_SIZE]) {
  Buffer b;
  if (map_file(path, &b)) return -1;
  cache_content_key(b.data, b.size, key);
  buffer_free(&b);
  return 0;
}

// Arguments that change how the link runs or what it says, never the output's bytes. -o
// stays in the key: a link to another output is another link (the tests of the other caches
// link the same inputs to several outputs).
static bool ignored_option(const char *arg) {
  static const char *const names[] = {
      "v", "verbose", "jobs", "threads", "thinlto-jobs", "no-progress", "progress",
      "time-trace", "time-trace-file", "time-trace-granularity", "reproduce", "cache-policy",
      "thinlto-cache-policy", "distributor", "distributor-arg", "remote-compiler", NULL};
  if (arg[0] != '-') return false;
  if (!strncmp(arg, "-j", 2)) return true;
  const char *name = arg + strspn(arg, "-");
  size_t n = strcspn(name, "=");
  for (const char *const *p = names; *p; p++)
    if (strlen(*p) == n && !strncmp(name, *p, n)) return true;
  return false;
}

void relink_begin(Relink *rl, const Cache *cache, char **argv, const ArgGroup *groups,
                  size_t num_groups, const StringList *files, const char *output, int jobs) {
  *rl = (Relink){
      .cache = cache, .output = output, .files = files, .started_ns = now_ns(), .jobs = jobs};
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "relink 1");
  char *cwd = getcwd(NULL, 0);
  cache_hash_string(&h, cwd ? cwd : "");
  free(cwd);
  for (size_t i = 0; i < num_groups; i++) {
    if (!groups[i].input && ignored_option(argv[groups[i].start])) continue;
    for (int k = groups[i].start; k <= groups[i].end; k++)
      cache_hash_string(&h, argv[k]);
    cache_hash_string(&h, ""); // the end of a group: "-o" "x" is not "-ox"
  }
  for (size_t i = 0; i < files->count; i++)
    cache_hash_string(&h, files->items[i]);
  cache_hash_final(&h, rl->key);
  // Identities before anything is read: a file changed while the link runs shows next time.
  rl->ids = xcalloc(files->count ? files->count : 1, sizeof(Identity));
  // A link to an output that is not there yet is not recorded: the linker-wrapper's device
  // link writes into a new temporary folder each time (-o is part of the key), and its
  // records and output copies would never serve. The next link to the same output is.
  struct stat st;
  rl->recordable = lstat(output, &st) == 0;
  rl->racy = xcalloc(files->count ? files->count : 1, sizeof(bool));
  rl->read_keys = xcalloc(files->count ? files->count : 1, CACHE_KEY_SIZE);
  for (size_t i = 0; i < files->count; i++) {
    Identity *id = &((Identity *)rl->ids)[i];
    if (identity_of(files->items[i], id)) rl->recordable = false;
    rl->racy[i] = is_racy(id, rl->started_ns);
  }
}

void recorded_file_free(RecordedFile *f) {
  for (size_t k = 0; k < f->count; k++)
    input_image_free(&f->images[k]);
  free(f->images);
  free(f->keys);
  *f = (RecordedFile){0};
}

static void put_string(Buffer *b, const char *s) {
  record_put(b, s ? s : "", s ? strlen(s) : 0);
}

// A file's images: their count (UINT64_MAX: not known), then per image its strings, kinds,
// size and offset in the file, keys, and its split entry's key.
typedef struct {
  uint64_t offset, size;
  uint16_t image_kind, offload_kind;
  uint32_t num_keys;
} ImageHead;

static void put_file(Buffer *b, const RecordedFile *f) {
  uint64_t count = f && f->known ? f->count : UINT64_MAX;
  record_put(b, &count, sizeof count);
  for (size_t k = 0; f && f->known && k < f->count; k++) {
    const InputImage *im = &f->images[k];
    ImageHead head = {f->keys[k].offset, im->size, im->image_kind, im->offload_kind,
                      (uint32_t)im->num_keys};
    record_put(b, &head, sizeof head);
    put_string(b, im->origin);
    put_string(b, im->triple);
    put_string(b, im->arch);
    put_string(b, im->target);
    for (size_t j = 0; j < im->num_keys; j++) {
      put_string(b, im->keys[j].key);
      put_string(b, im->keys[j].value);
    }
    record_put(b, f->keys[k].key, CACHE_KEY_SIZE);
  }
}

// A string without a NUL in it, or NULL (R marked bad).
static char *get_string(RecordReader *r) {
  size_t n;
  const uint8_t *p = record_get(r, &n);
  if (!p || memchr(p, 0, n)) {
    r->bad = true;
    return NULL;
  }
  return xstrndup((const char *)p, n);
}

// False on anything damaged. An image must be what the split stage splits: user bitcode
// without a split key (the link took no bytes of it).
static bool get_file(RecordReader *r, RecordedFile *f) {
  *f = (RecordedFile){0};
  size_t size;
  const uint8_t *p = record_get(r, &size);
  uint64_t count;
  if (!p || size != sizeof count) return false;
  memcpy(&count, p, sizeof count);
  if (count == UINT64_MAX) return true;
  if (count > (uint64_t)(r->end - r->p) / sizeof(ImageHead)) return false;
  f->known = true;
  f->images = xcalloc(count ? count : 1, sizeof(InputImage));
  f->keys = xcalloc(count ? count : 1, sizeof(SplitEntryKey));
  bool ok = true;
  for (uint64_t k = 0; ok && k < count; k++) {
    ImageHead head;
    ok = (p = record_get(r, &size)) && size == sizeof head;
    if (!ok) break;
    memcpy(&head, p, sizeof head);
    ok = head.image_kind == IMG_BITCODE && head.num_keys <= (uint64_t)(r->end - r->p) / 16;
    if (!ok) break;
    InputImage *im = &f->images[f->count++];
    *im = (InputImage){.image_kind = head.image_kind, .offload_kind = head.offload_kind,
                       .size = (size_t)head.size, .keys_copied = true};
    f->keys[k].offset = head.offset;
    im->origin = get_string(r);
    im->triple = get_string(r);
    im->arch = get_string(r);
    im->target = get_string(r);
    im->keys = xcalloc(head.num_keys ? head.num_keys : 1, sizeof(OffloadString));
    for (uint32_t j = 0; !r->bad && j < head.num_keys; j++) {
      char *key = get_string(r), *value = key ? get_string(r) : NULL;
      if (!value) {
        free(key);
        break;
      }
      im->keys[im->num_keys++] = (OffloadString){key, value};
      ok = ok && strcmp(key, SPLIT_KEY);
    }
    ok = ok && !r->bad && im->num_keys == head.num_keys && head.offset <= UINT64_MAX - head.size;
    ok = ok && (p = record_get(r, &size)) && size == CACHE_KEY_SIZE && p[0] &&
         !p[CACHE_KEY_SIZE - 1];
    if (ok) memcpy(f->keys[k].key, p, CACHE_KEY_SIZE);
  }
  if (!ok || r->bad) recorded_file_free(f);
  return ok && !r->bad;
}

// The record: the time its identities were taken, the output's size and number of pieces,
// the output's identity as the link left it, each piece's end and content key, then per file
// its identity and content key (in the order of FILES, which the link key fixes), then per
// file its images (FILES_OF, or none known).
static void record_write(const Relink *rl, const Identity *ids, char (*keys)[CACHE_KEY_SIZE],
                         size_t n_pieces, const uint64_t *offsets,
                         char (*piece_keys)[CACHE_KEY_SIZE], const Identity *output_id,
                         int64_t taken_ns, const RecordedFile *files_of) {
  Buffer b = {0};
  uint64_t head[4] = {RECORD_VERSION, (uint64_t)taken_ns, offsets[n_pieces], n_pieces};
  record_put(&b, head, sizeof head);
  record_put(&b, output_id, sizeof *output_id);
  for (size_t i = 0; i < n_pieces; i++) {
    record_put(&b, &offsets[i + 1], sizeof *offsets);
    record_put(&b, piece_keys[i], CACHE_KEY_SIZE);
  }
  for (size_t i = 0; i < rl->files->count; i++) {
    record_put(&b, &ids[i], sizeof ids[i]);
    record_put(&b, keys[i], CACHE_KEY_SIZE);
  }
  for (size_t i = 0; i < rl->files->count; i++)
    put_file(&b, files_of ? &files_of[i] : NULL);
  cache_store(rl->cache, "relink", rl->key, &b);
  free(b.data);
}

// True when the file at PATH holds the recorded pieces' bytes (their content keys).
static bool output_matches(const Relink *rl, const char *path, size_t n,
                           const uint64_t *offsets, char (*keys)[CACHE_KEY_SIZE]) {
  Buffer b;
  if (map_file(path, &b)) return false;
  bool same = b.size == offsets[n];
  if (same) {
    char(*now)[CACHE_KEY_SIZE] = xcalloc(n ? n : 1, CACHE_KEY_SIZE);
    Pieces p = {.data = b.data, .offsets = offsets, .keys = now};
    parallel_for(n, rl->jobs, hash_piece, &p);
    for (size_t i = 0; same && i < n; i++)
      same = !strcmp(now[i], keys[i]);
    free(now);
  }
  buffer_free(&b);
  return same;
}

// The output of the record, from its pieces in the cache: 0 and OUT, or -1 (a piece missing or
// damaged).
static int output_from_cache(const Relink *rl, size_t n, const uint64_t *offsets,
                             char (*keys)[CACHE_KEY_SIZE], Buffer *out) {
  Pieces p = {.offsets = offsets, .keys = keys, .cache = rl->cache,
              .pieces = xcalloc(n ? n : 1, sizeof(Buffer))};
  parallel_for(n, rl->jobs, read_piece, &p);
  bool ok = true;
  for (size_t i = 0; i < n; i++)
    ok = ok && p.pieces[i].data;
  *out = (Buffer){0};
  if (ok) {
    out->data = xmalloc(offsets[n] ? offsets[n] : 1);
    for (size_t i = 0; i < n; i++)
      memcpy(out->data + offsets[i], p.pieces[i].data, p.pieces[i].size);
    out->size = offsets[n];
  }
  for (size_t i = 0; i < n; i++)
    free(p.pieces[i].data);
  free(p.pieces);
  return ok ? 0 : -1;
}

bool relink_reuse(Relink *rl) {
  Buffer record;
  if (cache_get(rl->cache, "relink", rl->key, &record)) return false;
  size_t n = rl->files->count;
  Identity *ids = rl->ids, *recorded = xcalloc(n ? n : 1, sizeof(Identity));
  char(*keys)[CACHE_KEY_SIZE] = xcalloc(n ? n : 1, CACHE_KEY_SIZE);
  char(*piece_keys)[CACHE_KEY_SIZE] = NULL;
  uint64_t *offsets = NULL;
  Identity output_id;
  RecordReader r = {record.data, record.data + record.size, false};
  size_t size;
  const uint8_t *p = record_get(&r, &size);
  uint64_t head[4];
  bool ok = p && size == sizeof head;
  if (ok) memcpy(head, p, sizeof head);
  // The count of pieces is checked against the record's size before it sizes an array; the
  // pieces' ends rise to the output's size.
  ok = ok && head[0] == RECORD_VERSION && head[3] <= record.size / CACHE_KEY_SIZE;
  ok = ok && (p = record_get(&r, &size)) && size == sizeof(Identity);
  if (ok) memcpy(&output_id, p, sizeof(Identity));
  if (ok) {
    piece_keys = xcalloc(head[3] ? head[3] : 1, CACHE_KEY_SIZE);
    offsets = xcalloc(head[3] + 1, sizeof *offsets);
  }
  for (uint64_t i = 0; ok && i < head[3]; i++) {
    ok = (p = record_get(&r, &size)) && size == sizeof *offsets;
    if (ok) memcpy(&offsets[i + 1], p, sizeof *offsets);
    ok = ok && offsets[i + 1] > offsets[i];
    ok = ok && (p = record_get(&r, &size)) && size == CACHE_KEY_SIZE && !p[CACHE_KEY_SIZE - 1];
    if (ok) memcpy(piece_keys[i], p, CACHE_KEY_SIZE);
  }
  ok = ok && offsets[head[3]] == head[2];
  for (size_t i = 0; ok && i < n; i++) {
    ok = (p = record_get(&r, &size)) && size == sizeof(Identity);
    if (ok) memcpy(&recorded[i], p, sizeof(Identity));
    ok = ok && (p = record_get(&r, &size)) && size == CACHE_KEY_SIZE && !p[CACHE_KEY_SIZE - 1];
    if (ok) memcpy(keys[i], p, CACHE_KEY_SIZE);
  }
  // A file whose images are damaged is read (its own record dropped); the rest is the record.
  RecordedFile *files_in = ok ? xcalloc(n ? n : 1, sizeof(RecordedFile)) : NULL;
  for (size_t i = 0; ok && i < n && !r.bad; i++)
    if (!get_file(&r, &files_in[i])) r.bad = true;
  ok = ok && r.p == r.end && !r.bad;
  free(record.data);
  if (!ok && files_in) {
    for (size_t i = 0; i < n; i++)
      recorded_file_free(&files_in[i]);
    free(files_in);
    files_in = NULL;
  }
  if (ok) { // kept for relink_record, whatever this link does
    rl->files_in = files_in;
    rl->recorded = recorded;
    rl->recorded_keys = keys;
    rl->recorded_ns = (int64_t)head[1];
  }
  // One stat per file (taken by relink_begin); its content hashed only where the identity
  // differs from the record's, or cannot be trusted yet.
  size_t hashed = 0;
  for (size_t i = 0; ok && i < n; i++) {
    if (same_identity(&ids[i], &recorded[i]) && !is_racy(&ids[i], (int64_t)head[1])) continue;
    char key[CACHE_KEY_SIZE];
    hashed++;
    ok = !content_key(rl->files->items[i], key) && !strcmp(key, keys[i]);
  }
  // The output as the last link (or relink) left it: when no input was even touched, it is
  // not written again, at the cost of one more stat; its content is hashed only where its
  // identity cannot be trusted yet (written less than RACY_NS before the record was taken).
  Identity now_id;
  bool kept = ok && !hashed && !identity_of(rl->output, &now_id) &&
              same_identity(&now_id, &output_id);
  bool checked = false; // the output's content hashed and found the record's
  if (kept && is_racy(&now_id, (int64_t)head[1]))
    kept = checked = output_matches(rl, rl->output, head[3], offsets, piece_keys);
  Buffer out = {0};
  if (kept) {
    note("relink: %zu input(s) unchanged (%zu hashed): the output is the last link's, left as "
         "it is", n, hashed);
    // Its identity checked by content now: recorded again, trusted by the next link's stat.
    if (checked && rl->recordable && !is_racy(&now_id, rl->started_ns))
      record_write(rl, ids, keys, head[3], offsets, piece_keys, &now_id, rl->started_ns,
                   rl->files_in);
  } else {
    ok = ok && !output_from_cache(rl, head[3], offsets, piece_keys, &out);
  }
  if (ok && !kept) {
    int rc = write_output_atomic(rl->output, out.data, out.size);
    if (rc) fatal(rl->output, "cannot write output: %s", strerror(-rc));
    note("relink: %zu input(s) unchanged (%zu hashed): the output of the last link reused", n,
         hashed);
    // Recorded with the output's new identity, and the identities that changed with the same
    // content, once they can be trusted.
    if (rl->recordable && !identity_of(rl->output, &now_id))
      record_write(rl, ids, keys, head[3], offsets, piece_keys, &now_id, rl->started_ns,
                   rl->files_in);
  }
  free(out.data);
  free(piece_keys);
  free(offsets);
  if (rl->recorded != recorded) {
    free(recorded);
    free(keys);
  }
  return ok;
}

// True when file I's identity is the last record's, trusted then: its content key is the
// record's (the rule relink_reuse follows).
static bool as_recorded(const Relink *rl, size_t i) {
  if (!rl->recorded) return false;
  const Identity *ids = rl->ids, *recorded = rl->recorded;
  return same_identity(&ids[i], &recorded[i]) && !is_racy(&ids[i], rl->recorded_ns);
}

bool relink_file_recorded(const Relink *rl, size_t i) {
  return rl->files_in && rl->files_in[i].known && as_recorded(rl, i);
}

void relink_record(Relink *rl) {
  if (!rl->recordable) return;
  size_t n = rl->files->count;
  Identity *ids = rl->ids;
  char(*keys)[CACHE_KEY_SIZE] = xcalloc(n ? n : 1, CACHE_KEY_SIZE);
  bool ok = true;
  size_t hashed = 0;
  for (size_t i = 0; ok && i < n; i++) {
    Identity now;
    // A file changed since the link read it has another identity (unless it was racy), and
    // is not recorded. One whose identity is the last record's has that record's content
    // key; any other is hashed now.
    ok = !identity_of(rl->files->items[i], &now) && same_identity(&now, &ids[i]);
    if (ok && rl->racy[i]) {
      // The bytes the link read: the file now may hold a write of the same tick. The input
      // stage hashed them (none there: not recorded).
      ok = rl->read_keys[i][0] != 0;
      if (ok) memcpy(keys[i], rl->read_keys[i], CACHE_KEY_SIZE);
      hashed++;
    } else if (ok && as_recorded(rl, i)) {
      memcpy(keys[i], rl->recorded_keys[i], CACHE_KEY_SIZE);
    } else if (ok) {
      ok = !content_key(rl->files->items[i], keys[i]);
      hashed++;
    }
  }
  Buffer out;
  Identity output_id; // before its bytes are read: a write after this shows in its identity
  ok = ok && !identity_of(rl->output, &output_id) && !map_file(rl->output, &out);
  if (ok) {
    uint64_t *offsets;
    size_t n_pieces = piece_bounds(out.data, out.size, &offsets);
    char(*piece_keys)[CACHE_KEY_SIZE] = xcalloc(n_pieces ? n_pieces : 1, CACHE_KEY_SIZE);
    Pieces p = {.data = out.data, .offsets = offsets, .keys = piece_keys, .cache = rl->cache};
    parallel_for(n_pieces, rl->jobs, hash_piece, &p);
    record_write(rl, ids, keys, n_pieces, offsets, piece_keys, &output_id, rl->started_ns,
                 rl->files_out);
    free(piece_keys);
    free(offsets);
    buffer_free(&out);
    note("relink: link recorded, %zu of %zu input(s) hashed", hashed, n);
  }
  free(keys);
}

static void free_files(RecordedFile *files, size_t n) {
  for (size_t i = 0; files && i < n; i++)
    recorded_file_free(&files[i]);
  free(files);
}

void relink_free(Relink *rl) {
  free_files(rl->files_in, rl->files->count);
  free_files(rl->files_out, rl->files->count);
  rl->files_in = rl->files_out = NULL;
  free(rl->racy);
  free(rl->read_keys);
  rl->racy = NULL;
  rl->read_keys = NULL;
  free(rl->ids);
  free(rl->recorded);
  free(rl->recorded_keys);
  rl->ids = rl->recorded = NULL;
  rl->recorded_keys = NULL;
}
