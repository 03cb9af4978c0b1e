// ld's command line as the wrapper reads it for device code: which inputs are objects,
// archives, thin archives, -l libraries (found as ld finds them under -L, -Bstatic and the
// rest), linker scripts, host bitcode; and which of them hold device code. It runs no step.
#include "tool/linker_wrapper_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

//
// Which of the host link's inputs hold device code
//

static bool is_relocatable_elf(const uint8_t *data, size_t size) {
  return size >= 18 && !memcmp(data, "\177ELF", 4) && data[16] == 1 && data[17] == 0; // ET_REL
}

// A damaged object is reported here, naming it: the host linker might not look at the
// .llvm.offloading section at all, and the device code in it would silently be lost.
// An image of another offload kind (OpenMP, CUDA, HIP), or a SYCL image for a target other
// than spir64/spirv64 (spirv32, spir, nvptx64, amdgcn), is an error here: the device link
// takes those SYCL images only and skips the others (with a note under -v), and no other link
// of this program would take them: their code would be lost, exit 0.
static void refuse_other_offload_kinds(const char *origin, const uint8_t *data, size_t size) {
  OffloadEntry *entries;
  size_t count;
  char *why;
  if (offload_binary_parse(data, size, &entries, &count, &why)) {
    free(why); // the device link reports it, naming the image
    return;
  }
  for (size_t i = 0; i < count; i++)
    if (entries[i].offload_kind != OFK_SYCL)
      error(origin, "%s image of offload kind %s (%u) for '%s': the linker-wrapper mode links "
            "SYCL images only, and no other link would take it",
            image_kind_name(entries[i].image_kind), offload_kind_name(entries[i].offload_kind),
            entries[i].offload_kind, offload_entry_get(&entries[i], "triple") ?: "");
    else if (offload_entry_get(&entries[i], "triple") &&
             !is_spirv_triple(offload_entry_get(&entries[i], "triple")))
      error(origin, "SYCL %s image for '%s': the linker-wrapper mode links spir64 and spirv64 "
            "images only (a 32-bit or non-SPIR-V target's code cannot join them), and no other "
            "link would take it",
            image_kind_name(entries[i].image_kind), offload_entry_get(&entries[i], "triple"));
  for (size_t i = 0; i < count; i++)
    free(entries[i].strings); // the texts point into DATA
  free(entries);
}

static bool object_has_device_code(const char *origin, const uint8_t *data, size_t size) {
  if (is_syclbin(data, size)) { // intel's --syclbin=executable a.syclbin b.syclbin links them
    error(origin, "a SYCLBIN file: %s", SYCLBIN_LINK_REFUSED);
    return false;
  }
  if (is_offload_binary(data, size)) {
    refuse_other_offload_kinds(origin, data, size);
    return true;
  }
  if (!is_relocatable_elf(data, size)) return false;
  SectionBytes *sections;
  size_t count;
  char *why;
  reading_input_begin(origin, "object");
  int unreadable = elf_offloading_sections(data, size, &sections, &count, &why);
  reading_input_end();
  if (unreadable) {
    error(origin, "%s", why);
    free(why);
    return false;
  }
  for (size_t i = 0; i < count; i++)
    refuse_other_offload_kinds(origin, sections[i].data, sections[i].size);
  free(sections);
  return count > 0;
}

void show_as(WrapperRun *run, const char *path, const char *name) {
  strmap_put(&run->shown_names, path, xstrdup(name));
  strlist_push(&run->shown_paths, xstrdup(path));
}

void show_names(const WrapperRun *run, Buffer *text) {
  for (size_t k = 0; k < run->shown_paths.count; k++) {
    const char *path = run->shown_paths.items[k], *name = strmap_get(&run->shown_names, path);
    size_t plen = strlen(path), nlen = strlen(name);
    Buffer out = {0};
    const char *p = (const char *)text->data, *end = p + text->size;
    while (p < end) {
      const char *hit = memmem(p, (size_t)(end - p), path, plen);
      if (!hit) {
        buffer_append(&out, p, (size_t)(end - p));
        break;
      }
      buffer_append(&out, p, (size_t)(hit - p));
      buffer_append(&out, name, nlen);
      p = hit + plen;
    }
    free(text->data);
    *text = out;
  }
}

// The device code host bitcode ORIGIN embeds, written for the device link: its path, or NULL
// when there is none (or after error()).
static char *write_embedded_device_code(WrapperRun *run, const char *origin, const uint8_t *data,
                                        size_t size) {
  Buffer embedded = {0};
  char *why = NULL;
  if (host_bitcode_offloading(data, size, origin, &embedded, &why)) {
    error(origin, "%s", why);
    free(why);
    return NULL;
  }
  if (!embedded.size) return NULL;
  char *path = format("%smember%d.offload", run->o.temp_prefix, run->embedded_count++);
  strlist_push(&run->temps, xstrdup(path));
  int written = write_file_atomic(path, embedded.data, embedded.size);
  free(embedded.data);
  if (written) {
    error(path, "cannot write the device code of %s: %s", origin, strerror(-written));
    free(path);
    return NULL;
  }
  show_as(run, path, origin);
  return path;
}

// A thin archive (`ar rcsT`) names its members' files, relative to its own directory. The
// device link does not read thin archives; one whose members carry device code is an error
// here (it was taken for host code: its kernels dropped, exit 0).
static void check_thin_archive(const char *path, const uint8_t *data, size_t size) {
  StringList members = {0};
  char *why;
  if (thin_archive_members(data, size, &members, &why)) {
    error(path, "%s", why);
    free(why);
    return;
  }
  const char *dir_end = strrchr(path, '/');
  for (size_t i = 0; i < members.count; i++) {
    const char *name = members.items[i];
    char *member = name[0] == '/' || !dir_end
                       ? xstrdup(name)
                       : format("%.*s/%s", (int)(dir_end - path), path, name);
    Buffer file = {0};
    if (!read_file(member, &file) && object_has_device_code(member, file.data, file.size))
      error(path, "thin archive member %s holds device code, which the device link does not "
                  "read from a thin archive; make a regular one with 'llvm-ar rcs'", member);
    free(file.data);
    free(member);
  }
  strlist_free(&members);
}

static bool file_has_device_code(WrapperRun *run, const char *path, StringList *device_inputs) {
  Buffer file = {0};
  int rc = read_file(path, &file);
  if (rc == -EFBIG) error(path, "%s", read_error_text(rc)); // the host linker would read it
  if (rc) return false;                                      // the host linker says why
  bool found = false;
  if (is_archive(file.data, file.size)) {
    ArchiveMember *members;
    size_t count;
    char *why;
    if (!archive_parse(file.data, file.size, &members, &count, &why)) {
      for (size_t i = 0; i < count; i++) {
        char *origin = format("%s(%s)", path, members[i].name);
        // Host -flto: a member is host bitcode embedding its device code (ld reads the
        // member itself; the device link reads what it embeds).
        char *embedded = is_llvm_bitcode(members[i].data, members[i].size)
                             ? write_embedded_device_code(run, origin, members[i].data, members[i].size)
                             : NULL;
        if (embedded) strlist_push(device_inputs, embedded);
        found = object_has_device_code(origin, members[i].data, members[i].size) || found;
        free(origin);
        free(members[i].name);
      }
      free(members);
    } else {
      // A thin archive of host code is the host linker's; others are damaged.
      if (file.size < 8 || memcmp(file.data, "!<thin>\n", 8))
        error(path, "%s", why);
      else
        check_thin_archive(path, file.data, file.size);
      free(why);
    }
  } else {
    found = object_has_device_code(path, file.data, file.size);
  }
  free(file.data);
  return found;
}

// Host linker options whose value is the next argument (GNU ld, lld).
bool takes_separate_value(const char *a) {
  static const char *const names[] = {"-o",
                                      "-m",
                                      "-dynamic-linker",
                                      "-z",
                                      "-T",
                                      "-soname",
                                      "-h",
                                      "-rpath",
                                      "-rpath-link",
                                      "-e",
                                      "-u",
                                      "-y",
                                      "-Map",
                                      "--version-script",
                                      "-plugin",
                                      "-plugin-opt",
                                      "-L",
                                      "-l",
                                      "--library-path",
                                      "--library",
                                      "-a",
                                      "-f",
                                      "-F",
                                      "-R",
                                      "--sysroot",
                                      "-Y",
                                      NULL};
  for (const char *const *n = names; *n; n++)
    if (!strcmp(a, *n)) return true;
  return false;
}

// The value of a host linker option in any of its spellings, GNU ld's and lld's alike: -XVALUE,
// -X VALUE, --LONG=VALUE, --LONG VALUE; *i moves past a separate value. NULL: not that option.
// (The long spellings were missed: `--library=NAME` kept its archive's kernels out of the
// device link, exit 0, a program without them.)
static const char *linker_option_value(const StringList *args, size_t *i, const char *short_name,
                                       const char *long_name) {
  const char *a = args->items[*i];
  size_t n = strlen(long_name);
  if (!strncmp(a, short_name, 2)) {
    if (a[2]) return a + 2;
  } else if (!strncmp(a, long_name, n) && a[n] == '=') {
    return a + n + 1;
  } else if (strcmp(a, long_name)) {
    return NULL;
  }
  return *i + 1 < args->count ? args->items[++*i] : "";
}

// -L DIR, --library-path=DIR: a directory -l searches.
static const char *library_path_option(const StringList *args, size_t *i) {
  return linker_option_value(args, i, "-L", "--library-path");
}

// -l NAME, --library=NAME: a library to search for.
static const char *library_option(const StringList *args, size_t *i) {
  return linker_option_value(args, i, "-l", "--library");
}

// Every directory -l searches: -L applies to every -l, wherever it stands.
static void collect_library_paths(const StringList *args, StringList *dirs) {
  for (size_t i = 0; i < args->count; i++) {
    const char *d = library_path_option(args, &i);
    if (d) strlist_push(dirs, xstrdup(d));
  }
}

// A -l library as the host linker finds it: NULL for a shared library (it registers its own
// device code) or one not found (the host linker reports that).
static char *find_static_library(const StringList *dirs, const char *name, bool static_only) {
  for (size_t i = 0; i < dirs->count; i++) {
    if (name[0] == ':') {
      char *path = format("%s/%s", dirs->items[i], name + 1);
      if (access(path, R_OK) == 0) return path;
      free(path);
      continue;
    }
    char *shared = format("%s/lib%s.so", dirs->items[i], name);
    bool has_shared = !static_only && access(shared, R_OK) == 0;
    free(shared);
    if (has_shared) return NULL;
    char *archive = format("%s/lib%s.a", dirs->items[i], name);
    if (access(archive, R_OK) == 0) return archive;
    free(archive);
  }
  return NULL;
}

// Every file the host link reads, as output_rule_input's: the inputs, and the static
// libraries -l finds.
void record_host_inputs(const StringList *args) {
  StringList dirs = {0};
  collect_library_paths(args, &dirs);
  for (size_t i = 0; i < args->count; i++) {
    const char *a = args->items[i];
    const char *library = library_option(args, &i);
    if (library) {
      char *path = find_static_library(&dirs, library, true);
      if (path) output_rule_input(path);
      free(path);
    } else if (a[0] == '-') {
      i += takes_separate_value(a);
    } else {
      output_rule_input(a);
    }
  }
  strlist_free(&dirs);
}

// Whether -l finds static libraries only from here on, as the host linker tracks it: -Bstatic
// and its synonyms (-dn, -non_shared, -static), -Bdynamic and its (-dy, -call_shared), and
// --push-state/--pop-state, each with one dash or two. (-dn and -non_shared were missed: the
// wrapper took the shared library, ld the archive, whose kernels were dropped, exit 0.)
typedef struct {
  bool static_only;
  uint64_t pushed; // the states --push-state saved, a bit each (deeper ones are dropped)
  unsigned depth;
} LinkMode;

static void track_link_mode(LinkMode *m, const char *a) {
  static const char *const statics[] = {"Bstatic", "dn", "non_shared", "static", NULL};
  static const char *const dynamics[] = {"Bdynamic", "dy", "call_shared", NULL};
  if (a[0] != '-') return;
  const char *name = a + (a[1] == '-' ? 2 : 1);
  for (const char *const *n = statics; *n; n++)
    if (!strcmp(name, *n)) m->static_only = true;
  for (const char *const *n = dynamics; *n; n++)
    if (!strcmp(name, *n)) m->static_only = false;
  if (!strcmp(name, "push-state")) {
    m->pushed = m->pushed << 1 | m->static_only;
    m->depth++;
  } else if (!strcmp(name, "pop-state") && m->depth) {
    m->static_only = m->pushed & 1;
    m->pushed >>= 1;
    m->depth--;
  }
}

// A -l library whose lib<name>.so is a GNU ld script (`GROUP ( libfoo.so.1 libfoo.a )`, as
// libc's, or `INPUT(libfoo.a)`): the archives and objects it names are the host link's too
// (they were missed: taken for a shared library, their kernels dropped, exit 0). Shared
// libraries it names register their own device code; nested scripts are not followed.
static void add_linker_script_inputs(const StringList *dirs, const char *name, bool static_only,
                                     StringList *candidates) {
  if (static_only || name[0] == ':') return;
  for (size_t i = 0; i < dirs->count; i++) {
    char *script = format("%s/lib%s.so", dirs->items[i], name);
    Buffer file = {0};
    bool found = access(script, R_OK) == 0;
    if (!found || read_file(script, &file) || file.size > (1 << 20) ||
        (file.size >= 4 && !memcmp(file.data, "\x7f" "ELF", 4)) ||
        memchr(file.data, 0, file.size)) {
      free(file.data);
      free(script);
      if (found) return;
      continue;
    }
    char *text = xstrndup((const char *)file.data, file.size);
    free(file.data);
    for (char *c = strstr(text, "/*"); c; c = strstr(c, "/*")) { // comments
      char *end = strstr(c + 2, "*/");
      memset(c, ' ', end ? (size_t)(end + 2 - c) : strlen(c));
    }
    for (char *c = text; *c; c++)
      if (*c == '(' || *c == ')' || *c == ',') *c = ' ';
    char *save = NULL;
    for (char *t = strtok_r(text, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
      char *path = NULL;
      if (!strncmp(t, "-l", 2)) {
        path = find_static_library(dirs, t + 2, false);
      } else if (strchr(t, '.') && !strstr(t, ".so")) { // an archive or object, by path
        const char *slash = strrchr(script, '/');
        path = t[0] == '/' ? xstrdup(t) : format("%.*s/%s", (int)(slash - script), script, t);
        if (access(path, R_OK) != 0) {
          free(path);
          path = NULL;
        }
      }
      if (path && !strlist_contains(candidates, path))
        strlist_push(candidates, path);
      else
        free(path);
    }
    free(text);
    free(script);
    return;
  }
}

void collect_device_inputs(WrapperRun *run, StringList *device_inputs) {
  const StringList *args = &run->o.linker_args;
  StringList dirs = {0}, candidates = {0};
  collect_library_paths(args, &dirs);
  LinkMode mode = {0};
  for (size_t i = 0; i < args->count; i++) {
    const char *a = args->items[i];
    track_link_mode(&mode, a);
    const char *library = library_option(args, &i);
    if (library) {
      char *path = find_static_library(&dirs, library, mode.static_only);
      if (path)
        strlist_push(&candidates, path);
      else
        add_linker_script_inputs(&dirs, library, mode.static_only, &candidates);
    } else if (a[0] == '-') {
      i += takes_separate_value(a);
    } else if (input_is_stream(a) || access(a, R_OK) == 0) {
      strlist_push(&candidates, xstrdup(a));
    }
  }
  for (size_t i = 0; i < candidates.count; i++) {
    const char *embedded = strmap_get(&run->host_bitcode_device_code, candidates.items[i]);
    if (input_is_stream(candidates.items[i]))
      // Read here for its device code, a pipe would reach the host linker empty: named, a
      // -l library ld finds and a linker script's input alike.
      error(candidates.items[i],
            "a pipe or socket as a host input: the linker wrapper reads each input twice (its "
            "device code, then the host linker); write it to a file first");
    else if (embedded)
      strlist_push(device_inputs, xstrdup(embedded));
    else if (file_has_device_code(run, candidates.items[i], device_inputs) &&
             !strlist_contains(device_inputs, candidates.items[i]))
      strlist_push(device_inputs, xstrdup(candidates.items[i]));
    else
      note("%s: no device code", candidates.items[i]);
    free(candidates.items[i]);
  }
  free(candidates.items);
  strlist_free(&dirs);
}

bool input_is_stream(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

bool file_is_bitcode(const char *path) {
  uint8_t magic[4];
  if (input_is_stream(path)) return false; // reading its magic would take it from the host linker
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool yes = read(fd, magic, sizeof magic) == sizeof magic && is_llvm_bitcode(magic, sizeof magic);
  close(fd);
  return yes;
}
