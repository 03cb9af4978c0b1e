// Fuzz target: the cache-entry reader (base/cache.c): an entry's trailer and checksum
// (cache_entry_payload), then its payload read with the record reader the way each kind's
// loader reads it. An input is "KIND KEY\n" and the entry's bytes (a seed is a real entry
// under its real name, so its checksum holds). The payload is read whether the checksum
// holds or not: a foreign entry with a valid checksum reaches the loaders just the same.
#include "properties/properties.h"

#include <stdlib.h>
#include <string.h>

enum { TRAILER_SIZE = 52 }; // BLAKE3, size, version, magic, after the payload (base/cache.c)

static void read_strings(RecordReader *r) {
  StringList l = {0};
  record_get_strings(r, &l);
  strlist_free(&l);
}

static void read_string(RecordReader *r) {
  free(record_get_string(r));
}

static void read_record(RecordReader *r) {
  size_t n;
  record_get(r, &n);
}

// hooks/image_cache.c: dependencies, SPIR-V, symbols, imports, properties (JSON).
static void read_image(RecordReader r) {
  read_strings(&r);
  read_record(&r);
  read_strings(&r);
  read_strings(&r);
  char *properties = record_get_string(&r);
  PropertySets p;
  char *errmsg;
  if (properties && propsets_from_json(properties, &p, &errmsg) == 0)
    propsets_free(&p);
  else if (properties)
    free(errmsg);
  free(properties);
}

// split/stage.c and split/program.c: two u64 (a flag, a count), then records per item.
static bool read_head(RecordReader *r, uint64_t head[2]) {
  if ((size_t)(r->end - r->p) < 2 * sizeof(uint64_t)) return false;
  memcpy(head, r->p, 2 * sizeof(uint64_t));
  r->p += 2 * sizeof(uint64_t);
  return true;
}

// split: per image its bitcode, kernels, exported functions, set, dummy flag, facts and
// symbols (lto/symbols.c: content key, flags, names, set, functions, dummy flag, opt level).
static void read_split(RecordReader r) {
  uint64_t head[2];
  if (!read_head(&r, head)) return;
  for (uint64_t i = 0; i < head[1] && !r.bad; i++) {
    read_record(&r);
    read_strings(&r);
    read_strings(&r);
    read_record(&r);
    read_record(&r);
    read_record(&r);
    size_t n;
    const uint8_t *symbols = record_get(&r, &n);
    if (!symbols) continue;
    RecordReader s = {symbols, symbols + n, false};
    read_record(&s);
    read_record(&s);
    read_strings(&s);
    read_string(&s);
    read_strings(&s);
    read_record(&s);
    read_record(&s);
  }
}

// facts: per global its flags, name, set and four string lists.
static void read_facts(RecordReader r) {
  uint64_t head[2];
  if (!read_head(&r, head)) return;
  for (uint64_t i = 0; i < head[1] && !r.bad; i++) {
    read_record(&r);
    read_string(&r);
    read_string(&r);
    for (int k = 0; k < 4; k++)
      read_strings(&r);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nl = memchr(data, '\n', size), *sp = nl ? memchr(data, ' ', nl - data) : NULL;
  if (!sp) return 0;
  char *kind = xstrndup((const char *)data, sp - data);
  char *key = xstrndup((const char *)sp + 1, nl - sp - 1);
  const uint8_t *entry = nl + 1;
  size_t entry_size = size - (entry - data), payload_size;
  int at = cache_entry_payload(kind, key, entry, entry_size, &payload_size);
  if (at >= 0 && (at != 0 || payload_size + TRAILER_SIZE != entry_size)) abort();
  const uint8_t *payload = entry;
  const uint8_t *end = entry + (entry_size < TRAILER_SIZE ? 0 : entry_size - TRAILER_SIZE);
  read_image((RecordReader){payload, end, false});
  read_split((RecordReader){payload, end, false});
  read_facts((RecordReader){payload, end, false});
  free(kind);
  free(key);
  return 0;
}
