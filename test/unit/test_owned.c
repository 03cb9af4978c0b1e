// Specification of base/owned.c, the one owner of the file system (issue 30): it creates
// exclusively, never writes through a link, names temporaries unguessably, and removes or
// empties only what this run made.
#include "base/base.h"

#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void make_victim(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) abort();
  fputs("precious", f);
  fclose(f);
}

static bool victim_intact(const char *path) {
  Buffer b;
  bool ok = read_file(path, &b) == 0 && b.size == 8 && !memcmp(b.data, "precious", 8);
  if (ok) free(b.data);
  return ok;
}

static bool is_link(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

int main(void) {
  char root[] = "/tmp/test-owned-XXXXXX";
  if (!mkdtemp(root)) return 1;
  char *victim = format("%s/victim", root), *link = format("%s/link", root);
  char *dangling = format("%s/dangling", root);
  make_victim(victim);
  symlink(victim, link);
  symlink(format("%s/nowhere", root), dangling);

  // Exclusive creation: nothing standing at a name is opened, a link least of all.
  check(own_create(link, 0666) == -EEXIST, "own_create refuses a link to a file");
  check(own_create(dangling, 0666) == -EEXIST, "own_create refuses a dangling link");
  check(own_create(victim, 0666) == -EEXIST, "own_create refuses an existing file");
  check(victim_intact(victim), "the link's target is untouched");
  check(own_open_in_place(link) == -EEXIST, "a regular file is never written in place");
  check(victim_intact(victim), "... nor truncated");

  // Temporaries: random, distinct, beside their file.
  char *out = format("%s/out", root), *t1, *t2;
  int f1 = own_create_temporary(out, &t1), f2 = own_create_temporary(out, &t2);
  check(f1 >= 0 && f2 >= 0 && strcmp(t1, t2), "two temporaries of one path differ");
  char *pattern = format("%s.tmp.%s.%ld.", out, host_name(), (long)getpid());
  check(!strncmp(t1, pattern, strlen(pattern)) && strlen(t1) > strlen(pattern) + 8,
        "a temporary is PATH.tmp.HOST.PID.RANDOM");
  close(f1);
  close(f2);

  // The final rename replaces a link at the output, never writes through it.
  symlink(victim, out);
  check(own_rename(t1, out, false) == 0, "a temporary is renamed onto a link");
  check(!is_link(out) && victim_intact(victim), "the link is replaced, its target untouched");
  check(own_rename(victim, out, false) == -EPERM, "a file this run did not make is not renamed");
  check(write_file_atomic(link, "new", 3) == 0 && !is_link(link) && victim_intact(victim),
        "write_file_atomic onto a link replaces the link");

  // Removing: only what is still what this run made.
  check(own_remove(victim) == -EPERM && victim_intact(victim), "a foreign file is not removed");
  check(own_remove(t2) == 0 && access(t2, F_OK) != 0, "a temporary of ours is removed");
  char *swapped = format("%s/swapped", root);
  char *other = format("%s/other", root);
  close(own_create(swapped, 0666));
  make_victim(other);
  rename(other, swapped); // another file at our name since
  check(own_remove(swapped) == -EPERM && victim_intact(swapped), "a file that replaced ours stays");

  // Folders: made exclusively, emptied only of what this run made in them.
  check(own_mkdir(link, 0777) == -EEXIST, "own_mkdir refuses a link");
  int error = 0;
  char *prefix = format("%s/jobs.", root);
  char *d1 = own_make_dir(prefix, 0700, false, &error);
  char *d2 = own_make_dir(prefix, 0700, false, &error);
  check(d1 && d2 && strcmp(d1, d2), "own_make_dir names two folders differently");
  char *ours = format("%s/ours", d1), *planted = format("%s/planted", d1);
  char *by_tool = format("%s/image.3.spv", d1), *expected = format("%s/image.*", d1);
  check(write_file_atomic(ours, "x", 1) == 0, "a file is written in a folder of ours");
  own_expect(expected);
  make_victim(by_tool); // a job made it at an expected name
  make_victim(planted); // not ours
  check(own_empty_dir(d1) == -ENOTEMPTY, "a folder with a file not ours is not removed");
  check(access(ours, F_OK) != 0 && access(by_tool, F_OK) != 0, "what this run made is removed");
  check(victim_intact(planted), "what it did not make stays");
  check(own_empty_dir(d2) == 0 && access(d2, F_OK) != 0, "an empty folder of ours is removed");
  check(own_empty_dir(root) == -EPERM, "a folder this run did not make is never emptied");

  // On failure: the same, for remove_dir_on_failure.
  char *d3 = own_make_dir(prefix, 0700, false, &error), *inside = format("%s/made", d3);
  check(write_file_atomic(inside, "x", 1) == 0, "a file is written in a third folder");
  remove_dir_on_failure(d3);
  remove_failure_paths();
  check(access(d3, F_OK) != 0, "a failure removes a folder of ours with what we made in it");
  char *d6 = own_make_dir(prefix, 0700, true, &error), *inside6 = format("%s/made", d6);
  check(write_file_atomic(inside6, "x", 1) == 0, "a file is written in a folder made to go");
  remove_failure_paths();
  check(access(d6, F_OK) != 0, "a folder made to go on a failure goes with what we made in it");
  free(d6);
  free(inside6);

  // A folder handed over to the tools it runs goes whole: FIFOs (never opened, or this would
  // hang), folders at any depth, links (removed, never followed).
  char *d4 = own_make_dir(prefix, 0700, false, &error);
  char *fifo = format("%s/fifo", d4), *sub = format("%s/sub", d4);
  char *deep = format("%s/deep", sub), *deep_fifo = format("%s/deep/fifo", sub);
  char *file_link = format("%s/victim-link", sub), *dir_link = format("%s/root-link", d4);
  check(mkfifo(fifo, 0600) == 0 && mkdir(sub, 0700) == 0 && mkdir(deep, 0700) == 0 &&
            mkfifo(deep_fifo, 0600) == 0 && symlink(victim, file_link) == 0 &&
            symlink(root, dir_link) == 0,
        "a tool leaves FIFOs, folders and links in a folder of ours");
  check(own_empty_dir(d4) == -ENOTEMPTY && access(fifo, F_OK) == 0,
        "what the tools made stays in a folder not handed over");
  check(own_hand_over_dir(d4) == 0, "a folder of ours is handed over");
  check(own_empty_dir(d4) == 0 && access(d4, F_OK) != 0, "a folder handed over goes whole");
  check(victim_intact(victim) && access(root, F_OK) == 0 && access(d1, F_OK) == 0,
        "what its links pointed to stays");
  check(own_hand_over_dir(root) == -EPERM, "a folder this run did not make is not handed over");
  char *d5 = own_make_dir(prefix, 0700, false, &error), *fifo5 = format("%s/fifo", d5);
  check(mkfifo(fifo5, 0600) == 0 && own_hand_over_dir(d5) == 0, "a second folder handed over");
  remove_dir_on_failure(d5);
  remove_failure_paths();
  check(access(d5, F_OK) != 0, "a failure removes a folder handed over, its FIFO too");

  // By a folder's descriptor (the cache's way).
  int dir = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  check(own_create_at(dir, "link", 0666) == -EEXIST, "own_create_at refuses a link");
  int fd = own_create_at(dir, "at.tmp", 0666);
  check(fd >= 0, "own_create_at makes a new file");
  close(fd);
  check(own_rename_at(dir, "at.tmp", dir, "link") == 0 && !is_link(link) &&
            victim_intact(victim),
        "own_rename_at replaces a link, its target untouched");
  check(own_remove_at(dir, "link", NULL) == 0 && access(link, F_OK) != 0,
        "own_remove_at removes a regular file");
  check(symlink(victim, link) == 0 && own_remove_at(dir, "link", NULL) == 0 && !is_link(link) &&
            victim_intact(victim),
        "own_remove_at removes a link, its target untouched");
  check(mkdir(link, 0700) == 0 && own_remove_at(dir, "link", NULL) == -EPERM &&
            rmdir(link) == 0,
        "own_remove_at keeps a folder");
  struct stat seen;
  lstat(victim, &seen);
  check(own_remove_at(dir, "swapped", &seen) == -EPERM && victim_intact(swapped),
        "own_remove_at keeps what is not what was seen");
  check(own_remove_at(dir, "victim", &seen) == 0 && access(victim, F_OK) != 0,
        "own_remove_at removes what was seen");
  close(dir);

  unlink(planted);
  rmdir(d1);
  return checks_result();
}
