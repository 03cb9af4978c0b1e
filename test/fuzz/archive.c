// Fuzz target: the archive reader (formats/archive.c) on any bytes. Every member it returns lies
// inside them and has a name.
#include "formats/formats.h"
#include "inside.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ArchiveMember *members;
  size_t count;
  char *errmsg;
  if (!is_archive(data, size)) return 0;
  if (archive_parse(data, size, &members, &count, &errmsg)) {
    free(errmsg);
    return 0;
  }
  for (size_t i = 0; i < count; i++) {
    const ArchiveMember *m = &members[i];
    if (!m->name || !inside(m->data, m->size, data, size)) abort();
    free(m->name);
  }
  free(members);
  return 0;
}
