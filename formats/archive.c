// Static archives: the members of a GNU or BSD `ar` file, with their names resolved, and the
// member names of a thin one. It does not look inside the members (input.c does).
#include "formats/formats.h"

#include <stdlib.h>
#include <string.h>

static const char archive_magic[] = "!<arch>\n";
static const char thin_archive_magic[] = "!<thin>\n";
enum { MAGIC_SIZE = sizeof archive_magic - 1 };

// A member header: name[16] date[12] uid[6] gid[6] mode[8] size[10] "`\n".
enum { MEMBER_HEADER_SIZE = 60, NAME_FIELD = 16, SIZE_FIELD_AT = 48, SIZE_FIELD = 10 };

// Thin archives are recognized so that archive_parse can say they are not supported.
bool is_archive(const uint8_t *data, size_t size) {
  return size >= MAGIC_SIZE && (!memcmp(data, archive_magic, MAGIC_SIZE) ||
                                !memcmp(data, thin_archive_magic, MAGIC_SIZE));
}

// Parses a decimal field padded with spaces; false if it holds anything else.
static bool parse_decimal_field(const uint8_t *field, size_t width, uint64_t *value) {
  size_t i = 0;
  uint64_t v = 0;
  bool any = false;
  for (; i < width && field[i] >= '0' && field[i] <= '9'; i++, any = true) {
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + (field[i] - '0');
  }
  for (; i < width; i++)
    if (field[i] != ' ') return false;
  *value = v;
  return any;
}

// The name field without its space padding.
static size_t name_field_length(const uint8_t *name) {
  size_t n = NAME_FIELD;
  while (n > 0 && name[n - 1] == ' ')
    n--;
  return n;
}

static bool name_is(const uint8_t *name, size_t n, const char *s) {
  return n == strlen(s) && !memcmp(name, s, n);
}

// Looks up "/OFFSET" in the GNU long-name table, where names end in "/\n".
static char *long_name(const uint8_t *table, size_t table_size, const uint8_t *field, size_t n,
                       char **errmsg, size_t at) {
  uint64_t offset;
  if (!parse_decimal_field(field + 1, n - 1, &offset)) {
    *errmsg = format("archive member at offset %zu: bad member name '%.*s'", at, (int)n,
                     (const char *)field);
    return NULL;
  }
  if (!table) {
    *errmsg = format("archive member at offset %zu: name '%.*s' but no long-name table", at, (int)n,
                     (const char *)field);
    return NULL;
  }
  if (offset >= table_size) {
    *errmsg = format("archive member at offset %zu: long name offset %llu out of range", at,
                     (unsigned long long)offset);
    return NULL;
  }
  // GNU names end in "/\n" (LLVM's reader requires it too): without it, the table is damaged.
  const uint8_t *start = table + offset;
  const uint8_t *end = memchr(start, '\n', table_size - offset);
  if (!end || end == start || end[-1] != '/') {
    *errmsg = format("archive member at offset %zu: long name at offset %llu not terminated by "
                     "\"/\\n\"",
                     at, (unsigned long long)offset);
    return NULL;
  }
  return xstrndup((const char *)start, (size_t)(end - 1 - start));
}

// Checks the member header at `at` (its length, its "`\n" end, its size field) for both kinds of
// archive, and gives the member's size.
static bool read_member_header(const uint8_t *data, size_t size, size_t at, uint64_t *member_size,
                               char **errmsg) {
  if (size - at < MEMBER_HEADER_SIZE) {
    *errmsg = format("archive member at offset %zu: truncated header (%zu bytes, need %d)", at,
                     size - at, MEMBER_HEADER_SIZE);
    return false;
  }
  const uint8_t *header = data + at;
  if (header[58] != '`' || header[59] != '\n') {
    *errmsg = format("archive member at offset %zu: bad header (no terminating \"`\\n\")", at);
    return false;
  }
  if (!parse_decimal_field(header + SIZE_FIELD_AT, SIZE_FIELD, member_size)) {
    *errmsg = format("archive member at offset %zu: bad size field '%.10s'", at,
                     (const char *)header + SIZE_FIELD_AT);
    return false;
  }
  return true;
}

static void free_members(ArchiveMember *members, size_t count) {
  for (size_t i = 0; i < count; i++)
    free(members[i].name);
  free(members);
}

int archive_parse(const uint8_t *data, size_t size, ArchiveMember **members, size_t *count,
                  char **errmsg) {
  if (size >= MAGIC_SIZE && !memcmp(data, thin_archive_magic, MAGIC_SIZE)) {
    *errmsg = format("thin archives are not supported; make a regular one with 'llvm-ar rcs'");
    return -1;
  }
  if (size < MAGIC_SIZE || memcmp(data, archive_magic, MAGIC_SIZE)) {
    *errmsg = format("not an archive (bad magic)");
    return -1;
  }

  ArchiveMember *list = NULL;
  size_t n = 0, cap = 0;
  const uint8_t *long_names = NULL;
  size_t long_names_size = 0;

  size_t at = MAGIC_SIZE;
  while (at < size) {
    uint64_t member_size;
    if (!read_member_header(data, size, at, &member_size, errmsg)) goto fail;
    const uint8_t *header = data + at;
    size_t data_at = at + MEMBER_HEADER_SIZE;
    if (member_size > size - data_at) {
      *errmsg = format("archive member at offset %zu: truncated member (size %llu, %zu bytes "
                       "left)",
                       at, (unsigned long long)member_size, size - data_at);
      goto fail;
    }
    const uint8_t *contents = data + data_at;
    size_t contents_size = member_size;
    size_t name_length = name_field_length(header);
    char *name = NULL;

    if (name_is(header, name_length, "//")) {
      long_names = contents;
      long_names_size = contents_size;
    } else if (name_length > 1 && header[0] == '/' && header[1] >= '0' && header[1] <= '9') {
      name = long_name(long_names, long_names_size, header, name_length, errmsg, at);
      if (!name) goto fail;
    } else if (header[0] == '/') {
      // "/" and "/SYM64/" are GNU symbol tables; other "/..." names are reserved too.
    } else if (name_length > 3 && !memcmp(header, "#1/", 3)) {
      // BSD: the name is the first N bytes of the data, which the size includes.
      uint64_t bsd_length;
      if (!parse_decimal_field(header + 3, NAME_FIELD - 3, &bsd_length)) {
        *errmsg = format("archive member at offset %zu: bad member name '%.*s'", at,
                         (int)name_length, (const char *)header);
        goto fail;
      }
      if (bsd_length > contents_size) {
        *errmsg = format("archive member at offset %zu: BSD name length %llu out of range (member "
                         "size %zu)",
                         at, (unsigned long long)bsd_length, contents_size);
        goto fail;
      }
      size_t len = strnlen((const char *)contents, bsd_length);
      name = xstrndup((const char *)contents, len);
      contents += bsd_length;
      contents_size -= bsd_length;
      if (!strncmp(name, "__.SYMDEF", 9)) {
        free(name);
        name = NULL;
      }
    } else if (name_is(header, name_length, "__.SYMDEF") ||
               name_is(header, name_length, "__.SYMDEF SORTED")) {
      // BSD symbol tables with short names.
    } else {
      if (name_length > 0 && header[name_length - 1] == '/') name_length--;
      name = xstrndup((const char *)header, name_length);
    }

    if (name) {
      if (n == cap) {
        cap = cap ? cap * 2 : 8;
        list = xrealloc(list, cap * sizeof *list);
      }
      list[n++] = (ArchiveMember){.name = name, .data = contents, .size = contents_size};
    }
    at = data_at + member_size;
    at += at % 2; // members start on even offsets
  }
  *members = list;
  *count = n;
  return 0;

fail:
  free_members(list, n);
  return -1;
}

int thin_archive_members(const uint8_t *data, size_t size, StringList *names, char **errmsg) {
  if (size < MAGIC_SIZE || memcmp(data, thin_archive_magic, MAGIC_SIZE)) {
    *errmsg = format("not a thin archive (bad magic)");
    return -1;
  }
  const uint8_t *long_names = NULL;
  size_t long_names_size = 0;
  size_t at = MAGIC_SIZE;
  while (at < size) {
    uint64_t member_size;
    if (!read_member_header(data, size, at, &member_size, errmsg)) return -1;
    const uint8_t *header = data + at;
    size_t data_at = at + MEMBER_HEADER_SIZE, name_length = name_field_length(header);
    // The symbol tables and the long-name table are stored; a member's data is in its file.
    bool stored = header[0] == '/' && (name_length == 1 || name_is(header, name_length, "//") ||
                                       name_is(header, name_length, "/SYM64/"));
    if (stored && member_size > size - data_at) {
      *errmsg = format("archive member at offset %zu: truncated table (size %llu, %zu bytes left)",
                       at, (unsigned long long)member_size, size - data_at);
      return -1;
    }
    char *name = NULL;
    if (name_is(header, name_length, "//")) {
      long_names = data + data_at;
      long_names_size = member_size;
    } else if (name_length > 1 && header[0] == '/' && header[1] >= '0' && header[1] <= '9') {
      if (!(name = long_name(long_names, long_names_size, header, name_length, errmsg, at)))
        return -1;
    } else if (!stored) {
      if (name_length > 0 && header[name_length - 1] == '/') name_length--;
      name = xstrndup((const char *)header, name_length);
    }
    if (name) strlist_push(names, name);
    at = data_at + (stored ? member_size + member_size % 2 : 0);
  }
  return 0;
}
