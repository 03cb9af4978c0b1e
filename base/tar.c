// A tar archive built in memory (POSIX ustar, with a pax record for a name longer than 100
// bytes), for --reproduce. It writes members only; nothing here reads a tar.
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAR_BLOCK = 512 };

// One 512-byte header: NAME (at most 100 bytes), SIZE bytes of data, TYPE '0' or 'x'. Times,
// owners and modes are fixed, so the same members give the same archive.
static void append_header(Buffer *tar, const char *name, size_t size, char type) {
  unsigned char h[TAR_BLOCK] = {0};
  memcpy(h, name, strnlen(name, 100));
  memcpy(h + 100, "0000644", 7);                         // mode
  memcpy(h + 108, "0000000", 7);                         // uid
  memcpy(h + 116, "0000000", 7);                         // gid
  snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
  memcpy(h + 136, "00000000000", 11);                    // mtime
  h[156] = (unsigned char)type;
  memcpy(h + 257, "ustar", 6);                           // magic, NUL-terminated
  memcpy(h + 263, "00", 2);                              // version
  memset(h + 148, ' ', 8);                               // the checksum counts as spaces
  unsigned sum = 0;
  for (size_t i = 0; i < TAR_BLOCK; i++)
    sum += h[i];
  snprintf((char *)h + 148, 8, "%06o", sum);
  h[155] = ' ';
  buffer_append(tar, h, TAR_BLOCK);
}

static void append_padded(Buffer *tar, const void *data, size_t size) {
  static const unsigned char zeros[TAR_BLOCK];
  buffer_append(tar, data, size);
  if (size % TAR_BLOCK) buffer_append(tar, zeros, TAR_BLOCK - size % TAR_BLOCK);
}

void tar_add(Buffer *tar, const char *name, const void *data, size_t size) {
  if (strlen(name) > 100) {
    // pax: "LEN path=NAME\n", LEN counting its own digits.
    size_t body = strlen(" path=\n") + strlen(name), len = body + 1;
    while (snprintf(NULL, 0, "%zu", len) + body != len)
      len++;
    char *record = format("%zu path=%s\n", len, name);
    append_header(tar, "././@PaxHeader", strlen(record), 'x');
    append_padded(tar, record, strlen(record));
    free(record);
  }
  append_header(tar, name, size, '0');
  append_padded(tar, data, size);
}

void tar_finish(Buffer *tar) {
  static const unsigned char end[2 * TAR_BLOCK];
  buffer_append(tar, end, sizeof end);
}
