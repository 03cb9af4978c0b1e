// Specification of properties/propset.c: intel's Base64 variant and standard Base64, the
// .prop text and the upstream JSON encodings, each read back to what was written.
#include "properties/properties.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool encodes_intel(const void *data, size_t size, const char *expected) {
  char *text = base64_encode_intel(data, size);
  bool ok = !strcmp(text, expected);
  if (!ok) printf("  got %s, expected %s\n", text, expected);
  Buffer back;
  ok = ok && !base64_decode_intel(text, strlen(text), &back) && back.size == size &&
       (!size || !memcmp(back.data, data, size));
  free(back.data);
  free(text);
  return ok;
}

static bool encodes_standard(const char *data, const char *expected) {
  char *text = base64_encode(data, strlen(data));
  bool ok = !strcmp(text, expected);
  if (!ok) printf("  got %s, expected %s\n", text, expected);
  Buffer back;
  ok = ok && !base64_decode(text, strlen(text), &back) && back.size == strlen(data) &&
       !memcmp(back.data, data, back.size);
  free(back.data);
  free(text);
  return ok;
}

static void test_base64(void) {
  uint8_t at = 0x40;
  check(encodes_intel(&at, 1, "AB"), "intel Base64: 0x40 is AB (low bits first, no padding)");
  check(encodes_intel("", 0, ""), "intel Base64: nothing is the empty string");
  uint8_t zeros[8] = {0};
  check(encodes_intel(zeros, 8, "AAAAAAAAAAA"),
        "intel Base64: 8 zero bytes (an empty byte array's bit count) are 11 A's");
  // sycl-post-link's reqd_work_group_size_uint64_t for reqd_work_group_size(64) and (32)
  // (its test reqd-work-group-size.ll): bit count 64, then one uint64.
  uint8_t wg64[16] = {64, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0};
  uint8_t wg32[16] = {64, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0, 0, 0};
  check(encodes_intel(wg64, 16, "ABAAAAAAAAAQAAAAAAAAAA") &&
            encodes_intel(wg32, 16, "ABAAAAAAAAAIAAAAAAAAAA"),
        "intel Base64: {64 bits, 64} and {64 bits, 32} as sycl-post-link writes them");
  uint8_t two[2] = {0xff, 0x01}, three[3] = {1, 2, 3};
  char *t2 = base64_encode_intel(two, 2), *t3 = base64_encode_intel(three, 3);
  check(strlen(t2) == 3 && strlen(t3) == 4, "intel Base64: two bytes take 3 characters, three 4");
  free(t2);
  free(t3);
  check(encodes_intel(two, 2, "/HA") && encodes_intel(three, 3, "BIwA"),
        "intel Base64: remainders of two and three bytes");
  Buffer bad;
  check(base64_decode_intel("A", 1, &bad) != 0, "intel Base64: one character alone is invalid");
  check(base64_decode_intel("A*", 2, &bad) != 0, "intel Base64: '*' is not a digit");

  check(encodes_standard("", ""), "Base64: nothing is the empty string");
  check(encodes_standard("f", "Zg==") && encodes_standard("fo", "Zm8=") &&
            encodes_standard("foo", "Zm9v") && encodes_standard("foobar", "Zm9vYmFy"),
        "Base64: RFC 4648 test vectors");
  check(base64_decode("Zm9", 3, &bad) != 0, "Base64: a length not a multiple of 4 is invalid");
}

// The sets every test below writes and reads back.
static void sample(PropertySets *p) {
  propsets_add_u32(p, "SYCL/devicelib req mask", "DeviceLibReqMask", 0x22);
  propsets_add_u32(p, "SYCL/exported symbols", "_Z3fooi", 1);
  propsets_add_bytes(p, "SYCL/virtual functions", "virtual-functions-set", "set_fp64", 8);
  uint64_t wg[3] = {64, 2, 1};
  propsets_add_bytes(p, "SYCL/device requirements", "reqd_work_group_size_uint64_t", wg, sizeof wg);
  propsets_add_bytes(p, "SYCL/device requirements", "aspects", "", 0);
  propsets_add_u32(p, "SYCL/misc properties", "optLevel", 2);
  propsets_add_u32(p, "SYCL/misc properties", "optLevel", 3); // replaces the 2
}

static bool same_sets(const PropertySets *a, const PropertySets *b) {
  char *ja = propsets_to_json(a), *jb = propsets_to_json(b);
  bool same = !strcmp(ja, jb);
  if (!same) printf("  %s\n  %s\n", ja, jb);
  free(ja);
  free(jb);
  return same;
}

static void test_building(void) {
  PropertySets p = {0};
  sample(&p);
  check(p.count == 5, "five sets, in the order they were first named");
  const Property *opt = propsets_find(&p, "SYCL/misc properties", "optLevel");
  check(opt && opt->type == PROP_UINT32 && opt->u32 == 3, "a second add replaces the value");
  check(propsets_find_set(&p, "SYCL/misc properties")->count == 1, "... and adds no property");
  const Property *set = propsets_find(&p, "SYCL/virtual functions", "virtual-functions-set");
  check(set && set->type == PROP_BYTES && set->bytes.size == 8 &&
            !memcmp(set->bytes.data, "set_fp64", 8),
        "a string is a byte array of its bytes, without NUL");
  check(!propsets_find(&p, "SYCL/assert used", "x") &&
            !propsets_find(&p, "SYCL/misc properties", "x"),
        "absent sets and properties are NULL");
  propsets_free(&p);
  check(p.count == 0 && !p.sets, "freed sets are empty");
}

static void test_prop_text(void) {
  PropertySets p = {0};
  sample(&p);
  char *why = NULL;
  char *text = propsets_to_prop(&p, &why);
  const char *expected =
      "[SYCL/devicelib req mask]\n"
      "DeviceLibReqMask=1|34\n"
      "[SYCL/exported symbols]\n"
      "_Z3fooi=1|1\n"
      "[SYCL/virtual functions]\n"
      "virtual-functions-set=2|ABAAAAAAAAwclR3XmBnN0A\n"
      "[SYCL/device requirements]\n"
      "reqd_work_group_size_uint64_t=2|ADAAAAAAAAAQAAAAAAAAAIAAAAAAAAAABAAAAAAAAAA\n"
      "aspects=2|AAAAAAAAAAA\n"
      "[SYCL/misc properties]\n"
      "optLevel=1|3\n";
  check(!strcmp(text, expected), ".prop text: sets and properties in insertion order");
  if (strcmp(text, expected)) printf("%s", text);
  PropertySets back;
  char *err = NULL;
  check(!propsets_from_prop(text, &back, &err) && same_sets(&p, &back),
        ".prop text reads back to the same sets");
  char *again = propsets_to_prop(&back, &why);
  check(!strcmp(again, text), ".prop text: write, read, write is byte-identical");
  free(again);
  propsets_free(&back);
  free(text);
  propsets_free(&p);

  // Values sycl-post-link wrote.
  check(!propsets_from_prop("[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"
                            "reqd_work_group_size_uint64_t=2|ABAAAAAAAAAIAAAAAAAAAA\n",
                            &back, &err),
        ".prop text from sycl-post-link is read");
  const Property *wg =
      propsets_find(&back, "SYCL/device requirements", "reqd_work_group_size_uint64_t");
  const Property *aspects = propsets_find(&back, "SYCL/device requirements", "aspects");
  check(wg && wg->bytes.size == 8 && wg->bytes.data[0] == 32 && aspects && aspects->bytes.size == 0,
        "... reqd_work_group_size(32) is one uint64 32; aspects is empty");
  propsets_free(&back);

  // CRLF line ends, the last line without its '\n' (found by test/fuzz/propset_prop: the
  // reader looped forever on a last line ending in '\r').
  check(!propsets_from_prop("[S]\r\nx=1|7\r\ny=1|8\r", &back, &err) &&
            propsets_find(&back, "S", "y") && propsets_find(&back, "S", "y")->u32 == 8,
        ".prop text with CRLF line ends and a last line ending in '\\r' is read");
  propsets_free(&back);
  check(!propsets_from_prop("[S]\nx=1|7\n\r", &back, &err), "... a last line of only '\\r' too");
  propsets_free(&back);

  const char *bad[] = {"",
                       "x=1|1\n",
                       "[S]\nx=1\n",
                       "[S]\nx=3|1\n",
                       "[S]\nx=1|-1\n",
                       "[S]\nx=1|4294967296\n",
                       "[S]\nx=2|A\n",
                       "[S]\nx=2|ABAAAAAAAAA\n",
                       "[S]\nx=2|//////////P\n", // a bit count of 2^64 - 1 and no bytes
                       "[S\n"};
  bool all_rejected = true;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err = NULL;
    if (!propsets_from_prop(bad[i], &back, &err) || !err) {
      printf("  accepted: %s\n", bad[i]);
      all_rejected = false;
      propsets_free(&back);
    }
    free(err);
  }
  check(all_rejected, ".prop text: malformed lines, types, values and bit counts are errors");
}

// A bit vector's bit count travels in a set of its own ("sycl-thinlto/bit counts of SET");
// one of that name read from .prop text is not written to JSON again (it would be read back
// as counts).
static void test_json_bit_counts(void) {
  PropertySets p = {0};
  uint8_t mask[2] = {0x01, 0x04};
  propsets_add_bits(&p, "SYCL/kernel param opt", "K", mask, 11);
  char *json = propsets_to_json(&p);
  check(!strcmp(json, "{\"SYCL/kernel param opt\":{\"K\":\"AQQ=\"},"
                      "\"sycl-thinlto/bit counts of SYCL/kernel param opt\":{\"K\":11}}"),
        "JSON: a bit vector's count in a set of its own");
  PropertySets back;
  char *err = NULL;
  check(!propsets_from_json(json, &back, &err) && back.count == 1 &&
            property_bit_count(propsets_find(&back, "SYCL/kernel param opt", "K")) == 11,
        "... read back into the vector's bits, the set gone");
  propsets_free(&back);
  free(json);
  propsets_free(&p);
  check(!propsets_from_prop("[sycl-thinlto/bit counts of S]\nk=1|3\n", &p, &err),
        ".prop: a set of that name is read as any other");
  json = propsets_to_json(&p);
  check(!strcmp(json, "{}"), "... and not written to JSON");
  free(json);
  propsets_free(&p);
}

static void test_json(void) {
  PropertySets p = {0};
  sample(&p);
  char *json = propsets_to_json(&p);
  const char *expected =
      "{\"SYCL/device requirements\":{\"aspects\":\"\",\"reqd_work_group_size_uint64_t\":"
      "\"QAAAAAAAAAACAAAAAAAAAAEAAAAAAAAA\"},"
      "\"SYCL/devicelib req mask\":{\"DeviceLibReqMask\":34},"
      "\"SYCL/exported symbols\":{\"_Z3fooi\":1},"
      "\"SYCL/misc properties\":{\"optLevel\":3},"
      "\"SYCL/virtual functions\":{\"virtual-functions-set\":\"c2V0X2ZwNjQ=\"}}";
  check(!strcmp(json, expected),
        "JSON: compact, sets and properties sorted as upstream's std::map");
  if (strcmp(json, expected)) printf("%s\n", json);
  PropertySets back;
  char *err = NULL;
  check(!propsets_from_json(json, &back, &err) && same_sets(&p, &back),
        "JSON reads back to the same sets");
  const Property *set = propsets_find(&back, "SYCL/virtual functions", "virtual-functions-set");
  check(set && set->type == PROP_BYTES && set->bytes.size == 8,
        "... strings are byte arrays again");
  propsets_free(&back);
  free(json);
  propsets_free(&p);

  check(!propsets_from_json(
            " { \"S\\/x\\u00e9\" : { \"a\\n\" : 7 , \"b\" : \"Zg==\" } , \"E\":{} } ", &back, &err),
        "JSON: whitespace and escapes are read");
  const Property *a = propsets_find(&back, "S/x\xc3\xa9", "a\n");
  check(a && a->u32 == 7 && propsets_find_set(&back, "E"),
        "... \\/ \\u00e9 \\n decoded; empty sets kept");
  json = propsets_to_json(&back);
  check(!strcmp(json, "{\"E\":{},\"S/x\xc3\xa9\":{\"a\\n\":7,\"b\":\"Zg==\"}}"),
        "... and written back escaped");
  free(json);
  propsets_free(&back);

  const char *bad[] = {"",
                       "[]",
                       "{\"S\":1}",
                       "{\"S\":{\"x\":-1}}",
                       "{\"S\":{\"x\":1.5}}",
                       "{\"S\":{\"x\":4294967296}}",
                       "{\"S\":{\"x\":\"Zg=\"}}",
                       "{\"S\":{\"x\":1}",
                       "{\"S\":{\"x\":1}} x",
                       "{\"S\":{\"x\":true}}"};
  bool all_rejected = true;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err = NULL;
    if (!propsets_from_json(bad[i], &back, &err) || !err) {
      printf("  accepted: %s\n", bad[i]);
      all_rejected = false;
      propsets_free(&back);
    }
    free(err);
  }
  check(all_rejected, "JSON: other shapes, negative, fractional, too large, bad Base64 are errors");
}

int main(void) {
  test_base64();
  test_building();
  test_prop_text();
  test_json();
  test_json_bit_counts();
  return checks_result();
}
