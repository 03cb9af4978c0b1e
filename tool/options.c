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
