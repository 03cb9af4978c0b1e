// Specification of base/json.c: any bytes become a JSON string that is valid UTF-8 (each byte
// that begins no valid sequence is U+FFFD, the rest kept), and the one compact, ordered form
// the tool writes, with quotes, backslashes and control bytes escaped.
#include "base/base.h"

#include "check.h"

#include <stdlib.h>
#include <string.h>

static void same(const char *got, const char *want, const char *what) {
  check(!strcmp(got, want), what);
  if (strcmp(got, want)) printf("  got %s\n  want %s\n", got, want);
}

int main(void) {
  static const struct {
    const char *in, *out, *what;
  } cases[] = {
      {"plain", "plain", "ASCII is kept"},
      {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
       "2-, 3- and 4-byte sequences are kept"},
      {"a\xff" "b", "a\xef\xbf\xbd" "b", "0xFF is U+FFFD"},
      {"\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd", "each stray continuation byte is one U+FFFD"},
      {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "an overlong form is not kept"},
      {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "a UTF-16 surrogate is not kept"},
      {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
       "past U+10FFFF is not kept"},
      {"x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd", "a cut sequence is not kept"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *valid = utf8_valid_copy(cases[i].in, strlen(cases[i].in), NULL);
    same(valid, cases[i].out, cases[i].what);
    check(utf8_is_valid(valid), "... and the result is valid UTF-8");
    check(utf8_is_valid(cases[i].in) == !strcmp(cases[i].in, cases[i].out),
          "... utf8_is_valid says whether the input was");
    free(valid);
  }

  json_t *o = json_new_object(), *list = json_new_array();
  json_put(o, "z", json_uint(4294967295u));
  json_put(o, "a\xff", json_text("q\"b\\n\nc\x01\x1f\x7f"));
  json_push(list, json_text(NULL));
  json_push(list, json_bytes("nul\0inside", 10));
  json_push(list, json_int(-3));
  json_put(o, "list", list);
  json_put(o, "z", json_uint(1)); // replaced in place
  char *text = json_dump_text(o);
  same(text,
       "{\"z\":1,\"a\xef\xbf\xbd\":\"q\\\"b\\\\n\\nc\\u0001\\u001F\x7f\","
       "\"list\":[null,\"nul\\u0000inside\",-3]}",
       "compact, in insertion order, keys made valid, quotes, backslashes, control bytes and "
       "NUL escaped");
  json_error_t error;
  json_t *back = json_loads(text, JSON_ALLOW_NUL, &error);
  check(back && json_equal(back, o), "what is written reads back equal");
  json_decref(back);
  free(text);
  json_decref(o);
  return failures != 0;
}
