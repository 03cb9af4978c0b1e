// SYCL property sets: building them, and their two encodings, upstream's JSON (standard
// Base64) and intel's .prop text (its own Base64 variant). It computes no property.
#include "properties/properties.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//
// Building
//

static PropertySet *find_set(const PropertySets *p, const char *name) {
  size_t found = (size_t)(uintptr_t)strmap_get(&p->index, name); // index + 1, or 0
  return found ? &p->sets[found - 1] : NULL;
}

static PropertySet *get_or_add_set(PropertySets *p, const char *name) {
  PropertySet *s = find_set(p, name);
  if (s) return s;
  if (p->count == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 8;
    p->sets = xrealloc(p->sets, p->cap * sizeof *p->sets);
  }
  strmap_put(&p->index, name, (void *)(uintptr_t)(p->count + 1));
  s = &p->sets[p->count++];
  *s = (PropertySet){.name = xstrdup(name)};
  return s;
}

static size_t find_property(const PropertySet *s, const char *name) {
  return (size_t)(uintptr_t)strmap_get(&s->index, name); // index + 1, or 0
}

// A property of that name is replaced (as intel's reader does); sets and properties
// otherwise keep the order they were added in, which is the order .prop text shows.
static Property *get_or_add_property(PropertySets *p, const char *set, const char *name) {
  PropertySet *s = get_or_add_set(p, set);
  size_t found = find_property(s, name);
  if (found) {
    Property *prop = &s->props[found - 1];
    free(prop->bytes.data);
    prop->bytes = (Buffer){0};
    prop->bits = 0;
    return prop;
  }
  strmap_put(&s->index, name, (void *)(uintptr_t)(s->count + 1));
  if (s->count == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 8;
    s->props = xrealloc(s->props, s->cap * sizeof *s->props);
  }
  Property *prop = &s->props[s->count++];
  *prop = (Property){.name = xstrdup(name)};
  return prop;
}

// The property just added, as it is (for a second field).
static Property *get_or_add_property_keep(PropertySets *p, const char *set, const char *name) {
  PropertySet *s = get_or_add_set(p, set);
  size_t found = find_property(s, name);
  return found ? &s->props[found - 1] : get_or_add_property(p, set, name);
}

void propsets_add_u32(PropertySets *p, const char *set, const char *name, uint32_t value) {
  Property *prop = get_or_add_property(p, set, name);
  prop->type = PROP_UINT32;
  prop->u32 = value;
}

void propsets_add_bytes(PropertySets *p, const char *set, const char *name, const void *data,
                        size_t size) {
  Property *prop = get_or_add_property(p, set, name);
  prop->type = PROP_BYTES;
  prop->bytes.data = xmalloc(size);
  if (size) memcpy(prop->bytes.data, data, size);
  prop->bytes.size = size;
}

void propsets_add_bits(PropertySets *p, const char *set, const char *name, const void *data,
                       uint64_t bits) {
  propsets_add_bytes(p, set, name, data, (size_t)((bits + 7) / 8));
  Property *prop = get_or_add_property_keep(p, set, name);
  prop->bits = bits % 8 ? bits : 0;
}

void propsets_add_set(PropertySets *p, const char *set) {
  get_or_add_set(p, set);
}

uint64_t property_bit_count(const Property *prop) {
  return prop->bits ? prop->bits : (uint64_t)prop->bytes.size * 8;
}

const Property *propsets_find(const PropertySets *p, const char *set, const char *name) {
  const PropertySet *s = find_set(p, set);
  size_t found = s ? find_property(s, name) : 0;
  return found ? &s->props[found - 1] : NULL;
}

void propsets_remove(PropertySets *p, const char *set, const char *name) {
  PropertySet *s = find_set(p, set);
  size_t found = s ? find_property(s, name) : 0;
  if (!found) return;
  size_t i = found - 1;
  free(s->props[i].name);
  free(s->props[i].bytes.data);
  memmove(&s->props[i], &s->props[i + 1], (s->count - i - 1) * sizeof *s->props);
  s->count--;
  // The ones after it moved: the index is built again (removing is rare, adding is not).
  strmap_free(&s->index);
  for (size_t k = 0; k < s->count; k++)
    strmap_put(&s->index, s->props[k].name, (void *)(uintptr_t)(k + 1));
}

static void free_set(PropertySet *s) {
  for (size_t j = 0; j < s->count; j++) {
    free(s->props[j].name);
    free(s->props[j].bytes.data);
  }
  free(s->props);
  free(s->name);
  strmap_free(&s->index);
}

static void propsets_remove_set(PropertySets *p, const char *set) {
  PropertySet *s = find_set(p, set);
  if (!s) return;
  free_set(s);
  size_t i = (size_t)(s - p->sets);
  memmove(&p->sets[i], &p->sets[i + 1], (p->count - i - 1) * sizeof *p->sets);
  p->count--;
  strmap_free(&p->index);
  for (size_t k = 0; k < p->count; k++)
    strmap_put(&p->index, p->sets[k].name, (void *)(uintptr_t)(k + 1));
}

const PropertySet *propsets_find_set(const PropertySets *p, const char *set) {
  return find_set(p, set);
}

void propsets_free(PropertySets *p) {
  for (size_t i = 0; i < p->count; i++)
    free_set(&p->sets[i]);
  free(p->sets);
  strmap_free(&p->index);
  *p = (PropertySets){0};
}

//
// Base64, both flavours
//

static const char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// RFC 4648: the most significant bits first, '=' padding to a multiple of four.
char *base64_encode(const void *data, size_t size) {
  const uint8_t *in = data;
  char *out = xmalloc((size + 2) / 3 * 4 + 1), *o = out;
  for (size_t i = 0; i < size; i += 3) {
    uint32_t group = (uint32_t)in[i] << 16;
    if (i + 1 < size) group |= (uint32_t)in[i + 1] << 8;
    if (i + 2 < size) group |= in[i + 2];
    *o++ = base64_alphabet[group >> 18 & 63];
    *o++ = base64_alphabet[group >> 12 & 63];
    *o++ = i + 1 < size ? base64_alphabet[group >> 6 & 63] : '=';
    *o++ = i + 2 < size ? base64_alphabet[group & 63] : '=';
  }
  *o = 0;
  return out;
}

int base64_decode(const char *text, size_t len, Buffer *out) {
  *out = (Buffer){0};
  if (len % 4) return -EINVAL;
  size_t pad = 0;
  while (pad < 2 && pad < len && text[len - 1 - pad] == '=')
    pad++;
  uint8_t *bytes = xmalloc(len / 4 * 3 + 1);
  size_t n = 0;
  for (size_t i = 0; i < len; i += 4) {
    uint32_t group = 0;
    for (size_t k = 0; k < 4; k++) {
      int d = i + k >= len - pad ? 0 : base64_digit(text[i + k]);
      if (d < 0) {
        free(bytes);
        return -EINVAL;
      }
      group = group << 6 | (uint32_t)d;
    }
    bytes[n++] = group >> 16;
    bytes[n++] = group >> 8 & 0xff;
    bytes[n++] = group & 0xff;
  }
  out->data = bytes;
  out->size = n - pad;
  return 0;
}

// intel's variant (llvm/Support/Base64 in intel/llvm): each group of three bytes is read as
// one 24-bit little-endian number and written six bits at a time, least significant first;
// no padding: a last byte gives two characters, a last pair three.
char *base64_encode_intel(const void *data, size_t size) {
  const uint8_t *in = data;
  char *out = xmalloc((size * 8 + 5) / 6 + 1), *o = out;
  for (size_t i = 0; i < size; i += 3) {
    size_t left = size - i < 3 ? size - i : 3;
    uint32_t group = in[i];
    if (left > 1) group |= (uint32_t)in[i + 1] << 8;
    if (left > 2) group |= (uint32_t)in[i + 2] << 16;
    for (size_t k = 0; k < left + 1; k++)
      *o++ = base64_alphabet[group >> (6 * k) & 63];
  }
  *o = 0;
  return out;
}

int base64_decode_intel(const char *text, size_t len, Buffer *out) {
  *out = (Buffer){0};
  if (len % 4 == 1) return -EINVAL;
  uint8_t *bytes = xmalloc(len / 4 * 3 + 3);
  size_t n = 0;
  for (size_t i = 0; i < len; i += 4) {
    size_t chars = len - i < 4 ? len - i : 4;
    uint32_t group = 0;
    for (size_t k = 0; k < chars; k++) {
      int d = base64_digit(text[i + k]);
      if (d < 0) {
        free(bytes);
        return -EINVAL;
      }
      group |= (uint32_t)d << (6 * k);
    }
    for (size_t k = 0; k + 1 < chars; k++)
      bytes[n++] = group >> (8 * k) & 0xff;
  }
  out->data = bytes;
  out->size = n;
  return 0;
}

//
// Upstream JSON (llvm/lib/Frontend/Offloading/PropertySet.cpp), through jansson: upstream
// keeps sets and properties in std::map, so both are written sorted by name, compactly.
// Names are bytes (a sycl-unique-id may hold 0xFF) and a JSON string is UTF-8: each byte
// that begins no valid sequence is written as U+FFFD, as llvm::json does (json_bytes).
//

// A bit vector's bit count (SYCL/kernel param opt: the runtime takes it for the kernel's
// number of arguments) has no place in upstream's JSON, whose byte arrays are whole bytes: it
// goes in a set of its own, "sycl-thinlto/bit counts of SET", NAME -> bits, written only for a
// set that holds one, and folded back in by the reader (a wrong one is an error). Upstream's
// reader takes it for one more set, which intel's runtime does not look up.
static const char bit_counts_prefix[] = "sycl-thinlto/bit counts of ";

static bool has_bit_vector(const PropertySet *s) {
  for (size_t j = 0; j < s->count; j++)
    if (s->props[j].type == PROP_BYTES && s->props[j].bits) return true;
  return false;
}

static int compare_set_names(const void *a, const void *b) {
  return strcmp((*(const PropertySet *const *)a)->name, (*(const PropertySet *const *)b)->name);
}

static int compare_property_names(const void *a, const void *b) {
  return strcmp((*(const Property *const *)a)->name, (*(const Property *const *)b)->name);
}

json_t *propsets_to_json_value(const PropertySets *p) {
  json_t *root = json_new_object();
  const PropertySet **sets = xcalloc(p->count + 1, sizeof *sets);
  for (size_t i = 0; i < p->count; i++)
    sets[i] = &p->sets[i];
  qsort(sets, p->count, sizeof *sets, compare_set_names);
  for (size_t i = 0; i < p->count; i++) {
    const PropertySet *s = sets[i];
    // The bit counts' sets are this writer's own, made from the properties' bits below: one
    // read from elsewhere (a .prop file) is not written again (it would be read back as
    // counts, or refused).
    if (!strncmp(s->name, bit_counts_prefix, sizeof bit_counts_prefix - 1)) continue;
    json_t *set = json_new_object();
    const Property **props = xcalloc(s->count + 1, sizeof *props);
    for (size_t j = 0; j < s->count; j++)
      props[j] = &s->props[j];
    qsort(props, s->count, sizeof *props, compare_property_names);
    for (size_t j = 0; j < s->count; j++) {
      if (props[j]->type == PROP_UINT32) {
        json_put(set, props[j]->name, json_uint(props[j]->u32));
      } else {
        char *value = base64_encode(props[j]->bytes.data, props[j]->bytes.size);
        json_put(set, props[j]->name, json_text(value));
        free(value);
      }
    }
    json_put(root, s->name, set);
    if (has_bit_vector(s)) {
      json_t *counts = json_new_object();
      for (size_t j = 0; j < s->count; j++)
        if (props[j]->type == PROP_BYTES && props[j]->bits)
          json_put(counts, props[j]->name, json_uint((uint32_t)props[j]->bits));
      char *name = format("%s%s", bit_counts_prefix, s->name);
      json_put(root, name, counts);
      free(name);
    }
    free(props);
  }
  free(sets);
  return root;
}

char *propsets_to_json(const PropertySets *p) {
  json_t *root = propsets_to_json_value(p);
  char *text = json_dump_text(root);
  json_decref(root);
  return text;
}

static char *printable_name(const char *name);

// Why VALUE cannot be property NAME of SET, or NULL after adding it.
static char *add_json_property(PropertySets *out, const char *set, const char *name,
                               const json_t *value) {
  if (json_is_string(value)) {
    Buffer bytes;
    if (base64_decode(json_string_value(value), json_string_length(value), &bytes))
      return xstrdup("a string value is not Base64");
    propsets_add_bytes(out, set, name, bytes.data, bytes.size);
    free(bytes.data);
    return NULL;
  }
  if (json_is_real(value)) return xstrdup("expected an integer");
  if (!json_is_integer(value)) return xstrdup("expected an unsigned integer or a string");
  json_int_t v = json_integer_value(value);
  if (v < 0) return xstrdup("expected an unsigned integer, not a negative one");
  if ((unsigned long long)v > UINT32_MAX) return xstrdup("integer value does not fit in 32 bits");
  propsets_add_u32(out, set, name, (uint32_t)v);
  return NULL;
}

// The "bit counts of SET" sets read back into SET's byte arrays (and removed); why one is
// wrong, or NULL. *WHERE names the place.
static char *fold_bit_counts(PropertySets *p, char **where) {
  for (size_t i = 0; i < p->count; i++) {
    PropertySet *counts = &p->sets[i];
    if (strncmp(counts->name, bit_counts_prefix, sizeof bit_counts_prefix - 1)) continue;
    const char *set = counts->name + sizeof bit_counts_prefix - 1;
    for (size_t j = 0; j < counts->count; j++) {
      const Property *c = &counts->props[j];
      const Property *target = propsets_find(p, set, c->name);
      const char *why = c->type != PROP_UINT32          ? "a bit count is not an integer"
                        : !target || target->type != PROP_BYTES ? "no byte array of that name"
                        : c->u32 > 8 * (uint64_t)target->bytes.size ||
                                  8 * (uint64_t)target->bytes.size - c->u32 >= 8
                            ? "the bit count does not fit the byte array's length"
                            : NULL;
      if (why) {
        char *s = printable_name(counts->name), *n = printable_name(c->name);
        *where = format("'%s', property '%s'", s, n);
        free(s);
        free(n);
        return xstrdup(why);
      }
      ((Property *)target)->bits = c->u32 == 8 * target->bytes.size ? 0 : c->u32;
    }
  }
  for (size_t i = p->count; i-- > 0;)
    if (!strncmp(p->sets[i].name, bit_counts_prefix, sizeof bit_counts_prefix - 1))
      propsets_remove_set(p, p->sets[i].name);
  return NULL;
}

int propsets_from_json(const char *json, PropertySets *out, char **errmsg) {
  *out = (PropertySets){0};
  json_error_t error;
  json_t *root = json_loads(json, 0, &error);
  if (!root) {
    *errmsg = format("invalid property JSON at byte %d: %s", error.position, error.text);
    return -1;
  }
  char *why = NULL, *where = NULL;
  const char *set_name, *name;
  json_t *set, *value;
  if (!json_is_object(root)) why = xstrdup("expected an object of property sets");
  else json_object_foreach(root, set_name, set) {
    if (!json_is_object(set)) {
      why = xstrdup("a set is not an object of properties");
      char *s = printable_name(set_name);
      where = format("'%s'", s);
      free(s);
      break;
    }
    get_or_add_set(out, set_name); // an empty set is kept
    json_object_foreach(set, name, value) {
      if ((why = add_json_property(out, set_name, name, value))) {
        char *s = printable_name(set_name), *n = printable_name(name);
        where = format("'%s', property '%s'", s, n);
        free(s);
        free(n);
        break;
      }
    }
    if (why) break;
  }
  if (!why) why = fold_bit_counts(out, &where);
  json_decref(root);
  if (!why) return 0;
  propsets_free(out);
  *errmsg = where ? format("invalid property JSON: set %s: %s", where, why)
                  : format("invalid property JSON: %s", why);
  free(where);
  free(why);
  return -1;
}

//
// intel's .prop text (llvm/Support/PropertySetIO in intel/llvm)
//

// intel's reader (PropertySetIO) has no escapes: it reads a line per property and splits it
// at the first '=' and the first '|' after it, a line starting with '[' is a set. A name it
// would read back otherwise (a line break, '=', a leading '[', an empty one) cannot be
// written; '|' and spaces in a name are read back whole. NULL if NAME is fine, else why.
static const char *prop_name_problem(const char *name, bool is_set) {
  if (strchr(name, '\n')) return "a line break";
  if (is_set) return NULL;
  if (!*name) return "an empty name";
  if (strchr(name, '=')) return "'=' (the reader splits the line there)";
  if (name[0] == '[') return "a leading '[' (the reader takes it for a set)";
  return NULL;
}

// NAME for a message: line breaks and other control bytes as \n, \xNN. Malloc'd.
static char *printable_name(const char *name) {
  Buffer b = {0};
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
    char esc[8];
    if (*c == '\n')
      buffer_append(&b, "\\n", 2);
    else if (*c < 0x20 || *c == 0x7f)
      buffer_append(&b, esc, (size_t)snprintf(esc, sizeof esc, "\\x%02x", *c));
    else
      buffer_append(&b, c, 1);
  }
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

char *propsets_to_prop(const PropertySets *p, char **errmsg) {
  for (size_t i = 0; i < p->count; i++) {
    const PropertySet *s = &p->sets[i];
    const char *why = prop_name_problem(s->name, true);
    for (size_t j = 0; !why && j < s->count; j++) {
      if (!(why = prop_name_problem(s->props[j].name, false))) continue;
      char *name = printable_name(s->props[j].name);
      *errmsg = format("property '%s' of [%s] cannot be written as .prop text: its name holds %s",
                       name, s->name, why);
      free(name);
      return NULL;
    }
    if (why) {
      char *name = printable_name(s->name);
      *errmsg = format("set [%s] cannot be written as .prop text: its name holds %s", name, why);
      free(name);
      return NULL;
    }
  }
  Buffer b = {0};
  for (size_t i = 0; i < p->count; i++) {
    const PropertySet *s = &p->sets[i];
    char *line = format("[%s]\n", s->name);
    buffer_append(&b, line, strlen(line));
    free(line);
    for (size_t j = 0; j < s->count; j++) {
      const Property *prop = &s->props[j];
      if (prop->type == PROP_UINT32) {
        line = format("%s=1|%u\n", prop->name, (unsigned)prop->u32);
      } else {
        // The value is the bit count, 8 bytes little-endian, then the bytes.
        size_t n = prop->bytes.size;
        uint8_t *raw = xmalloc(8 + n);
        uint64_t bits = property_bit_count(prop);
        for (int k = 0; k < 8; k++)
          raw[k] = bits >> (8 * k) & 0xff;
        if (n) memcpy(raw + 8, prop->bytes.data, n);
        char *encoded = base64_encode_intel(raw, 8 + n);
        line = format("%s=2|%s\n", prop->name, encoded);
        free(encoded);
        free(raw);
      }
      buffer_append(&b, line, strlen(line));
      free(line);
    }
  }
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

static int prop_line_error(PropertySets *out, char **errmsg, size_t line_no, const char *what) {
  propsets_free(out);
  *errmsg = format("invalid property text at line %zu: %s", line_no, what);
  return -1;
}

int propsets_from_prop(const char *text, PropertySets *out, char **errmsg) {
  *out = (PropertySets){0};
  char *set = NULL;
  size_t line_no = 0;
  int rc = 0;
  for (const char *p = text; *p && !rc;) {
    size_t len = strcspn(p, "\n");
    char *line = xstrndup(p, len);
    p += len + (p[len] == '\n'); // before a '\r' is cut: "x\r" at the end must move P on
    if (len && line[len - 1] == '\r') line[--len] = 0;
    line_no++;
    if (!len) {
      free(line);
      continue;
    }
    if (line[0] == '[') {
      char *end = strrchr(line, ']');
      if (!end) {
        rc = prop_line_error(out, errmsg, line_no, "no ']' after the set name");
      } else {
        free(set);
        set = xstrndup(line + 1, end - line - 1);
        get_or_add_set(out, set);
      }
      free(line);
      continue;
    }
    char *eq = strchr(line, '='), *bar = eq ? strchr(eq, '|') : NULL;
    if (!set)
      rc = prop_line_error(out, errmsg, line_no, "a property before any [set]");
    else if (!eq || eq == line || !bar || bar == eq + 1 || !bar[1])
      rc = prop_line_error(out, errmsg, line_no, "expected NAME=TYPE|VALUE");
    else {
      *eq = 0;
      *bar = 0;
      char *tail;
      errno = 0;
      unsigned long type = strtoul(eq + 1, &tail, 10);
      const char *value = bar + 1;
      if (*tail || (type != PROP_UINT32 && type != PROP_BYTES)) {
        rc = prop_line_error(out, errmsg, line_no, "unsupported property type");
      } else if (type == PROP_UINT32) {
        unsigned long long v = strtoull(value, &tail, 10);
        if (*tail || value[0] == '-' || errno || v > UINT32_MAX)
          rc = prop_line_error(out, errmsg, line_no, "invalid uint32 value");
        else
          propsets_add_u32(out, set, line, (uint32_t)v);
      } else {
        Buffer raw;
        uint64_t bits = 0;
        if (base64_decode_intel(value, strlen(value), &raw) || raw.size < 8) {
          free(raw.data);
          rc = prop_line_error(out, errmsg, line_no, "invalid byte-array value");
        } else {
          for (int k = 0; k < 8; k++)
            bits |= (uint64_t)raw.data[k] << (8 * k);
          uint64_t n = bits / 8 + (bits % 8 != 0); // (bits + 7) / 8 would wrap
          if (n > raw.size - 8)
            rc = prop_line_error(out, errmsg, line_no, "byte array shorter than its bit count");
          else
            propsets_add_bits(out, set, line, raw.data + 8, bits);
          free(raw.data);
        }
      }
    }
    free(line);
  }
  free(set);
  if (!rc && !out->count) {
    *errmsg = xstrdup("invalid property text: no property set");
    return -1;
  }
  return rc;
}

// sycl-post-link's order of the sets it writes; sets it does not know go last, by name.
// (computeModuleProperties adds them in this order; its registry keeps insertion order).
static const char *const intel_set_order[] = {
    "SYCL/devicelib req mask",
    "SYCL/device requirements",
    "SYCL/specialization constants",
    "SYCL/specialization constants default values",
    "SYCL/kernel param opt",
    "SYCL/exported symbols",
    "SYCL/kernel names",
    "SYCL/imported symbols",
    "SYCL/program metadata",
    "SYCL/misc properties",
    "SYCL/assert used",
    "SYCL/implicit local arg",
    "SYCL/device globals",
    "SYCL/host pipes",
    "SYCL/virtual functions",
    "SYCL/registered kernels",
};

static size_t intel_rank(const char *set) {
  size_t n = sizeof intel_set_order / sizeof *intel_set_order;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(intel_set_order[i], set)) return i;
  return n;
}

static int compare_intel_order(const void *a, const void *b) {
  const PropertySet *x = a, *y = b;
  size_t rx = intel_rank(x->name), ry = intel_rank(y->name);
  return rx != ry ? (rx < ry ? -1 : 1) : strcmp(x->name, y->name);
}

void propsets_order_as_intel(PropertySets *p) {
  if (p->count) qsort(p->sets, p->count, sizeof *p->sets, compare_intel_order);
  for (size_t i = 0; i < p->count; i++) // the sets moved
    strmap_put(&p->index, p->sets[i].name, (void *)(uintptr_t)(i + 1));
}
