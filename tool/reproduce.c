// --reproduce=FILE.tar, as lld has it: the link's inputs and device libraries in one tar with
// a response file of the command line rewritten to the archived paths, so that
// `tar xf FILE.tar && cd FILE && sycl-thinlto link @response.txt` links the same again.
// It only writes the archive; which arguments are files is the link's parser's to say.
#include "tool/tool.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// The archive's top folder: FILE.tar's name without the directory and ".tar" (lld's), made a
// plain name: no leading dots (".." and "." came from "..tar" and "...tar": `tar xf` wrote
// into the folder above, or without a top folder), no control characters, never empty.
static char *root_name(const char *tar_path) {
  const char *slash = strrchr(tar_path, '/');
  const char *name = slash ? slash + 1 : tar_path;
  size_t len = strlen(name);
  if (len >= 4 && !strcmp(name + len - 4, ".tar")) len -= 4;
  while (len && *name == '.')
    name++, len--;
  char *root = len ? xstrndup(name, len) : xstrdup("reproduce");
  for (char *c = root; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '_';
  return root;
}

// A member name stays inside the top folder: relative, no "." or ".." component.
static bool inside_root(const char *name) {
  if (name[0] == '/') return false;
  for (const char *c = name; *c;) {
    size_t n = strcspn(c, "/");
    if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) return false;
    c += n + (c[n] == '/');
  }
  return true;
}

static void add_member(Reproducer *r, const char *name, const void *data, size_t size) {
  char *member = format("%s/%s", r->root, name);
  if (!inside_root(member)) die("--reproduce: member '%s' outside the archive's folder", member);
  tar_add(&r->tar, member, data, size);
  free(member);
}

// What a file that is not a regular file is, for the error naming it.
static const char *file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

void reproducer_begin(Reproducer *r, const char *tar_path) {
  *r = (Reproducer){.path = tar_path, .root = root_name(tar_path)};
}

// One argument a line, as expand_response_files reads it back.
void reproducer_arg(Reproducer *r, const char *arg) {
  append_response_arg(&r->response, arg);
}

// A file at its absolute path under the top folder (lld's layout): the name the response
// file uses, relative to that folder. A file that cannot be read is named as given: the
// replay then fails as the link does.
// A pipe (`<(cat x.o)`, /dev/stdin from a pipe) or a device is refused, naming it: its bytes
// read here would be gone for the link, and its name means nothing to the replay (it was left
// out of the archive, exit 0, and the replay failed).
const char *reproducer_file(Reproducer *r, const char *path) {
  struct stat st;
  if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
    error(path,
          "--reproduce: not a regular file (%s): it cannot be both archived and linked; give "
          "the link a regular file",
          file_kind(st.st_mode));
    return path;
  }
  char real[PATH_MAX];
  if (!realpath(path, real)) return path;
  const char *name = real + 1; // relative to the top folder
  const char *known = strmap_get(&r->files, name);
  if (known) return known;
  Buffer bytes = {0};
  int rc = read_file(real, &bytes);
  if (rc) {
    warning(path, "--reproduce: cannot read it: %s", strerror(-rc));
    return path;
  }
  add_member(r, name, bytes.data, bytes.size);
  free(bytes.data);
  char *copy = xstrdup(name);
  strmap_put(&r->files, name, copy);
  strlist_push(&r->names, copy); // owns it
  return copy;
}

void reproducer_write(Reproducer *r) {
  exit_on_errors(); // inputs that cannot be archived: no archive, no link
  add_member(r, "response.txt", r->response.data, r->response.size);
  char *version = format("sycl-thinlto %s\n", SYCL_THINLTO_VERSION);
  add_member(r, "version.txt", version, strlen(version));
  free(version);
  tar_finish(&r->tar);
  int rc = write_file_atomic(r->path, r->tar.data, r->tar.size);
  if (rc) fatal(r->path, "--reproduce: cannot write the archive: %s", strerror(-rc));
  note("--reproduce: wrote %s (%zu file(s))", r->path, r->names.count);
  free(r->tar.data);
  free(r->response.data);
  strmap_free(&r->files);
  strlist_free(&r->names);
  free(r->root);
}
