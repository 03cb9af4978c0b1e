// Specification of formats/archive.c: members of GNU and BSD archives with their names resolved;
// symbol tables skipped; truncated or malformed archives refused with a clear message.
#include "formats/formats.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Appends a member: a 60-byte header (name padded to 16, size in decimal), the data, and the
// '\n' that pads odd sizes to 2 bytes.
static void add_member(Buffer *ar, const char *name, const void *data, size_t size) {
  char header[61];
  snprintf(header, sizeof header, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "644",
           size);
  buffer_append(ar, header, 60);
  buffer_append(ar, data, size);
  if (size % 2) buffer_append(ar, "\n", 1);
}

static void check_refused(const Buffer *ar, const char *expected, const char *what) {
  ArchiveMember *members = NULL;
  size_t count = 0;
  char *errmsg = NULL;
  int rc = archive_parse(ar->data, ar->size, &members, &count, &errmsg);
  bool ok = rc == -1 && errmsg && strstr(errmsg, expected);
  check(ok, what);
  if (!ok) printf("      expected '%s', got rc %d and '%s'\n", expected, rc, errmsg ? errmsg : "");
  free(errmsg);
}

int main(void) {
  // A GNU archive as llvm-ar writes it: symbol table, long-name table, then the members.
  Buffer ar = {0};
  buffer_append(&ar, "!<arch>\n", 8);
  add_member(&ar, "/", "\0\0\0\0", 4);
  const char long_names[] = "a_rather_long_member_name.o/\nsecond_long_member_name.o/\n";
  add_member(&ar, "//", long_names, sizeof long_names - 1);
  add_member(&ar, "short.o/", "odd", 3);
  add_member(&ar, "/29", "second", 6);
  add_member(&ar, "/0", "first!", 6);
  add_member(&ar, "/SYM64/", "\0\0\0\0\0\0\0\0", 8);
  add_member(&ar, "#1/12", "bsd_name.o\0\0bsd", 15); // BSD: the name is in the data

  check(is_archive(ar.data, ar.size), "is_archive sees !<arch>");
  check(is_archive((const uint8_t *)"!<thin>\n", 8), "is_archive sees thin archives too");
  check(!is_archive((const uint8_t *)"!<arch", 6), "a prefix of the magic is no archive");

  ArchiveMember *members = NULL;
  size_t count = 0;
  char *errmsg = NULL;
  int rc = archive_parse(ar.data, ar.size, &members, &count, &errmsg);
  check(rc == 0 && count == 4, "four regular members; symbol and name tables skipped");
  if (rc == 0 && count == 4) {
    check(!strcmp(members[0].name, "short.o"), "a short name loses its trailing '/'");
    check(members[0].size == 3 && !memcmp(members[0].data, "odd", 3), "short.o's data");
    check(!strcmp(members[1].name, "second_long_member_name.o"), "/29 names the second long name");
    check(members[1].size == 6 && !memcmp(members[1].data, "second", 6),
          "data after an odd-sized member starts on an even offset");
    check(!strcmp(members[2].name, "a_rather_long_member_name.o"), "/0 names the first long name");
    check(!strcmp(members[3].name, "bsd_name.o"), "BSD #1/N names are read from the data");
    check(members[3].size == 3 && !memcmp(members[3].data, "bsd", 3),
          "a BSD member's data follows its name");
    for (size_t i = 0; i < count; i++)
      free(members[i].name);
    free(members);
  }

  Buffer empty = {.data = (uint8_t *)"!<arch>\n", .size = 8};
  rc = archive_parse(empty.data, empty.size, &members, &count, &errmsg);
  check(rc == 0 && count == 0, "an empty archive has no members");
  if (rc == 0) free(members);

  Buffer cut = {.data = ar.data, .size = ar.size - 2};
  check_refused(&cut, "truncated member", "a member cut short is refused");
  cut.size = 8 + 30;
  check_refused(&cut, "archive member at offset 8: truncated header", "a header cut short");

  Buffer bad = {.data = xmalloc(ar.size), .size = ar.size};
  memcpy(bad.data, ar.data, ar.size);
  memcpy(bad.data + 8 + 48, "12x       ", 10);
  check_refused(&bad, "bad size field", "a size field that is no number is refused");
  memcpy(bad.data, ar.data, ar.size);
  bad.data[8 + 58] = '!';
  check_refused(&bad, "archive member at offset 8: bad header", "a header without \"`\\n\"");
  free(bad.data);

  Buffer no_table = {0};
  buffer_append(&no_table, "!<arch>\n", 8);
  add_member(&no_table, "/0", "x", 1);
  check_refused(&no_table, "no long-name table", "/N without a long-name table is refused");
  free(no_table.data);

  Buffer out_of_range = {0};
  buffer_append(&out_of_range, "!<arch>\n", 8);
  add_member(&out_of_range, "//", "a.o/\n", 5);
  add_member(&out_of_range, "/99", "x", 1);
  check_refused(&out_of_range, "long name offset 99 out of range", "/N past the table");
  free(out_of_range.data);

  Buffer thin = {.data = (uint8_t *)"!<thin>\n", .size = 8};
  check_refused(&thin, "thin archives are not supported", "thin archives are refused");

  // A thin archive: the symbol and long-name tables are stored, its members' data is not
  // (a header whose size is its file's); names short, long, or paths.
  Buffer t = {0};
  buffer_append(&t, "!<thin>\n", 8);
  add_member(&t, "/", "\0\0\0\0", 4);
  add_member(&t, "//", "sub/a_long_member_name.o/\n", 26);
  add_member(&t, "/0", "", 0);
  memcpy(t.data + t.size - 60 + 48, "1234      ", 10); // its file's size, no data here
  add_member(&t, "b.o/", "", 0);
  StringList names = {0};
  rc = thin_archive_members(t.data, t.size, &names, &errmsg);
  check(rc == 0 && names.count == 2, "a thin archive's two members, tables skipped");
  if (rc == 0 && names.count == 2) {
    check(!strcmp(names.items[0], "sub/a_long_member_name.o"), "/0: the long name, a path");
    check(!strcmp(names.items[1], "b.o"), "a short name loses its trailing '/'");
  }
  strlist_free(&names);
  memcpy(t.data + 8 + 48, "4x        ", 10);
  rc = thin_archive_members(t.data, t.size, &names, &errmsg);
  check(rc == -1 && errmsg && strstr(errmsg, "archive member at offset 8: bad size field"),
        "a thin archive's size field that is no number is refused (strtoull read it as 4)");
  free(errmsg);
  errmsg = NULL;
  strlist_free(&names);
  rc = thin_archive_members(ar.data, ar.size, &names, &errmsg);
  check(rc == -1 && errmsg && strstr(errmsg, "not a thin archive"), "a regular one is not thin");
  free(errmsg);
  free(t.data);

  free(ar.data);
  return checks_result();
}
