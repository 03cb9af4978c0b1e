// OffloadBinary v1 (llvm/Object/OffloadBinary.h): parses concatenated blobs, writes one blob;
// and version 2 (LLVM 23's, several entries in one binary), which SYCLBIN files use. It does
// not decide which images are linked (input.c) nor what their keys mean (output.c, syclbin.c).
#include "formats/formats.h"

#include <stdlib.h>
#include <string.h>

// Sizes and field offsets of the on-disk v1 records; everything is little-endian.
enum {
  HEADER_SIZE = 32,       // magic[4] version:u32 size:u64 entry_offset:u64 entry_size:u64
  ENTRY_SIZE = 40,        // image_kind:u16 offload_kind:u16 flags:u32 string_offset:u64
                          // num_strings:u64 image_offset:u64 image_size:u64
  STRING_ENTRY_SIZE = 16, // key_offset:u64 value_offset:u64
  BLOB_ALIGNMENT = 8,
  // Version 2: the header's two last fields are entries_offset:u64 entries_count:u64; the
  // entries (ENTRY_SIZE each) follow one another; a string entry adds value_size:u64.
  STRING_ENTRY_V2_SIZE = 24,
};

static const uint8_t offload_magic[4] = {0x10, 0xFF, 0x10, 0xAD};

// Blobs inside archive members or sections are not necessarily aligned: read bytes, not structs.
static uint16_t read_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t read_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t read_u64(const uint8_t *p) {
  return (uint64_t)read_u32(p) | (uint64_t)read_u32(p + 4) << 32;
}

static void write_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void write_u32(uint8_t *p, uint32_t v) {
  write_u16(p, (uint16_t)v);
  write_u16(p + 2, (uint16_t)(v >> 16));
}

static void write_u64(uint8_t *p, uint64_t v) {
  write_u32(p, (uint32_t)v);
  write_u32(p + 4, (uint32_t)(v >> 32));
}

static size_t align_to(size_t n, size_t alignment) {
  return (n + alignment - 1) / alignment * alignment;
}

bool is_offload_binary(const uint8_t *data, size_t size) {
  return size >= sizeof offload_magic && !memcmp(data, offload_magic, sizeof offload_magic);
}

// True when [offset, offset + length) lies inside a blob of blob_size bytes (no overflow).
static bool in_range(uint64_t offset, uint64_t length, uint64_t blob_size) {
  return offset <= blob_size && length <= blob_size - offset;
}

static bool overlaps(uint64_t a, uint64_t a_size, uint64_t b, uint64_t b_size) {
  return a_size && b_size && a < b + b_size && b < a + a_size;
}

// A region of the blob (in range already) must be 8-byte aligned, as LLVM's writer puts it
// and the records in it are read, and must not overlap the header or the entry before it:
// a blob whose parts share bytes is damaged, not merely unusual. True if it is fine.
static bool check_region(size_t at, const char *what, uint64_t offset, uint64_t size,
                         uint64_t entry_offset, uint64_t entry_size, char **errmsg) {
  if (!size) return true;
  if (offset % BLOB_ALIGNMENT) {
    *errmsg = format("OffloadBinary at offset %zu: %s offset %llu is not 8-byte aligned", at, what,
                     (unsigned long long)offset);
    return false;
  }
  const char *with = overlaps(offset, size, 0, HEADER_SIZE)             ? "the header"
                     : overlaps(offset, size, entry_offset, entry_size) ? "the entry"
                                                                        : NULL;
  if (with) {
    *errmsg = format("OffloadBinary at offset %zu: %s overlaps %s", at, what, with);
    return false;
  }
  return true;
}

// Reads the NUL-terminated string at OFFSET of the blob; NULL with *why set if it is not one.
static const char *blob_string(const uint8_t *blob, uint64_t blob_size, uint64_t offset,
                               const char **why) {
  if (offset >= blob_size) {
    *why = "offset out of range";
    return NULL;
  }
  if (!memchr(blob + offset, 0, blob_size - offset)) {
    *why = "not NUL-terminated";
    return NULL;
  }
  return (const char *)blob + offset;
}

// Parses the blob at data[at..]; returns its size, or 0 with *errmsg set.
static uint64_t parse_blob(const uint8_t *data, size_t size, size_t at, OffloadEntry *entry,
                           char **errmsg) {
  const uint8_t *blob = data + at;
  size_t left = size - at;
  if (left < HEADER_SIZE) {
    *errmsg = format("OffloadBinary at offset %zu: truncated header (%zu bytes, need %d)", at, left,
                     HEADER_SIZE);
    return 0;
  }
  if (!is_offload_binary(blob, left)) {
    *errmsg = format("OffloadBinary at offset %zu: bad magic", at);
    return 0;
  }
  uint32_t version = read_u32(blob + 4);
  if (version != 1) {
    *errmsg =
        format("OffloadBinary at offset %zu: unsupported OffloadBinary version %u", at, version);
    return 0;
  }
  uint64_t blob_size = read_u64(blob + 8);
  if (blob_size < HEADER_SIZE + ENTRY_SIZE || blob_size > left) {
    *errmsg = format("OffloadBinary at offset %zu: size %llu out of range (%zu bytes left)", at,
                     (unsigned long long)blob_size, left);
    return 0;
  }
  uint64_t entry_offset = read_u64(blob + 16), entry_size = read_u64(blob + 24);
  if (entry_size < ENTRY_SIZE || entry_size > blob_size) {
    *errmsg = format("OffloadBinary at offset %zu: entry size %llu out of range", at,
                     (unsigned long long)entry_size);
    return 0;
  }
  if (!in_range(entry_offset, entry_size, blob_size)) {
    *errmsg = format("OffloadBinary at offset %zu: entry offset out of range", at);
    return 0;
  }
  if (!check_region(at, "entry", entry_offset, entry_size, 0, 0, errmsg)) return 0;

  const uint8_t *e = blob + entry_offset;
  *entry = (OffloadEntry){
      .image_kind = read_u16(e),
      .offload_kind = read_u16(e + 2),
      .flags = read_u32(e + 4),
  };
  uint64_t string_offset = read_u64(e + 8), num_strings = read_u64(e + 16);
  uint64_t image_offset = read_u64(e + 24), image_size = read_u64(e + 32);

  // The count is checked against the blob before it is multiplied or allocated.
  if (num_strings > blob_size / STRING_ENTRY_SIZE ||
      !in_range(string_offset, num_strings * STRING_ENTRY_SIZE, blob_size)) {
    *errmsg = format("OffloadBinary at offset %zu: string table out of range", at);
    return 0;
  }
  uint64_t strings_size = num_strings * STRING_ENTRY_SIZE;
  if (!check_region(at, "string table", string_offset, strings_size, entry_offset, entry_size,
                    errmsg))
    return 0;
  if (image_offset > blob_size) {
    *errmsg = format("OffloadBinary at offset %zu: image offset out of range", at);
    return 0;
  }
  if (!in_range(image_offset, image_size, blob_size)) {
    *errmsg = format("OffloadBinary at offset %zu: image size out of range", at);
    return 0;
  }
  if (!image_size) {
    *errmsg = format("OffloadBinary at offset %zu: empty image", at);
    return 0;
  }
  if (!check_region(at, "image", image_offset, image_size, entry_offset, entry_size, errmsg))
    return 0;
  if (overlaps(image_offset, image_size, string_offset, strings_size)) {
    *errmsg = format("OffloadBinary at offset %zu: image overlaps the string table", at);
    return 0;
  }

  OffloadString *strings = xcalloc(num_strings, sizeof *strings);
  for (uint64_t i = 0; i < num_strings; i++) {
    const uint8_t *s = blob + string_offset + i * STRING_ENTRY_SIZE;
    const char *why;
    strings[i].key = blob_string(blob, blob_size, read_u64(s), &why);
    if (!strings[i].key) {
      *errmsg =
          format("OffloadBinary at offset %zu: string %llu key %s", at, (unsigned long long)i, why);
      free(strings);
      return 0;
    }
    strings[i].value = blob_string(blob, blob_size, read_u64(s + 8), &why);
    if (!strings[i].value) {
      *errmsg =
          format("OffloadBinary at offset %zu: string '%s' value %s", at, strings[i].key, why);
      free(strings);
      return 0;
    }
  }
  entry->strings = strings;
  entry->num_strings = num_strings;
  entry->image = blob + image_offset;
  entry->image_size = image_size;
  return blob_size;
}

int offload_binary_parse(const uint8_t *data, size_t size, OffloadEntry **entries, size_t *count,
                         char **errmsg) {
  OffloadEntry *list = NULL;
  size_t n = 0, cap = 0;
  size_t at = 0;
  while (at < size) {
    if (n == cap) {
      cap = cap ? cap * 2 : 4;
      list = xrealloc(list, cap * sizeof *list);
    }
    uint64_t blob_size = parse_blob(data, size, at, &list[n], errmsg);
    if (!blob_size) {
      for (size_t i = 0; i < n; i++)
        free(list[i].strings);
      free(list);
      return -1;
    }
    n++;
    at += blob_size;
    // LLVM's extractor aligns each blob to 8 bytes from the start; skip that zero padding only.
    while (at % BLOB_ALIGNMENT && at < size && data[at] == 0)
      at++;
  }
  *entries = list;
  *count = n;
  return 0;
}

const char *offload_entry_get(const OffloadEntry *e, const char *key) {
  // LLVM fills a map in file order, so the last of duplicate keys wins there too.
  for (size_t i = e->num_strings; i-- > 0;)
    if (!strcmp(e->strings[i].key, key)) return e->strings[i].value;
  return NULL;
}

void offload_strings_free(OffloadString *strings, size_t count) {
  for (size_t i = 0; i < count; i++) {
    free((char *)strings[i].key);
    free((char *)strings[i].value);
  }
  free(strings);
}

// The string table: a leading NUL (like ELF's), then each distinct text once.
typedef struct {
  Buffer bytes;
} StringTable;

static size_t string_table_add(StringTable *t, const char *s) {
  size_t len = strlen(s) + 1;
  for (size_t at = 0; at + len <= t->bytes.size; at++)
    if (!memcmp(t->bytes.data + at, s, len)) return at;
  size_t at = t->bytes.size;
  buffer_append(&t->bytes, s, len);
  return at;
}

// A zeroed blob of BLOB_SIZE bytes appended to OUT, its header's magic, VERSION, size and the
// entries' offset written (the last header field is the version's own). Blobs are
// concatenated; each must start 8-byte aligned for LLVM's reader.
static uint8_t *append_blob(Buffer *out, size_t blob_size, uint32_t version) {
  size_t start = align_to(out->size, BLOB_ALIGNMENT);
  out->data = xrealloc(out->data, start + blob_size);
  memset(out->data + out->size, 0, start + blob_size - out->size);
  out->size = start + blob_size;
  uint8_t *blob = out->data + start;
  memcpy(blob, offload_magic, sizeof offload_magic);
  write_u32(blob + 4, version);
  write_u64(blob + 8, blob_size);
  write_u64(blob + 16, HEADER_SIZE);
  return blob;
}

size_t offload_binary_append_head(Buffer *out, const OffloadEntry *e) {
  StringTable table = {0};
  buffer_append(&table.bytes, "", 1);
  size_t *key_at = xcalloc(e->num_strings, sizeof(size_t));
  size_t *value_at = xcalloc(e->num_strings, sizeof(size_t));
  for (size_t i = 0; i < e->num_strings; i++) {
    key_at[i] = string_table_add(&table, e->strings[i].key);
    value_at[i] = string_table_add(&table, e->strings[i].value);
  }

  // Header, entry, string entries, string table, then the image at an aligned offset.
  size_t string_entries_at = HEADER_SIZE + ENTRY_SIZE;
  size_t table_at = string_entries_at + e->num_strings * STRING_ENTRY_SIZE;
  size_t image_at = align_to(table_at + table.bytes.size, BLOB_ALIGNMENT);
  size_t blob_size = align_to(image_at + e->image_size, BLOB_ALIGNMENT);

  // Only the head is in OUT: the blob's size goes in its header, the buffer ends at the image.
  uint8_t *blob = append_blob(out, image_at, 1);
  write_u64(blob + 8, blob_size);
  write_u64(blob + 24, ENTRY_SIZE);

  uint8_t *entry = blob + HEADER_SIZE;
  write_u16(entry, e->image_kind);
  write_u16(entry + 2, e->offload_kind);
  write_u32(entry + 4, e->flags);
  write_u64(entry + 8, string_entries_at);
  write_u64(entry + 16, e->num_strings);
  write_u64(entry + 24, image_at);
  write_u64(entry + 32, e->image_size);

  for (size_t i = 0; i < e->num_strings; i++) {
    uint8_t *s = blob + string_entries_at + i * STRING_ENTRY_SIZE;
    write_u64(s, table_at + key_at[i]);
    write_u64(s + 8, table_at + value_at[i]);
  }
  memcpy(blob + table_at, table.bytes.data, table.bytes.size);

  free(key_at);
  free(value_at);
  free(table.bytes.data);
  return blob_size - image_at - e->image_size;
}

void offload_binary_append(Buffer *out, const OffloadEntry *e) {
  size_t padding = offload_binary_append_head(out, e);
  out->data = xrealloc(out->data, out->size + e->image_size + padding);
  if (e->image_size) memcpy(out->data + out->size, e->image, e->image_size);
  memset(out->data + out->size + e->image_size, 0, padding);
  out->size += e->image_size + padding;
}

const char *image_kind_name(uint16_t kind) {
  static const char *const names[] = {
      [IMG_NONE] = "none",   [IMG_OBJECT] = "object",       [IMG_BITCODE] = "bitcode",
      [IMG_CUBIN] = "cubin", [IMG_FATBINARY] = "fatbinary", [IMG_PTX] = "ptx",
      [IMG_SPIRV] = "spirv", [IMG_SYCLBIN] = "syclbin",
  };
  return kind < sizeof names / sizeof *names ? names[kind] : "unknown";
}

//
// Version 2: one binary, several entries
//

uint32_t offload_binary_version(const uint8_t *data, size_t size) {
  return is_offload_binary(data, size) && size >= 8 ? read_u32(data + 4) : 0;
}

void offload_binary_write_v2(Buffer *out, const OffloadEntry *entries, size_t count) {
  // Header, the entries, every entry's string entries one after another, the string table
  // (NUL-terminated texts, as LLVM's writer leaves them; each value's size is given as well),
  // then each image at an aligned offset.
  StringTable table = {0};
  buffer_append(&table.bytes, "", 1);
  size_t num_strings = 0;
  for (size_t i = 0; i < count; i++)
    num_strings += entries[i].num_strings;
  size_t *key_at = xcalloc(num_strings + 1, sizeof(size_t));
  size_t *value_at = xcalloc(num_strings + 1, sizeof(size_t));
  for (size_t i = 0, k = 0; i < count; i++)
    for (size_t j = 0; j < entries[i].num_strings; j++, k++) {
      key_at[k] = string_table_add(&table, entries[i].strings[j].key);
      value_at[k] = string_table_add(&table, entries[i].strings[j].value);
    }
  size_t string_entries_at = HEADER_SIZE + count * ENTRY_SIZE;
  size_t table_at = string_entries_at + num_strings * STRING_ENTRY_V2_SIZE;
  size_t *image_at = xcalloc(count + 1, sizeof(size_t));
  size_t end = table_at + table.bytes.size;
  for (size_t i = 0; i < count; i++) {
    image_at[i] = align_to(end, BLOB_ALIGNMENT);
    end = image_at[i] + entries[i].image_size;
  }
  size_t blob_size = align_to(end, BLOB_ALIGNMENT);

  uint8_t *blob = append_blob(out, blob_size, 2);
  write_u64(blob + 24, count);
  for (size_t i = 0, k = 0; i < count; i++) {
    const OffloadEntry *e = &entries[i];
    uint8_t *entry = blob + HEADER_SIZE + i * ENTRY_SIZE;
    size_t strings_at = string_entries_at + k * STRING_ENTRY_V2_SIZE;
    write_u16(entry, e->image_kind);
    write_u16(entry + 2, e->offload_kind);
    write_u32(entry + 4, e->flags);
    write_u64(entry + 8, e->num_strings ? strings_at : 0);
    write_u64(entry + 16, e->num_strings);
    write_u64(entry + 24, image_at[i]);
    write_u64(entry + 32, e->image_size);
    for (size_t j = 0; j < e->num_strings; j++, k++) {
      uint8_t *s = blob + string_entries_at + k * STRING_ENTRY_V2_SIZE;
      write_u64(s, table_at + key_at[k]);
      write_u64(s + 8, table_at + value_at[k]);
      write_u64(s + 16, strlen(e->strings[j].value));
    }
    if (e->image_size) memcpy(blob + image_at[i], e->image, e->image_size);
  }
  memcpy(blob + table_at, table.bytes.data, table.bytes.size);
  free(key_at);
  free(value_at);
  free(image_at);
  free(table.bytes.data);
}

// One v2 entry's strings, copied (a v2 value has a size and need not end in a NUL).
static int parse_v2_strings(const uint8_t *blob, uint64_t blob_size, uint64_t index,
                            const uint8_t *e, OffloadEntry *entry, char **errmsg) {
  uint64_t string_offset = read_u64(e + 8), num_strings = read_u64(e + 16);
  if (num_strings > blob_size / STRING_ENTRY_V2_SIZE ||
      !in_range(string_offset, num_strings * STRING_ENTRY_V2_SIZE, blob_size)) {
    *errmsg = format("OffloadBinary entry %llu: string table out of range",
                     (unsigned long long)index);
    return -1;
  }
  OffloadString *strings = xcalloc(num_strings + 1, sizeof *strings);
  for (uint64_t i = 0; i < num_strings; i++) {
    const uint8_t *s = blob + string_offset + i * STRING_ENTRY_V2_SIZE;
    const char *why = NULL, *key = blob_string(blob, blob_size, read_u64(s), &why);
    uint64_t value_offset = read_u64(s + 8), value_size = read_u64(s + 16);
    if (key && !in_range(value_offset, value_size, blob_size)) why = "value out of range";
    if (key && !why && memchr(blob + value_offset, 0, value_size)) why = "value holds a NUL byte";
    if (!key || why) {
      *errmsg = format("OffloadBinary entry %llu: string %llu%s%s%s: %s", (unsigned long long)index,
                       (unsigned long long)i, key ? " '" : "", key ? key : "", key ? "'" : "",
                       why);
      offload_strings_free(strings, i);
      return -1;
    }
    strings[i].key = xstrdup(key);
    strings[i].value = xstrndup((const char *)blob + value_offset, (size_t)value_size);
  }
  entry->strings = strings;
  entry->num_strings = num_strings;
  return 0;
}

int offload_binary_parse_v2(const uint8_t *data, size_t size, OffloadEntry **entries,
                            size_t *count, char **errmsg) {
  if (size < HEADER_SIZE || !is_offload_binary(data, size)) {
    *errmsg = format("not an OffloadBinary (%s)", size < HEADER_SIZE ? "truncated" : "bad magic");
    return -1;
  }
  uint32_t version = read_u32(data + 4);
  uint64_t blob_size = read_u64(data + 8), entries_offset = read_u64(data + 16),
           entries_count = read_u64(data + 24);
  const char *why = version != 2                           ? "not OffloadBinary version 2"
                    : blob_size < HEADER_SIZE || blob_size > size ? "size out of range"
                    : entries_count > blob_size / ENTRY_SIZE ||
                            !in_range(entries_offset, entries_count * ENTRY_SIZE, blob_size)
                        ? "entries out of range"
                    : entries_count && entries_offset % BLOB_ALIGNMENT
                        ? "entries not 8-byte aligned"
                        : NULL;
  if (why) {
    *errmsg = version != 2 ? format("OffloadBinary version %u, not 2", version)
                           : format("OffloadBinary version 2: %s", why);
    return -1;
  }
  OffloadEntry *list = xcalloc(entries_count + 1, sizeof *list);
  for (uint64_t i = 0; i < entries_count; i++) {
    const uint8_t *e = data + entries_offset + i * ENTRY_SIZE;
    OffloadEntry *entry = &list[i];
    entry->image_kind = read_u16(e);
    entry->offload_kind = read_u16(e + 2);
    entry->flags = read_u32(e + 4);
    uint64_t image_offset = read_u64(e + 24), image_size = read_u64(e + 32);
    int rc = -1;
    if (!in_range(image_offset, image_size, blob_size))
      *errmsg = format("OffloadBinary entry %llu: image out of range", (unsigned long long)i);
    else
      rc = parse_v2_strings(data, blob_size, i, e, entry, errmsg);
    if (rc) {
      for (uint64_t j = 0; j < i; j++)
        offload_strings_free(list[j].strings, list[j].num_strings);
      free(list);
      return -1;
    }
    entry->image = data + image_offset;
    entry->image_size = image_size;
  }
  *entries = list;
  *count = entries_count;
  return 0;
}
