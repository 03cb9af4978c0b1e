// What every command's option parser shares: values of "--name=value" options, the -j count,
// --help and --version, and whether standard output is there to print on. Each command keeps
// its own loop over argv; nothing here knows a command's options.
#include "tool/tool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h>

const char *option_value(int argc, char **argv, int *i, const char *arg, const char *name) {
  size_t n = strlen(name);
  if (arg[0] != '-') return NULL;
  arg += arg[1] == '-' ? 2 : 1;
  if (strncmp(arg, name, n)) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != 0) return NULL;
  if (*i + 1 >= argc) fatal(NULL, "option '--%s' needs a value", name);
  return argv[++*i];
}

// 0 is no "all cores" here: leaving -j out says that; a zero or negative count is a mistake.
int parse_jobs(const char *option, const char *text) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (!*text || *end || errno || v < 1 || v > MAX_JOBS)
    fatal(NULL, "%s: expected a number of jobs from 1 to %d, not '%s'", option, MAX_JOBS, text);
  return (int)v;
}

// Whether the parent left standard output closed: it is opened on /dev/null all the same
// (open_standard_descriptors), but a result meant for it would vanish there.
static bool standard_output_closed;

// A standard descriptor the parent left closed is opened on /dev/null before anything else:
// otherwise the first file we open becomes fd 0, 1 or 2, and what is written "to stderr"
// lands in it (an error message went into a ThinLTO temporary file).
void open_standard_descriptors(void) {
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    if (fd == 1) standard_output_closed = true;
    int opened = own_open_null(fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened >= 0 && opened != fd) {
      dup2(opened, fd);
      close(opened);
    }
  }
}

void require_standard_output(void) {
  if (standard_output_closed) fatal(NULL, "standard output is closed");
}

// Flushed here: some callers leave by exit(0), past main's check of standard output.
static void flush_standard_output(void) {
  errno = 0;
  if (fflush(stdout) || ferror(stdout))
    fatal(NULL, "cannot write to standard output: %s", strerror(errno ? errno : EIO));
}

int print_help(const char *usage) {
  require_standard_output();
  fputs(usage, stdout);
  flush_standard_output();
  return 0;
}

void refuse_stdout_output(const char *output) {
  if (!strcmp(output, "-"))
    fatal(NULL, "-o -: this command writes its output to a file, not to standard output; "
                "name the file (./- for a file named '-')");
}

void parse_aspects(const char *option, const char *list, StringList *aspects) {
  size_t first = aspects->count;
  strlist_split_commas(aspects, list);
  for (size_t i = first; i < aspects->count; i++) {
    uint32_t value;
    if (aspect_value(aspects->items[i], &value))
      fatal(NULL, "%s: unknown aspect '%s' (expected names such as fp64, fp16, atomic64, or "
                  "aspect numbers)",
            option, aspects->items[i]);
  }
}

const char *joined_value(const char *arg, const char *name) {
  size_t n = strlen(name);
  if (arg[0] != '-') return NULL;
  arg += arg[1] == '-' ? 2 : 1;
  return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

void print_version(void) {
  require_standard_output();
  printf("sycl-thinlto %s (LLVM %d.%d.%d)\n", SYCL_THINLTO_VERSION, LLVM_VERSION_MAJOR,
         LLVM_VERSION_MINOR, LLVM_VERSION_PATCH);
  flush_standard_output();
}

bool asks_for_version(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--version")) return true;
  return false;
}

// Splits TEXT into arguments as LLVM's TokenizeGNUCommandLine does (clang's and lld's
// reading on Linux): blanks (space, tab, CR, LF) separate; "..." and '...' quote; a backslash
// escapes the next character, inside quotes too; an argument that ends up empty ("") is
// dropped; an unterminated quote ends the file. Reads back what reproducer_arg writes.
static bool is_response_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void split_response_text(const char *text, size_t size, StringList *out) {
  const char *p = text, *end = text + size;
  if (size >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) p += 3; // a UTF-8 byte order mark
  Buffer arg = {0};
  while (p < end) {
    while (p < end && is_response_blank(*p))
      p++;
    if (p >= end) break;
    arg.size = 0;
    for (char quote = 0; p < end && (quote || !is_response_blank(*p)); p++) {
      if (*p == '\\' && p + 1 < end)
        buffer_append(&arg, ++p, 1);
      else if (quote && *p == quote)
        quote = 0;
      else if (!quote && (*p == '"' || *p == '\''))
        quote = *p;
      else
        buffer_append(&arg, p, 1);
    }
    if (!arg.size) continue;
    buffer_append(&arg, "", 1);
    strlist_push(out, xstrdup((const char *)arg.data));
  }
  free(arg.data);
}

// Response files nest this deep at most; a file that includes itself, directly or through
// others, is an error before that (clang and lld: "recursive expansion").
enum { MAX_RESPONSE_DEPTH = 20 };

// CHAIN: the response files being expanded around ARG, outermost first (as written; their
// identities in IDS, "dev:ino").
static void expand_into(StringList *out, const char *arg, StringList *chain, StringList *ids) {
  if (arg[0] != '@' || !arg[1]) {
    strlist_push(out, xstrdup(arg));
    return;
  }
  const char *path = arg + 1;
  struct stat st;
  if (stat(path, &st) != 0)
    fatal(path, "cannot read response file: %s", strerror(errno));
  if (S_ISDIR(st.st_mode)) fatal(path, "cannot read response file: %s", strerror(EISDIR));
  char *id = format("%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
  if (strlist_contains(ids, id)) {
    strlist_push(chain, xstrdup(path));
    char *through = strlist_join(chain, " -> ");
    fatal(path, "response file includes itself: %s", through);
  }
  if (chain->count >= MAX_RESPONSE_DEPTH)
    fatal(path, "response files nested more than %d deep", MAX_RESPONSE_DEPTH);
  Buffer text = {0};
  int rc = read_file(path, &text);
  if (rc) fatal(path, "cannot read response file: %s", read_error_text(rc));
  // LLVM keeps an argument as a C string, so a NUL ended it and the rest of it, names of
  // inputs included, was lost without a word (kernels dropped, exit 0): not a text file.
  const unsigned char *nul = memchr(text.data, 0, text.size);
  if (nul)
    fatal(path, "response file holds a NUL byte (at offset %zu): not a text file",
          (size_t)(nul - text.data));
  StringList args = {0};
  split_response_text((const char *)text.data, text.size, &args);
  free(text.data);
  strlist_push(chain, xstrdup(path));
  strlist_push(ids, id);
  for (size_t i = 0; i < args.count; i++)
    expand_into(out, args.items[i], chain, ids);
  free(chain->items[--chain->count]);
  free(ids->items[--ids->count]);
  strlist_free(&args);
}

void append_response_arg(Buffer *out, const char *arg) {
  bool plain = *arg && !arg[strcspn(arg, " \t\n\r\v\f\"'\\")];
  if (plain) {
    buffer_append(out, arg, strlen(arg));
  } else {
    buffer_append(out, "\"", 1);
    for (const char *c = arg; *c; c++) {
      if (*c == '"' || *c == '\\') buffer_append(out, "\\", 1);
      buffer_append(out, c, 1);
    }
    buffer_append(out, "\"", 1);
  }
  buffer_append(out, "\n", 1);
}

static StringList expanded; // static: reachable until exit, as argv is (LeakSanitizer)

void expand_response_files(int *argc, char ***argv) {
  bool any = false;
  for (int i = 1; i < *argc && !any; i++)
    any = (*argv)[i][0] == '@';
  if (!any) return;
  StringList out = {0};
  strlist_push(&out, xstrdup((*argv)[0]));
  StringList chain = {0}, ids = {0};
  for (int i = 1; i < *argc; i++)
    expand_into(&out, (*argv)[i], &chain, &ids);
  strlist_free(&chain);
  strlist_free(&ids);
  strlist_push(&out, NULL); // argv[argc] is NULL
  *argc = (int)out.count - 1;
  expanded = out;
  *argv = out.items;
}
