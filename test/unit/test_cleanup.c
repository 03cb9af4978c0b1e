// Specification of base/cleanup.c's removal list (issue 24): on failure it removes what this
// process made and nothing else: not a file that has replaced ours since, not a directory,
// device or link standing at a registered name, not the contents of a directory it did not
// make; a name it lists before a tool makes the file takes that regular file.
#include "base/base.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void make_file(const char *path) {
  if (write_file_atomic(path, "x", 1)) abort();
}

int main(void) {
  char dir[] = "/tmp/test-cleanup-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char *ours = format("%s/ours", dir), *replaced = format("%s/replaced", dir);
  char *not_a_file = format("%s/not-a-file", dir), *precious = format("%s/precious", not_a_file);
  char *link = format("%s/link", dir), *later = format("%s/later.tmp.1", dir);
  char *made = format("%s/made", dir), *inside = format("%s/inside", made);

  make_file(ours);
  remove_on_failure(ours);
  make_file(replaced);
  remove_on_failure(replaced);
  make_file(replaced); // another file now stands there: not ours to remove
  mkdir(not_a_file, 0777);
  make_file(precious);
  remove_on_failure(not_a_file); // a directory: never listed as a file
  symlink(ours, link);
  remove_on_failure(link); // a link: never listed
  remove_on_failure(later); // a name of ours; a tool makes the file afterwards
  make_file(later);
  own_mkdir(made, 0777);
  remove_dir_on_failure(made);
  make_file(inside);

  remove_failure_paths();
  check(access(ours, F_OK) != 0, "a file we made is removed");
  check(access(replaced, F_OK) == 0, "a file that replaced ours since is kept");
  check(access(precious, F_OK) == 0, "a directory at a file's name keeps its files");
  struct stat st;
  check(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "a link at a listed name is kept");
  check(access(later, F_OK) != 0, "a file a tool made at a name of ours is removed");
  check(access(made, F_OK) != 0, "a directory we made goes with its files");

  unlink(replaced);
  unlink(precious);
  rmdir(not_a_file);
  unlink(link);
  rmdir(dir);
  free(ours);
  free(replaced);
  free(not_a_file);
  free(precious);
  free(link);
  free(later);
  free(made);
  free(inside);
  return checks_result();
}
