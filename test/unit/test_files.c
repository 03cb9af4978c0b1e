// Specification of util.c's file buffers: read_file and map_file give the same bytes, a
// mapping survives its file's name and buffer_drop_pages, and what cannot be mapped (an
// empty file, a directory, a missing path) is a negative errno with nothing allocated. And
// descriptor_table_init: the process's descriptor table grown, no descriptor left open.
#include "base/base.h"

#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// The size of this process's descriptor table ("FDSize:" of /proc/self/status), or -1.
static long descriptor_table_size(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long size = -1;
  while (size < 0 && fgets(line, sizeof line, f))
    if (!strncmp(line, "FDSize:", 7)) size = strtol(line + 7, NULL, 10);
  fclose(f);
  return size;
}

// descriptor_table_init grows the table (while this test has one thread) and leaves no
// descriptor open: the next one opened is the lowest free one, as before.
static void check_descriptor_table(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) || (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 1024) ||
      descriptor_table_size() < 0) {
    printf("skip: descriptor table (RLIMIT_NOFILE under 1024, or no /proc)\n");
    return;
  }
  int before = open("/", O_RDONLY | O_CLOEXEC);
  close(before);
  descriptor_table_init();
  check(descriptor_table_size() >= 1024, "descriptor_table_init grows the table to 1024");
  int after = open("/", O_RDONLY | O_CLOEXEC);
  close(after);
  check(after == before, "and leaves no descriptor open");
  descriptor_table_init();
  check(descriptor_table_size() >= 1024, "a second call changes nothing");
}

int main(void) {
  check_descriptor_table();
  char dir[] = "/tmp/test-files-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char *path = format("%s/module.bc", dir), *empty = format("%s/empty", dir);

  // Three pages and a bit, so that dropping pages has whole pages to drop.
  enum { SIZE = 3 * 4096 + 123 };
  uint8_t *bytes = xmalloc(SIZE);
  for (size_t i = 0; i < SIZE; i++)
    bytes[i] = (uint8_t)(i * 7 + 3);
  if (write_file_atomic(path, bytes, SIZE)) abort();

  Buffer read = {0}, mapped = {0};
  check(read_file(path, &read) == 0 && read.size == SIZE && !read.mapped, "read_file reads it");
  check(map_file(path, &mapped) == 0 && mapped.size == SIZE && mapped.mapped, "map_file maps it");
  check(!memcmp(read.data, bytes, SIZE) && !memcmp(mapped.data, bytes, SIZE),
        "both hold the file's bytes");

  unlink(path);
  check(!memcmp(mapped.data, bytes, SIZE), "the mapping outlives the file's name");
  buffer_drop_pages(&mapped);
  check(!memcmp(mapped.data, bytes, SIZE), "after its pages are dropped it reads the same");
  buffer_drop_pages(&read); // nothing to do for a malloc'd buffer
  check(!memcmp(read.data, bytes, SIZE), "dropping a malloc'd buffer's pages keeps it");

  buffer_free(&mapped);
  buffer_free(&read);
  check(!mapped.data && !mapped.size && !read.data && !read.size, "buffer_free empties both");

  if (write_file_atomic(empty, "", 0)) abort();
  Buffer none = {0};
  check(map_file(empty, &none) == -EINVAL && !none.data, "an empty file is not mapped");
  check(map_file(dir, &none) == -EINVAL && !none.data, "a directory is not mapped");
  check(map_file(path, &none) == -ENOENT && !none.data, "a missing file is ENOENT");

  // Relative to an open folder: its fstat given, never through a link.
  if (write_file_atomic(path, bytes, SIZE)) abort();
  char *link_path = format("%s/link.bc", dir);
  if (symlink("module.bc", link_path)) abort();
  int folder = open(dir, O_RDONLY | O_DIRECTORY);
  struct stat st, seen;
  check(map_file_at(folder, "module.bc", &st, &mapped) == 0 && mapped.mapped &&
            mapped.size == SIZE && !memcmp(mapped.data, bytes, SIZE),
        "map_file_at maps a file of the folder");
  check(stat(path, &seen) == 0 && st.st_ino == seen.st_ino && st.st_size == SIZE,
        "and gives its fstat");
  buffer_free(&mapped);
  // A file last read before its last change (a hard link made since): mapped, its access
  // time stays (relatime would have written it).
  struct timespec day_ago[2] = {{time(NULL) - 86400, 0}, {0, UTIME_OMIT}};
  check(utimensat(folder, "module.bc", day_ago, 0) == 0 &&
            map_file_at(folder, "module.bc", &st, &mapped) == 0 && stat(path, &seen) == 0 &&
            seen.st_atime == day_ago[0].tv_sec,
        "map_file_at leaves the access time as it is");
  buffer_free(&mapped);
  check(map_file_at(folder, "link.bc", &st, &none) == -ELOOP && !none.data && !st.st_mode,
        "a link is not followed");
  check(map_file_at(folder, "missing", &st, &none) == -ENOENT && !st.st_mode && !st.st_ino,
        "a missing file is ENOENT, its fstat all zero");
  check(map_file_at(folder, "empty", &st, &none) == -EINVAL && st.st_mode, "nor an empty one");
  close(folder);
  unlink(link_path);
  unlink(path);
  free(link_path);

  unlink(empty);
  rmdir(dir);
  free(path);
  free(empty);
  free(bytes);
  return checks_result();
}
