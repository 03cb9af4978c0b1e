// Specialization constants in the test runtime: the descriptors of an image's
// "SYCL/specialization constants" set ({u32 ID, u32 offset in the value, u32 size} per element,
// ID 0xffffffff for padding; hooks/spec_constants.c writes them) applied to the values the
// host set, as intel's device_image_impl applies them.
#include "spec_constants.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_DECORATE = 71, DECORATION_SPEC_ID = 1, SPIRV_MAGIC = 0x07230203 };

typedef struct {
  uint32_t id, offset, size;
} Descriptor;

static uint32_t read_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static size_t descriptor_count(const Property *p) {
  return p->type == PROP_BYTES ? p->bytes.size / 12 : 0;
}

static Descriptor descriptor(const Property *p, size_t i) {
  const uint8_t *d = p->bytes.data + 12 * i;
  return (Descriptor){read_u32(d), read_u32(d + 4), read_u32(d + 8)};
}

static const PropertySet *constants_of(const PropertySets *image) {
  return propsets_find_set(image, SPEC_CONSTANTS_SET);
}

size_t spec_constant_extent(const PropertySets *image, const char *unique_id) {
  const Property *p = propsets_find(image, SPEC_CONSTANTS_SET, unique_id);
  size_t extent = 0;
  for (size_t i = 0; p && i < descriptor_count(p); i++) {
    Descriptor d = descriptor(p, i);
    if (d.id != SPEC_PADDING_ID && (size_t)d.offset + d.size > extent)
      extent = (size_t)d.offset + d.size;
  }
  return extent;
}

// Whether the SPIR-V module holds a SpecId decoration (native constants).
static bool has_spec_ids(const uint8_t *spirv, size_t size) {
  const uint32_t *w = (const uint32_t *)spirv;
  size_t n = size / 4;
  if (n < 5 || w[0] != SPIRV_MAGIC) return false;
  for (size_t i = 5; i < n;) {
    uint32_t count = w[i] >> 16, opcode = w[i] & 0xffff;
    if (count == 0 || i + count > n) return false;
    if (opcode == OP_DECORATE && count == 4 && w[i + 2] == DECORATION_SPEC_ID) return true;
    i += count;
  }
  return false;
}

void spec_constants_key(const PropertySets *image, const uint8_t *spirv, size_t size,
                        const SpecValues *values, Buffer *key) {
  const PropertySet *set = has_spec_ids(spirv, size) ? constants_of(image) : NULL;
  for (size_t i = 0; set && i < set->count; i++) {
    const Buffer *v = strmap_get(values, set->props[i].name);
    if (!v) continue;
    buffer_append(key, "|", 1);
    buffer_append(key, set->props[i].name, strlen(set->props[i].name));
    buffer_append(key, "=", 1);
    for (size_t k = 0; k < v->size; k++) {
      char hex[3];
      snprintf(hex, sizeof hex, "%02x", ((const uint8_t *)v->data)[k]);
      buffer_append(key, hex, 2);
    }
  }
}

// The SpecId decorations of SPIRV, moved up by SHIFT; PRESENT (indexed by the unshifted ID,
// up to *NUM_PRESENT) says which IDs the module holds. 0, or -1 with *errmsg.
static int shift_spec_ids(Buffer *spirv, uint32_t shift, uint8_t **present, uint32_t *num_present,
                          char **errmsg) {
  uint32_t *w = (uint32_t *)spirv->data;
  size_t n = spirv->size / 4;
  if (spirv->size % 4 || n < 5 || w[0] != SPIRV_MAGIC) {
    *errmsg = xstrdup("not a little-endian SPIR-V module");
    return -1;
  }
  *present = NULL;
  *num_present = 0;
  for (size_t i = 5; i < n;) {
    uint32_t count = w[i] >> 16, opcode = w[i] & 0xffff;
    if (count == 0 || i + count > n) {
      free(*present);
      *errmsg = format("malformed SPIR-V instruction at word %zu", i);
      return -1;
    }
    if (opcode == OP_DECORATE && count == 4 && w[i + 2] == DECORATION_SPEC_ID) {
      uint32_t id = w[i + 3];
      if (id >= *num_present) {
        *present = xrealloc(*present, (size_t)id + 1);
        memset(*present + *num_present, 0, (size_t)id + 1 - *num_present);
        *num_present = id + 1;
      }
      (*present)[id] = 1;
      w[i + 3] = id + shift;
    }
    i += count;
  }
  return 0;
}

int spec_constants_native(Buffer *spirv, const PropertySets *image, const SpecValues *values,
                          uint32_t shift, uint32_t *next_shift, Buffer *spec_const,
                          char **errmsg) {
  uint8_t *present;
  uint32_t num_present;
  if (shift_spec_ids(spirv, shift, &present, &num_present, errmsg)) return -1;
  *next_shift = shift + num_present;
  const PropertySet *set = constants_of(image);
  int rc = 0;
  for (size_t i = 0; set && i < set->count && !rc; i++) {
    const Property *p = &set->props[i];
    const Buffer *v = strmap_get(values, p->name);
    for (size_t k = 0; v && k < descriptor_count(p) && !rc; k++) {
      Descriptor d = descriptor(p, k);
      if (d.id == SPEC_PADDING_ID || d.id >= num_present || !present[d.id]) continue;
      if ((d.size != 1 && d.size != 2 && d.size != 4 && d.size != 8) ||
          (size_t)d.offset + d.size > v->size) {
        *errmsg = format("specialization constant %s: element of %u bytes at %u: cannot be set "
                         "from a value of %zu bytes",
                         p->name, d.size, d.offset, v->size);
        rc = -1;
        break;
      }
      uint64_t bits = 0; // little endian, as llvm-spirv takes the value's bit pattern
      for (uint32_t b = 0; b < d.size; b++)
        bits |= (uint64_t)((const uint8_t *)v->data)[d.offset + b] << (8 * b);
      char *entry = format("%u:i%u:%llu ", d.id + shift, 8 * d.size, (unsigned long long)bits);
      buffer_append(spec_const, entry, strlen(entry));
      free(entry);
    }
  }
  free(present);
  return rc;
}

void spec_constants_blob(const PropertySets *image, const SpecValues *values, Buffer *blob) {
  const PropertySet *set = constants_of(image);
  const Property *defaults = propsets_find(image, SPEC_DEFAULTS_SET, "all");
  if (!set) return;
  if (defaults && defaults->type == PROP_BYTES)
    buffer_append(blob, defaults->bytes.data, defaults->bytes.size);
  size_t at = 0; // the element's place in the blob: the sizes of all descriptors before it
  for (size_t i = 0; i < set->count; i++) {
    const Property *p = &set->props[i];
    const Buffer *v = strmap_get(values, p->name);
    for (size_t k = 0; k < descriptor_count(p); k++) {
      Descriptor d = descriptor(p, k);
      while (blob->size < at + d.size)
        buffer_append(blob, "", 1);
      if (v && d.id != SPEC_PADDING_ID && (size_t)d.offset + d.size <= v->size)
        memcpy(blob->data + at, (const uint8_t *)v->data + d.offset, d.size);
      at += d.size;
    }
  }
}
