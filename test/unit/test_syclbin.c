// Specification of formats/syclbin.c and OffloadBinary v2 (formats/offload_binary.c): a
// SYCLBIN file written reads back entry for entry; files intel's reader refuses are refused
// here, naming the entry. (The layout against the design document: lit, wrapper/syclbin.test.)
#include "formats/formats.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Writes a SYCLBIN of ENTRIES (v2, COUNT of them) and expects syclbin_read to refuse it with
// a message containing EXPECTED.
static void check_refused(const OffloadEntry *entries, size_t count, const char *expected,
                          const char *what) {
  Buffer file = {0};
  offload_binary_write_v2(&file, entries, count);
  Syclbin s;
  char *why = NULL;
  int rc = syclbin_read(file.data, file.size, &s, &why);
  bool ok = rc == -1 && why && strstr(why, expected);
  check(ok, what);
  if (!ok) printf("      expected '%s', got rc %d and '%s'\n", expected, rc, why ? why : "");
  if (!rc) syclbin_free(&s);
  free(why);
  free(file.data);
}

int main(void) {
  // OffloadBinary v2 round trip: several entries, an empty image, strings in order.
  OffloadString a_strings[] = {{"role", "ir"}, {"triple", "spir64-unknown-unknown"}};
  OffloadEntry two[] = {
      {.image_kind = IMG_SPIRV, .offload_kind = OFK_SYCL, .flags = 3, .strings = a_strings,
       .num_strings = 2, .image = (const uint8_t *)"abc", .image_size = 3},
      {.image_kind = IMG_OBJECT, .offload_kind = OFK_OPENMP, .image = NULL, .image_size = 0},
  };
  Buffer v2 = {0};
  offload_binary_write_v2(&v2, two, 2);
  OffloadEntry *back = NULL;
  size_t count = 0;
  char *why = NULL;
  int rc = offload_binary_parse_v2(v2.data, v2.size, &back, &count, &why);
  check(!rc && count == 2, "a v2 binary of two entries reads back as two");
  check(offload_binary_version(v2.data, v2.size) == 2 && v2.size % 8 == 0,
        "its header says version 2, its size is a multiple of 8");
  check(!rc && back[0].flags == 3 && back[0].image_size == 3 &&
            !memcmp(back[0].image, "abc", 3) && back[0].num_strings == 2 &&
            !strcmp(back[0].strings[1].key, "triple") &&
            !strcmp(back[0].strings[1].value, "spir64-unknown-unknown"),
        "the first entry's flags, image and strings come back in order");
  check(!rc && back[1].offload_kind == OFK_OPENMP && !back[1].image_size && !back[1].num_strings,
        "an entry with no image and no strings comes back so");
  check(offload_binary_parse(v2.data, v2.size, &(OffloadEntry *){0}, &(size_t){0}, &why) == -1 &&
            strstr(why, "unsupported OffloadBinary version 2"),
        "the link's v1 reader still refuses it, as LLVM 22 does");
  free(why);
  why = NULL;
  for (size_t i = 0; !rc && i < count; i++)
    offload_strings_free(back[i].strings, back[i].num_strings);
  free(back);
  Buffer cut = {.data = v2.data, .size = v2.size - 8};
  check(offload_binary_parse_v2(cut.data, cut.size, &back, &count, &why) == -1 &&
            strstr(why, "size out of range"),
        "a truncated v2 binary is refused");
  free(why);
  why = NULL;
  free(v2.data);

  // A SYCLBIN of an ir image and a native one reads back as two abstract modules.
  PropertySets kernels = {0}, none = {0};
  propsets_add_u32(&kernels, "SYCL/kernel names", "_ZTS1K", 1);
  const uint8_t spirv[] = {0x03, 0x02, 0x23, 0x07, 9, 9};
  const uint8_t zebin[] = {0x7f, 'E', 'L', 'F', 1};
  SyclbinImage images[] = {
      {.properties = &kernels, .triple = "spir64-unknown-unknown", .image = spirv,
       .size = sizeof spirv},
      {.properties = &none, .native = true, .triple = "spir64_gen-unknown-unknown",
       .arch = "pvc", .image = zebin, .size = sizeof zebin},
  };
  Buffer file = {0};
  rc = syclbin_write(&file, SYCLBIN_OBJECT, images, 2, &why);
  check(!rc && is_syclbin(file.data, file.size), "a SYCLBIN file is written and known as one");
  Syclbin s;
  rc = syclbin_read(file.data, file.size, &s, &why);
  check(!rc && s.state == SYCLBIN_OBJECT && s.num_entries == 5 && s.num_modules == 2,
        "it reads back: state object, five entries, two abstract modules");
  if (!rc) {
    const SyclbinReadImage *ir = &s.modules[0].images[0], *native = &s.modules[1].images[0];
    check(propsets_find(&s.modules[0].metadata, "SYCL/kernel names", "_ZTS1K") &&
              !s.modules[1].metadata.count,
          "each module's property sets come back (none for the second)");
    check(!ir->native && ir->ir_type == SYCLBIN_IR_SPIRV && ir->size == sizeof spirv &&
              !memcmp(ir->bytes, spirv, sizeof spirv) &&
              !strcmp(ir->triple, "spir64-unknown-unknown"),
          "the ir image's bytes and keys come back");
    const Property *arch =
        propsets_find(&native->metadata, "SYCLBIN/native device code image metadata", "arch");
    check(native->native && !strcmp(native->arch, "pvc") && native->size == sizeof zebin &&
              arch && arch->bytes.size == 3 && !memcmp(arch->bytes.data, "pvc", 3),
          "the native image's bytes, arch key and arch property come back");
    syclbin_free(&s);
  }
  free(file.data);
  propsets_free(&kernels);

  // What intel's reader refuses.
  OffloadString global[] = {{"role", "global_metadata"}};
  OffloadString am0[] = {{"role", "am_metadata"}, {"am_index", "0"}};
  OffloadString am1[] = {{"role", "am_metadata"}, {"am_index", "1"}};
  OffloadString signed_index[] = {{"role", "am_metadata"}, {"am_index", "+0"}};
  OffloadString big_index[] = {{"role", "am_metadata"}, {"am_index", "1000000000000"}};
  OffloadString ir_no_triple[] = {{"role", "ir"}, {"am_index", "0"}, {"ir_type", "0"}};
  OffloadString odd_role[] = {{"role", "other"}};
  const uint8_t state[] = "[SYCLBIN/global metadata]\nstate=1|0\n";
  const uint8_t short_meta[] = {255, 0, 0, 0, 0, 0, 0, 0, 1};
#define ENTRY(s, img, n)                                                                         \
  {.image_kind = IMG_SYCLBIN, .offload_kind = OFK_SYCL, .strings = s,                          \
   .num_strings = sizeof s / sizeof *s, .image = img, .image_size = n}
  OffloadEntry g = ENTRY(global, state, sizeof state - 1);
  check_refused((OffloadEntry[]){ENTRY(am0, NULL, 0)}, 1, "no global_metadata entry",
                "a file without global metadata");
  check_refused((OffloadEntry[]){g, g}, 2, "entry 1: a second global_metadata entry",
                "two global metadata entries");
  check_refused((OffloadEntry[]){g, ENTRY(am0, NULL, 0), ENTRY(am0, NULL, 0)}, 3,
                "entry 2: a second am_metadata entry for am_index 0", "two modules of one index");
  check_refused((OffloadEntry[]){g, ENTRY(am1, NULL, 0)}, 2, "no am_metadata entry for am_index 0",
                "indices not starting at 0");
  check_refused((OffloadEntry[]){g, ENTRY(signed_index, NULL, 0)}, 2, "am_index '+0'",
                "a signed am_index");
  check_refused((OffloadEntry[]){g, ENTRY(big_index, NULL, 0)}, 2, "not an index below 2",
                "an am_index beyond the entries (intel's bound against huge allocations)");
  check_refused((OffloadEntry[]){g, ENTRY(odd_role, NULL, 0)}, 2, "unknown role 'other'",
                "an unknown role");
  check_refused((OffloadEntry[]){g, ENTRY(am0, NULL, 0), ENTRY(ir_no_triple, spirv, 6)}, 3,
                "entry 2: no 'triple' key", "an ir entry without its triple");
  OffloadString ir_ok[] = {{"role", "ir"}, {"am_index", "0"}, {"ir_type", "0"},
                           {"triple", "spir64-unknown-unknown"}};
  check_refused((OffloadEntry[]){g, ENTRY(am0, NULL, 0), ENTRY(ir_ok, short_meta, 9)}, 3,
                "entry 2: metadata size 255 out of range", "a metadata size past the image");
  OffloadEntry spirv_kind = g;
  spirv_kind.image_kind = IMG_SPIRV;
  check_refused((OffloadEntry[]){spirv_kind}, 1, "entry 0: image kind 6",
                "an entry of another image kind");
  // Layout v1 (a SYBI header inside one v1 entry of kind IMG_SYCLBIN): known, not read.
  Buffer v1 = {0};
  offload_binary_append(&v1, &(OffloadEntry){.image_kind = IMG_SYCLBIN, .offload_kind = OFK_SYCL,
                                             .image = (const uint8_t *)"IBYS", .image_size = 4});
  check(is_syclbin(v1.data, v1.size) && syclbin_read(v1.data, v1.size, &s, &why) == -1 &&
            strstr(why, "layout v1"),
        "a layout v1 file is known as a SYCLBIN file and refused as v1");
  free(why);
  free(v1.data);
  propsets_free(&none);
  return checks_result();
}
