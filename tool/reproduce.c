// --reproduce=FILE.tar, as lld has it: the link's inputs and device libraries in one tar with
// a response file of the command line rewritten to the archived paths, so that
// `tar xf FILE.tar && cd FILE && sycl-thinlto link @response.txt` links the same again.
// It only writes the archive; which arguments are files is the link's parser's to say.
#include "tool/tool.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

// The archive's top folder: FILE.tar's name without the directory and ".tar" (lld's).
static char *root_name(const char *tar_path) {
  const char *slash = strrchr(tar_path, '/');
  const char *name = slash ? slash + 1 : tar_path;
  size_t len = strlen(name);
  if (len > 4 && !strcmp(name + len - 4, ".tar")) len -= 4;
  return len ? xstrndup(name, len) : xstrdup("reproduce");
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
const char *reproducer_file(Reproducer *r, const char *path) {
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
  char *member = format("%s/%s", r->root, name);
  tar_add(&r->tar, member, bytes.data, bytes.size);
  free(member);
  free(bytes.data);
  char *copy = xstrdup(name);
  strmap_put(&r->files, name, copy);
  strlist_push(&r->names, copy); // owns it
  return copy;
}

void reproducer_write(Reproducer *r) {
  char *member = format("%s/response.txt", r->root);
  tar_add(&r->tar, member, r->response.data, r->response.size);
  free(member);
  char *version = format("sycl-thinlto %s\n", SYCL_THINLTO_VERSION);
  member = format("%s/version.txt", r->root);
  tar_add(&r->tar, member, version, strlen(version));
  free(member);
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
