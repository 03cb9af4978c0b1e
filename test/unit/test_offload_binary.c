// Specification of formats/offload_binary.c: what is written reads back; every bad blob is refused
// with a message naming the offset and the problem. (LLVM compatibility is checked in lit.)
#include "formats/formats.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Parses DATA expecting an error that contains EXPECTED.
static void check_refused(const Buffer *data, const char *expected, const char *what) {
  OffloadEntry *entries = NULL;
  size_t count = 0;
  char *errmsg = NULL;
  int rc = offload_binary_parse(data->data, data->size, &entries, &count, &errmsg);
  bool ok = rc == -1 && errmsg && strstr(errmsg, expected);
  check(ok, what);
  if (!ok) printf("      expected '%s', got rc %d and '%s'\n", expected, rc, errmsg ? errmsg : "");
  free(errmsg);
}

static void put_u32(Buffer *b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++)
    b->data[at + i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(Buffer *b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; i++)
    b->data[at + i] = (uint8_t)(v >> (8 * i));
}

static Buffer copy_of(const Buffer *b) {
  Buffer c = {.data = xmalloc(b->size), .size = b->size};
  memcpy(c.data, b->data, b->size);
  return c;
}

int main(void) {
  // Two images, as the linker writes them: SPIR-V for SYCL with triple, arch and symbols.
  OffloadString first_strings[] = {
      {"triple", SPIRV_TRIPLE}, {"arch", ""}, {"symbols", "_ZTS2K1\n_ZTS2K2"}};
  OffloadString second_strings[] = {{"triple", SPIRV_TRIPLE}, {"arch", "generic"}};
  const uint8_t first_image[] = {0x03, 0x02, 0x23, 0x07, 1, 2, 3}; // odd size: padding needed
  const uint8_t second_image[] = "second image";
  OffloadEntry first = {.image_kind = IMG_SPIRV,
                        .offload_kind = OFK_SYCL,
                        .flags = 5,
                        .strings = first_strings,
                        .num_strings = 3,
                        .image = first_image,
                        .image_size = sizeof first_image};
  OffloadEntry second = {.image_kind = IMG_BITCODE,
                         .offload_kind = OFK_SYCL,
                         .strings = second_strings,
                         .num_strings = 2,
                         .image = second_image,
                         .image_size = sizeof second_image};

  Buffer out = {0};
  offload_binary_append(&out, &first);
  size_t first_size = out.size;
  offload_binary_append(&out, &second);
  check(first_size % 8 == 0 && out.size % 8 == 0, "each blob is a multiple of 8 bytes");
  check(is_offload_binary(out.data, out.size), "the output starts with the magic 10 FF 10 AD");
  check(out.data[4] == 1 && out.data[5] == 0, "version 1");

  // The head alone (a writer that writes the image from where it is): the same bytes before
  // the image, and the padding that ends the blob after it.
  Buffer head = {0};
  size_t padding = offload_binary_append_head(&head, &first);
  check(head.size + sizeof first_image + padding == first_size && padding < 8 &&
            !memcmp(head.data, out.data, head.size) &&
            !memcmp(out.data + head.size, first_image, sizeof first_image),
        "a blob's head, its image, then its padding are the blob");
  free(head.data);

  OffloadEntry *entries = NULL;
  size_t count = 0;
  char *errmsg = NULL;
  int rc = offload_binary_parse(out.data, out.size, &entries, &count, &errmsg);
  check(rc == 0 && count == 2, "two concatenated blobs parse as two entries");
  if (rc == 0 && count == 2) {
    check(entries[0].image_kind == IMG_SPIRV && entries[0].offload_kind == OFK_SYCL &&
              entries[0].flags == 5,
          "kinds and flags round-trip");
    check(entries[0].image_size == sizeof first_image &&
              !memcmp(entries[0].image, first_image, sizeof first_image),
          "first image bytes round-trip");
    check((entries[0].image - out.data) % 8 == 0, "images are 8-byte aligned in the blob");
    check(entries[1].image_size == sizeof second_image &&
              !memcmp(entries[1].image, second_image, sizeof second_image),
          "second image bytes round-trip");
    check(entries[0].num_strings == 3 && !strcmp(entries[0].strings[2].key, "symbols"),
          "strings keep their order");
    const char *symbols = offload_entry_get(&entries[0], "symbols");
    check(symbols && !strcmp(symbols, "_ZTS2K1\n_ZTS2K2"), "symbols value round-trips");
    const char *arch = offload_entry_get(&entries[0], "arch");
    check(arch && !strcmp(arch, ""), "an empty value round-trips");
    const char *arch2 = offload_entry_get(&entries[1], "arch");
    check(arch2 && !strcmp(arch2, "generic"), "second blob's arch");
    check(!offload_entry_get(&entries[1], "symbols"), "a missing key is NULL");
    for (size_t i = 0; i < count; i++)
      free(entries[i].strings);
    free(entries);
  }
  check(!strcmp(image_kind_name(IMG_SPIRV), "spirv") &&
            !strcmp(image_kind_name(IMG_BITCODE), "bitcode") &&
            !strcmp(image_kind_name(IMG_NONE), "none"),
        "image kind names");

  // Zero padding between blobs up to 8-byte alignment is tolerated (LLVM's extractor aligns):
  // the first blob claims to end right after its 7-byte image, one zero byte before the second.
  Buffer padded = copy_of(&out);
  put_u64(&padded, 8, first_size - 1);
  rc = offload_binary_parse(padded.data, padded.size, &entries, &count, &errmsg);
  check(rc == 0 && count == 2, "zero padding to the next 8-byte boundary is skipped");
  if (rc == 0) {
    for (size_t i = 0; i < count; i++)
      free(entries[i].strings);
    free(entries);
  }
  free(padded.data);

  Buffer bad = copy_of(&out);
  bad.data[0] = 0x11;
  check_refused(&bad, "OffloadBinary at offset 0: bad magic", "bad magic is refused");
  free(bad.data);

  bad = copy_of(&out);
  put_u32(&bad, first_size + 4, 2);
  char expected[128];
  snprintf(expected, sizeof expected,
           "OffloadBinary at offset %zu: unsupported OffloadBinary version 2", first_size);
  check_refused(&bad, expected, "version 2 in the second blob is refused, naming its offset");
  free(bad.data);

  bad = copy_of(&out);
  put_u64(&bad, 32 + 24, first_size + 1); // the first entry's image_offset
  check_refused(&bad, "image offset out of range", "an image offset past the blob is refused");
  free(bad.data);

  bad = copy_of(&out);
  put_u64(&bad, 32 + 32, first_size); // the first entry's image_size
  check_refused(&bad, "image size out of range", "an image running past the blob is refused");
  free(bad.data);

  bad = copy_of(&out);
  put_u64(&bad, 8, out.size + 8); // the first blob's size
  check_refused(&bad, "size", "a blob larger than the buffer is refused");
  free(bad.data);

  bad = copy_of(&out);
  put_u64(&bad, 32 + 16, 1000000); // the first entry's num_strings
  check_refused(&bad, "string table out of range", "too many strings are refused");
  free(bad.data);

  bad = copy_of(&out);
  memset(bad.data + first_size - 16, 'x', 16); // unterminated last string, padded image region
  put_u64(&bad, 32 + 40 + 16 * 2 + 8, first_size - 4); // "symbols" value -> "xxxx" at the end
  check_refused(&bad, "not NUL-terminated", "a string without its NUL is refused");
  free(bad.data);

  Buffer truncated = {.data = out.data, .size = 20};
  check_refused(&truncated, "OffloadBinary at offset 0: truncated header", "truncated header");
  truncated.size = first_size + 31;
  snprintf(expected, sizeof expected, "OffloadBinary at offset %zu: truncated header", first_size);
  check_refused(&truncated, expected, "a second blob with a truncated header");

  free(out.data);
  return checks_result();
}
