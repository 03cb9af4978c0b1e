// Scans a SPIR-V binary for the names it imports and exports (LinkageAttributes decorations).
// It does not validate the module beyond its instruction framing (spirv-val does, validate.c).
#include "spirv/spirv.h"

#include <stdlib.h>
#include <string.h>

enum {
  SPIRV_MAGIC = 0x07230203,
  SPIRV_HEADER_WORDS = 5,
  OP_DECORATE = 71,
  DECORATION_LINKAGE_ATTRIBUTES = 41,
  LINKAGE_EXPORT = 0,
  LINKAGE_IMPORT = 1,
  LINKAGE_LINK_ONCE_ODR = 2,
};

static uint32_t swap_bytes(uint32_t w) {
  return w >> 24 | (w >> 8 & 0xff00) | (w << 8 & 0xff0000) | w << 24;
}

// Words are in the module's byte order; fix them up once it is known from the magic.
static uint32_t word_at(const uint8_t *data, size_t index, bool swapped) {
  const uint8_t *p = data + index * 4;
  uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  return swapped ? swap_bytes(w) : w;
}

// A literal string: UTF-8 packed four bytes per word, lowest byte first, NUL-terminated.
// Returns the number of words it takes, or 0 if no NUL appears within max_words.
static size_t literal_string(const uint8_t *data, size_t first_word, size_t max_words, bool swapped,
                             char **out) {
  char *text = xmalloc(max_words * 4);
  for (size_t i = 0; i < max_words; i++) {
    uint32_t w = word_at(data, first_word + i, swapped);
    for (int b = 0; b < 4; b++) {
      text[i * 4 + b] = (char)(w >> (8 * b));
      if (!text[i * 4 + b]) {
        *out = text;
        return i + 1;
      }
    }
  }
  free(text);
  return 0;
}

int spirv_linkage(const uint8_t *data, size_t size, StringList *imports, StringList *exports,
                  char **errmsg) {
  if (size % 4) {
    *errmsg = format("SPIR-V module size %zu is not a multiple of 4", size);
    return -1;
  }
  size_t num_words = size / 4;
  if (num_words < SPIRV_HEADER_WORDS) {
    *errmsg = format("SPIR-V module truncated: %zu bytes, the header alone takes %d", size,
                     SPIRV_HEADER_WORDS * 4);
    return -1;
  }
  uint32_t magic = word_at(data, 0, false);
  bool swapped = magic == swap_bytes(SPIRV_MAGIC);
  if (magic != SPIRV_MAGIC && !swapped) {
    *errmsg = format("not a SPIR-V module (magic 0x%08x)", magic);
    return -1;
  }

  for (size_t at = SPIRV_HEADER_WORDS; at < num_words;) {
    uint32_t first = word_at(data, at, swapped);
    size_t word_count = first >> 16;
    uint32_t opcode = first & 0xffff;
    if (word_count == 0) {
      *errmsg = format("SPIR-V instruction at word %zu (opcode %u) has word count 0", at, opcode);
      return -1;
    }
    if (word_count > num_words - at) {
      *errmsg = format("SPIR-V instruction at word %zu (opcode %u) runs past the end of the "
                       "module (%zu words, %zu left)",
                       at, opcode, word_count, num_words - at);
      return -1;
    }
    // OpDecorate %target LinkageAttributes "name" LinkageType
    if (opcode == OP_DECORATE && word_count >= 3 &&
        word_at(data, at + 2, swapped) == DECORATION_LINKAGE_ATTRIBUTES) {
      char *name = NULL;
      size_t name_words = literal_string(data, at + 3, word_count - 3, swapped, &name);
      if (!name_words) {
        *errmsg = format("SPIR-V LinkageAttributes at word %zu: name is not NUL-terminated", at);
        return -1;
      }
      if (3 + name_words >= word_count) {
        *errmsg = format("SPIR-V LinkageAttributes '%s' at word %zu: no linkage type", name, at);
        free(name);
        return -1;
      }
      uint32_t linkage = word_at(data, at + 3 + name_words, swapped);
      if (linkage == LINKAGE_IMPORT) {
        strlist_push(imports, name);
      } else if (linkage == LINKAGE_EXPORT || linkage == LINKAGE_LINK_ONCE_ODR) {
        // A LinkOnceODR definition is one other modules may link against, as an export.
        strlist_push(exports, name);
      } else {
        *errmsg = format("SPIR-V LinkageAttributes '%s' at word %zu: unknown linkage type %u", name,
                         at, linkage);
        free(name);
        return -1;
      }
    }
    at += word_count;
  }
  return 0;
}
