// What every command's option parser shares: values of "--name=value" options and the -j
// count. Each command keeps its own loop over argv; nothing here knows a command's options.
#include "tool/tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
