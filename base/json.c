// JSON through jansson: strings made from any bytes (invalid UTF-8 replaced), and the one
// compact, ordered form every JSON the tool writes takes. It knows no document's shape.
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_sequence_length(const unsigned char *s, size_t left) {
  size_t len = s[0] < 0x80                   ? 1
               : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
               : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
               : s[0] >= 0xC2 && s[0] <= 0xDF ? 2
                                              : 0;
  if (!len || len > left) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  // No overlong forms, no UTF-16 surrogates, nothing past U+10FFFF.
  if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) ||
      (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] > 0x8F))
    return 0;
  return len;
}

bool utf8_is_valid(const char *s) {
  size_t left = strlen(s);
  for (size_t n; left; s += n, left -= n)
    if (!(n = utf8_sequence_length((const unsigned char *)s, left))) return false;
  return true;
}

// U+FFFD in UTF-8.
static const char replacement[] = "\xEF\xBF\xBD";

char *utf8_valid_copy(const void *data, size_t len, size_t *out_len) {
  const unsigned char *s = data;
  Buffer b = {0};
  for (size_t i = 0; i < len;) {
    size_t n = utf8_sequence_length(s + i, len - i);
    if (n) {
      buffer_append(&b, s + i, n);
      i += n;
    } else {
      buffer_append(&b, replacement, 3);
      i++;
    }
  }
  if (out_len) *out_len = b.size;
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

static json_t *checked(json_t *v) {
  if (!v) out_of_memory("a JSON value");
  return v;
}

json_t *json_bytes(const void *data, size_t len) {
  size_t n;
  char *valid = utf8_valid_copy(data, len, &n);
  // Valid UTF-8 now (NUL bytes included: jansson writes them as \u0000).
  json_t *v = checked(json_stringn_nocheck(valid, n));
  free(valid);
  return v;
}

json_t *json_text(const char *s) {
  return s ? json_bytes(s, strlen(s)) : checked(json_null());
}

json_t *json_uint(uint64_t value) {
  return checked(json_integer((json_int_t)value));
}

json_t *json_int(int64_t value) {
  return checked(json_integer((json_int_t)value));
}

json_t *json_new_object(void) {
  return checked(json_object());
}

json_t *json_new_array(void) {
  return checked(json_array());
}

void json_put(json_t *object, const char *key, json_t *value) {
  char *valid = utf8_valid_copy(key, strlen(key), NULL);
  if (json_object_set_new_nocheck(object, valid, value)) die("cannot add JSON member '%s'", valid);
  free(valid);
}

void json_push(json_t *array, json_t *value) {
  if (json_array_append_new(array, value)) die("cannot append to a JSON array");
}

// Compact (no space after ':' or ','), members in the order they were added, UTF-8 as it is
// (strings are valid UTF-8 by construction); control bytes, '"' and '\\' escaped by jansson.
char *json_dump_text(const json_t *value) {
  char *text = json_dumps(value, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  if (!text) out_of_memory("a JSON document");
  return text; // jansson's default allocator is malloc: free() it
}
