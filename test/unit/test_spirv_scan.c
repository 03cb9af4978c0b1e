// Specification of spirv/scan.c: the names a SPIR-V module imports and exports, read from its
// LinkageAttributes decorations; framing errors (truncation, zero word count) refused.
#include "spirv/spirv.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD(c0, c1, c2, c3) ((uint32_t)(c0) | (c1) << 8 | (c2) << 16 | (uint32_t)(c3) << 24)

// ; Magic, version 1.0, generator, bound, schema
// OpCapability Linkage
// OpDecorate %1 LinkageAttributes "foo" Import
// OpDecorate %2 LinkageAttributes "exported_fn" Export
// OpDecorate %3 Alignment 8                       ; not a linkage decoration
// OpDecorate %4 LinkageAttributes "abcd" LinkOnceODR ; 4 bytes: the NUL takes a word of its own
// clang-format off
static const uint32_t module[] = {
    0x07230203, 0x00010000, 0, 5, 0,
    2 << 16 | 17, 5,
    5 << 16 | 71, 1, 41, WORD('f', 'o', 'o', 0), 1,
    7 << 16 | 71, 2, 41, WORD('e', 'x', 'p', 'o'), WORD('r', 't', 'e', 'd'),
    WORD('_', 'f', 'n', 0), 0,
    4 << 16 | 71, 3, 44, 8,
    6 << 16 | 71, 4, 41, WORD('a', 'b', 'c', 'd'), 0, 2,
};
// clang-format on

static Buffer bytes_of(const uint32_t *words, size_t count, bool swap) {
  Buffer b = {.data = xmalloc(count * 4), .size = count * 4};
  for (size_t i = 0; i < count; i++)
    for (int j = 0; j < 4; j++)
      b.data[i * 4 + j] = (uint8_t)(words[i] >> (8 * (swap ? 3 - j : j)));
  return b;
}

static void check_refused(const uint32_t *words, size_t num_words, size_t size,
                          const char *expected, const char *what) {
  Buffer b = bytes_of(words, num_words, false);
  StringList imports = {0}, exports = {0};
  char *errmsg = NULL;
  int rc = spirv_linkage(b.data, size, &imports, &exports, &errmsg);
  bool ok = rc == -1 && errmsg && strstr(errmsg, expected);
  check(ok, what);
  if (!ok) printf("      expected '%s', got rc %d and '%s'\n", expected, rc, errmsg ? errmsg : "");
  free(errmsg);
  strlist_free(&imports);
  strlist_free(&exports);
  free(b.data);
}

int main(void) {
  size_t num_words = sizeof module / sizeof *module;
  for (int swap = 0; swap < 2; swap++) {
    Buffer b = bytes_of(module, num_words, swap);
    StringList imports = {0}, exports = {0};
    char *errmsg = NULL;
    int rc = spirv_linkage(b.data, b.size, &imports, &exports, &errmsg);
    check(rc == 0, swap ? "a byte-swapped module scans" : "a little-endian module scans");
    check(imports.count == 1 && !strcmp(imports.items[0], "foo"), "Import: foo");
    check(exports.count == 2 && !strcmp(exports.items[0], "exported_fn"), "Export: exported_fn");
    check(exports.count == 2 && !strcmp(exports.items[1], "abcd"),
          "LinkOnceODR counts as an export; a 4-byte name ends in a NUL word");
    free(errmsg);
    strlist_free(&imports);
    strlist_free(&exports);
    free(b.data);
  }

  check_refused(module, num_words, num_words * 4 - 4, "runs past the end",
                "a module cut inside an instruction is refused");
  check_refused(module, num_words, 18, "not a multiple of 4", "a size that is no word multiple");
  check_refused(module, 4, 16, "header", "a module shorter than its header is refused");

  uint32_t zero_count[] = {0x07230203, 0x00010000, 0, 5, 0, 0};
  check_refused(zero_count, 6, 24, "word count 0", "an instruction of word count 0 is refused");

  uint32_t bad_magic[] = {0x12345678, 0x00010000, 0, 5, 0};
  check_refused(bad_magic, 5, 20, "not a SPIR-V module", "a wrong magic number is refused");

  uint32_t no_nul[] = {
      0x07230203, 0x00010000, 0, 5, 0, 4 << 16 | 71, 1, 41, WORD('a', 'b', 'c', 'd')};
  check_refused(no_nul, 9, 36, "not NUL-terminated", "a name without its NUL is refused");

  uint32_t no_type[] = {0x07230203, 0x00010000, 0, 5, 0, 4 << 16 | 71, 1, 41, WORD('a', 'b', 0, 0)};
  check_refused(no_type, 9, 36, "no linkage type", "a decoration without its linkage type");

  return checks_result();
}
