// intel's SYCLBIN files, layout v2 (sycl/doc/design/SYCLBINDesign.md): one OffloadBinary v2
// whose entries carry the global metadata, the abstract modules' metadata and their images.
// It writes and reads the file; which images go in, and linking SYCLBIN files, are not here.
#include "formats/formats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The property sets SYCLBIN adds (sycl/doc/design/PropertySets.md; the native set's name is
// intel's PropertySetIO.h's: the design document's "... image module metadata" is no set
// name intel's code writes or reads).
#define GLOBAL_SET "SYCLBIN/global metadata"
#define IR_SET "SYCLBIN/ir module metadata"
#define NATIVE_SET "SYCLBIN/native device code image metadata"

const char *syclbin_state_name(uint32_t state) {
  return state == SYCLBIN_INPUT        ? "input"
         : state == SYCLBIN_OBJECT     ? "object"
         : state == SYCLBIN_EXECUTABLE ? "executable"
                                       : NULL;
}

bool is_syclbin(const uint8_t *data, size_t size) {
  // v1 and v2 both keep the (first) entry's offset at byte 16.
  uint32_t version = offload_binary_version(data, size);
  if ((version != 1 && version != 2) || size < 32) return false;
  uint64_t entry = 0;
  for (int i = 7; i >= 0; i--)
    entry = entry << 8 | data[16 + i];
  return entry <= size - 2 && (data[entry] | data[entry + 1] << 8) == IMG_SYCLBIN;
}

//
// Writing
//

// Appends SETS in intel's .prop text; -1 with *errmsg for a name intel's reader cannot read.
static int append_prop_text(Buffer *out, const PropertySets *sets, char **errmsg) {
  char *text = propsets_to_prop(sets, errmsg);
  if (!text) return -1;
  buffer_append(out, text, strlen(text));
  free(text);
  return 0;
}

// An ir or native entry's image: [u64 LE metadata size][metadata][the image's bytes].
static int image_payload(Buffer *out, const SyclbinImage *image, char **errmsg) {
  PropertySets meta = {0};
  const char *set = image->native ? NATIVE_SET : IR_SET;
  if (image->native)
    propsets_add_bytes(&meta, set, "arch", image->arch, strlen(image->arch));
  else
    propsets_add_u32(&meta, set, "type", SYCLBIN_IR_SPIRV);
  propsets_add_bytes(&meta, set, "target", image->triple, strlen(image->triple));
  Buffer text = {0};
  int rc = append_prop_text(&text, &meta, errmsg);
  propsets_free(&meta);
  if (rc) return -1;
  uint8_t size[8];
  for (int i = 0; i < 8; i++)
    size[i] = (uint8_t)((uint64_t)text.size >> (8 * i));
  buffer_append(out, size, sizeof size);
  buffer_append(out, text.data, text.size);
  buffer_append(out, image->image, image->size);
  free(text.data);
  return 0;
}

int syclbin_write(Buffer *out, uint32_t state, const SyclbinImage *images, size_t count,
                  char **errmsg) {
  // Entries: the global metadata, then per abstract module its metadata and its image, kept
  // together as the design document asks (for syclbin-dump's readers).
  size_t num_entries = 1 + 2 * count;
  OffloadEntry *entries = xcalloc(num_entries, sizeof *entries);
  Buffer *payloads = xcalloc(num_entries, sizeof *payloads);
  char **indices = xcalloc(count + 1, sizeof *indices);
  int rc = 0;
  PropertySets global = {0};
  propsets_add_u32(&global, GLOBAL_SET, "state", state);
  rc = append_prop_text(&payloads[0], &global, errmsg);
  propsets_free(&global);
  entries[0].strings = xcalloc(1, sizeof(OffloadString));
  entries[0].strings[0] = (OffloadString){"role", "global_metadata"};
  entries[0].num_strings = 1;
  for (size_t i = 0; i < count && !rc; i++) {
    const SyclbinImage *image = &images[i];
    indices[i] = format("%zu", i);
    OffloadEntry *am = &entries[1 + 2 * i], *bin = &entries[2 + 2 * i];
    rc = append_prop_text(&payloads[1 + 2 * i], image->properties, errmsg);
    if (!rc) rc = image_payload(&payloads[2 + 2 * i], image, errmsg);
    am->strings = xcalloc(2, sizeof(OffloadString));
    am->strings[0] = (OffloadString){"role", "am_metadata"};
    am->strings[1] = (OffloadString){"am_index", indices[i]};
    am->num_strings = 2;
    bin->strings = xcalloc(4, sizeof(OffloadString));
    bin->strings[0] = (OffloadString){"role", image->native ? "native" : "ir"};
    bin->strings[1] = (OffloadString){"am_index", indices[i]};
    bin->strings[2] = image->native ? (OffloadString){"arch", image->arch}
                                    : (OffloadString){"ir_type", "0"}; // SYCLBIN_IR_SPIRV
    bin->strings[3] = (OffloadString){"triple", image->triple};
    bin->num_strings = 4;
  }
  for (size_t i = 0; i < num_entries; i++) {
    entries[i].image_kind = IMG_SYCLBIN;
    entries[i].offload_kind = OFK_SYCL;
    entries[i].image = payloads[i].data;
    entries[i].image_size = payloads[i].size;
  }
  if (!rc) offload_binary_write_v2(out, entries, num_entries);
  for (size_t i = 0; i < num_entries; i++) {
    free(entries[i].strings);
    free(payloads[i].data);
  }
  for (size_t i = 0; i < count; i++)
    free(indices[i]);
  free(indices);
  free(payloads);
  free(entries);
  return rc;
}

//
// Reading
//

// Parses BYTES (SIZE of them) as .prop text into OUT; -1 with *errmsg.
static int read_prop_text(const uint8_t *bytes, size_t size, PropertySets *out, char **errmsg) {
  if (!size) return 0; // no property set at all (intel's reader takes it so too)
  if (memchr(bytes, 0, size)) {
    *errmsg = xstrdup("property sets holding a NUL byte");
    return -1;
  }
  char *text = xstrndup((const char *)bytes, size);
  char *why = NULL;
  int rc = propsets_from_prop(text, out, &why);
  free(text);
  if (rc) {
    *errmsg = format("bad property sets: %s", why);
    free(why);
  }
  return rc;
}

// An am_index: decimal digits only (no sign, no space), below LIMIT.
static bool parse_index(const char *text, size_t limit, size_t *out) {
  if (!text || !*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 18)
    return false;
  *out = (size_t)strtoull(text, NULL, 10);
  return *out < limit;
}

static const char *entry_key(const OffloadEntry *e, const char *key) {
  for (size_t i = 0; i < e->num_strings; i++)
    if (!strcmp(e->strings[i].key, key)) return e->strings[i].value;
  return NULL;
}

// Reads entry E, of role ir or native, into IMAGE (its entry set); -1 with *errmsg.
static int read_image_entry(const OffloadEntry *e, bool native, SyclbinReadImage *image,
                            char **errmsg) {
  const char *triple = entry_key(e, "triple"), *arch = entry_key(e, "arch"),
             *ir_type = entry_key(e, "ir_type");
  if (!triple || (native && !arch) || (!native && !ir_type)) {
    *errmsg = format("no '%s' key", !triple ? "triple" : native ? "arch" : "ir_type");
    return -1;
  }
  if (e->image_size < 8) {
    *errmsg = xstrdup("image too small for its metadata size");
    return -1;
  }
  uint64_t meta_size = 0;
  for (int i = 7; i >= 0; i--)
    meta_size = meta_size << 8 | e->image[i];
  if (meta_size > e->image_size - 8) {
    *errmsg = format("metadata size %llu out of range", (unsigned long long)meta_size);
    return -1;
  }
  *image = (SyclbinReadImage){.entry = image->entry,
                              .native = native,
                              .triple = triple,
                              .arch = native ? arch : NULL,
                              .ir_type = ir_type ? (uint32_t)strtoul(ir_type, NULL, 10) : 0,
                              .bytes = e->image + 8 + meta_size,
                              .size = e->image_size - 8 - (size_t)meta_size};
  return read_prop_text(e->image + 8, (size_t)meta_size, &image->metadata, errmsg);
}

int syclbin_read(const uint8_t *data, size_t size, Syclbin *out, char **errmsg) {
  *out = (Syclbin){0};
  if (offload_binary_version(data, size) == 1 && is_syclbin(data, size)) {
    *errmsg = xstrdup("a SYCLBIN file of layout v1 (its SYBI header inside one OffloadBinary "
                      "v1 entry): only layout v2 is read");
    return -1;
  }
  if (offload_binary_parse_v2(data, size, &out->entries, &out->num_entries, errmsg)) return -1;
  char *why = NULL;
  size_t at = 0;
  // The first pass finds the global metadata and counts the abstract modules: an am_index is
  // below the number of entries (each module has its own metadata entry).
  size_t *am_entry = xcalloc(out->num_entries + 1, sizeof *am_entry); // entry + 1, 0: none
  size_t modules = 0;
  bool global = false;
  for (at = 0; at < out->num_entries && !why; at++) {
    const OffloadEntry *e = &out->entries[at];
    const char *role = entry_key(e, "role"), *am_index = entry_key(e, "am_index");
    size_t index = 0;
    if (e->image_kind != IMG_SYCLBIN || e->offload_kind != OFK_SYCL) {
      why = format("image kind %u, offload kind %u: a SYCLBIN entry has kind %u (syclbin) and "
                   "offload kind %u (sycl)",
                   e->image_kind, e->offload_kind, IMG_SYCLBIN, OFK_SYCL);
    } else if (!role) {
      why = xstrdup("no 'role' key");
    } else if (!strcmp(role, "global_metadata")) {
      if (global) why = xstrdup("a second global_metadata entry");
      global = true;
    } else if (strcmp(role, "am_metadata") && strcmp(role, "ir") && strcmp(role, "native")) {
      why = format("unknown role '%s'", role);
    } else if (!parse_index(am_index, out->num_entries, &index)) {
      why = format("am_index '%s' is not an index below %zu (the number of entries)",
                   am_index ? am_index : "", out->num_entries);
    } else {
      if (index >= modules) modules = index + 1;
      if (!strcmp(role, "am_metadata") && am_entry[index])
        why = format("a second am_metadata entry for am_index %zu", index);
      else if (!strcmp(role, "am_metadata"))
        am_entry[index] = at + 1;
    }
  }
  if (!why && !global) {
    at = 0;
    why = xstrdup("no global_metadata entry");
  }
  for (size_t i = 0; !why && i < modules; i++)
    if (!am_entry[i]) {
      at = 0;
      why = format("no am_metadata entry for am_index %zu (the indices are 0 to %zu)", i,
                   modules - 1);
    }
  if (why) {
    *errmsg = at ? format("entry %zu: %s", at - 1, why) : format("%s", why);
    free(why);
    free(am_entry);
    syclbin_free(out);
    return -1;
  }

  // The second decodes them.
  out->modules = xcalloc(modules + 1, sizeof *out->modules);
  out->num_modules = modules;
  for (size_t i = 0; i < modules; i++)
    out->modules[i].entry = am_entry[i] - 1;
  free(am_entry);
  for (at = 0; at < out->num_entries && !why; at++) {
    const OffloadEntry *e = &out->entries[at];
    const char *role = entry_key(e, "role");
    size_t index = 0;
    if (strcmp(role, "global_metadata")) parse_index(entry_key(e, "am_index"), SIZE_MAX, &index);
    SyclbinModule *m = &out->modules[index];
    if (!strcmp(role, "global_metadata")) {
      out->global_entry = at;
      if (!read_prop_text(e->image, e->image_size, &out->global, &why)) {
        const Property *state = propsets_find(&out->global, GLOBAL_SET, "state");
        if (!state || state->type != PROP_UINT32)
          why = xstrdup("no 'state' of type 1 in [" GLOBAL_SET "]");
        else
          out->state = state->u32;
      }
    } else if (!strcmp(role, "am_metadata")) {
      read_prop_text(e->image, e->image_size, &m->metadata, &why);
    } else {
      m->images = xrealloc(m->images, (m->num_images + 1) * sizeof *m->images);
      SyclbinReadImage *image = &m->images[m->num_images++];
      *image = (SyclbinReadImage){.entry = at};
      read_image_entry(e, !strcmp(role, "native"), image, &why);
    }
  }
  if (why) {
    *errmsg = format("entry %zu: %s", at - 1, why);
    free(why);
    syclbin_free(out);
    return -1;
  }
  return 0;
}

void syclbin_free(Syclbin *s) {
  propsets_free(&s->global);
  for (size_t i = 0; i < s->num_modules; i++) {
    propsets_free(&s->modules[i].metadata);
    for (size_t j = 0; j < s->modules[i].num_images; j++)
      propsets_free(&s->modules[i].images[j].metadata);
    free(s->modules[i].images);
  }
  free(s->modules);
  for (size_t i = 0; i < s->num_entries; i++)
    offload_strings_free(s->entries[i].strings, s->entries[i].num_strings);
  free(s->entries);
  *s = (Syclbin){0};
}
