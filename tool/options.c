// What every command's option parser shares: values of "--name=value" options and the -j
// count. Each command keeps its own loop over argv; nothing here knows a command's options.
#include "tool/tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *joined_value(const char *arg, const char *name) {
  size_t n = strlen(name);
  if (arg[0] != '-') return NULL;
  arg += arg[1] == '-' ? 2 : 1;
  return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

void print_version(void) {
  printf("sycl-thinlto %s (LLVM %d.%d.%d)\n", SYCL_THINLTO_VERSION, LLVM_VERSION_MAJOR,
         LLVM_VERSION_MINOR, LLVM_VERSION_PATCH);
}

bool asks_for_version(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--version")) return true;
  return false;
}

// Splits TEXT into arguments, GNU-style (what reproducer_arg writes reads back unchanged).
static void split_response_text(const char *text, size_t size, StringList *out) {
  const char *end = text + size;
  Buffer arg = {0};
  for (const char *p = text; p < end;) {
    while (p < end && strchr(" \t\n\r\v\f", *p) && *p)
      p++;
    if (p >= end) break;
    arg.size = 0;
    char quote = 0;
    for (; p < end && (quote || !strchr(" \t\n\r\v\f", *p) || !*p); p++) {
      if (*p == '\\' && p + 1 < end) {
        buffer_append(&arg, ++p, 1);
      } else if (quote && *p == quote) {
        quote = 0;
      } else if (!quote && (*p == '"' || *p == '\'')) {
        quote = *p;
      } else {
        buffer_append(&arg, p, 1);
      }
    }
    buffer_append(&arg, "", 1);
    strlist_push(out, xstrdup((const char *)arg.data));
  }
  free(arg.data);
}

static void expand_into(StringList *out, const char *arg, int depth) {
  if (arg[0] != '@' || !arg[1]) {
    strlist_push(out, xstrdup(arg));
    return;
  }
  if (depth > 20) fatal(arg + 1, "response files nest too deeply");
  Buffer text = {0};
  int rc = read_file(arg + 1, &text);
  if (rc) fatal(arg + 1, "cannot read response file: %s", strerror(-rc));
  StringList args = {0};
  split_response_text((const char *)text.data, text.size, &args);
  for (size_t i = 0; i < args.count; i++)
    expand_into(out, args.items[i], depth + 1);
  strlist_free(&args);
  free(text.data);
}

static StringList expanded; // static: reachable until exit, as argv is (LeakSanitizer)

void expand_response_files(int *argc, char ***argv) {
  bool any = false;
  for (int i = 1; i < *argc && !any; i++)
    any = (*argv)[i][0] == '@';
  if (!any) return;
  StringList out = {0};
  strlist_push(&out, xstrdup((*argv)[0]));
  for (int i = 1; i < *argc; i++)
    expand_into(&out, (*argv)[i], 0);
  strlist_push(&out, NULL); // argv[argc] is NULL
  *argc = (int)out.count - 1;
  expanded = out;
  *argv = out.items;
}
