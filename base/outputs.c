// The one rule for outputs (issue 24): a path a command will write may not name one of its
// inputs, a directory or a device (the null device aside). It checks; it writes nothing.
#include "base/base.h"

#include <dirent.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

// The inputs of this run, as the command named them; small metadata, kept until exit.
typedef struct {
  char *name;
  dev_t dev;
  ino_t ino;
} RecordedInput;
static RecordedInput *inputs;
static size_t num_inputs;

void output_rule_input(const char *path) {
  struct stat st;
  if (stat(path, &st) < 0) return; // reading it will say why
  inputs = xrealloc(inputs, (num_inputs + 1) * sizeof *inputs);
  inputs[num_inputs++] = (RecordedInput){xstrdup(path), st.st_dev, st.st_ino};
}

// /dev/null and its like (a node of the same device elsewhere): writing there discards.
static bool is_null_device(const struct stat *st) {
  return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

static bool is_null_device_path(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && is_null_device(&st);
}

bool output_is_null_device(const char *path) {
  return is_null_device_path(path);
}

// The paths this run will write, each with the option that asks for it, under one spelling
// (the real path of its directory, then its name): two options naming one file would leave
// only the last one written (-o X --time-trace=X wrote the trace, exit 0, no program).
typedef struct {
  char *path, *canonical, *option;
} RecordedOutput;
static RecordedOutput *outputs;
static size_t num_outputs;

static char *canonical_output_name(const char *path) {
  char *copy = xstrdup(path), *copy2 = xstrdup(path);
  char *dir = realpath(dirname(copy), NULL);
  const char *base = basename(copy2);
  char *name = dir ? format("%s/%s", dir, base) : xstrdup(path); // a missing dir: said later
  free(dir);
  free(copy);
  free(copy2);
  return name;
}

static void record_output(const char *path, const char *option) {
  if (is_null_device_path(path)) return; // anything may be discarded twice
  char *name = canonical_output_name(path);
  for (size_t i = 0; i < num_outputs; i++)
    if (!strcmp(outputs[i].canonical, name)) {
      if (!strcmp(outputs[i].option, option)) fatal(path, "%s names it twice", option);
      fatal(path, "both %s and %s would write it", outputs[i].option, option);
    }
  outputs = xrealloc(outputs, (num_outputs + 1) * sizeof *outputs);
  outputs[num_outputs++] = (RecordedOutput){xstrdup(path), name, xstrdup(option)};
}

// The rule's checks on an existing PATH: no directory, no device but the null device, no input.
static void check_existing_output(const char *path, const char *option) {
  struct stat st;
  // stat, not lstat: a link to an input or to a directory names it; a dangling link, or a
  // link to another file, is replaced by the rename as a file would be.
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) fatal(path, "%s names a directory, not a file to write", option);
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !is_null_device(&st))
      fatal(path, "%s names a device; only the null device is written in place", option);
    for (size_t i = 0; i < num_inputs; i++) {
      if (inputs[i].dev != st.st_dev || inputs[i].ino != st.st_ino) continue;
      if (!strcmp(inputs[i].name, path))
        fatal(path, "is an input; %s would overwrite it", option);
      fatal(path, "is the input %s; %s would overwrite it", inputs[i].name, option);
    }
  }
}

static void check_output_file(const char *path, const char *option) {
  check_existing_output(path, option);
  remove_dead_temporaries(path);
}

void output_rule_reset(void) {
  for (size_t i = 0; i < num_inputs; i++)
    free(inputs[i].name);
  for (size_t i = 0; i < num_outputs; i++) {
    free(outputs[i].path);
    free(outputs[i].canonical);
    free(outputs[i].option);
  }
  free(inputs);
  free(outputs);
  inputs = NULL, outputs = NULL;
  num_inputs = num_outputs = 0;
}

void check_output_distinct(const char *path, const char *option) {
  record_output(path, option);
}

void check_output_path(const char *path, const char *option) {
  record_output(path, option);
  check_output_file(path, option);
}

void check_output_path_unswept(const char *path, const char *option) {
  record_output(path, option);
  check_existing_output(path, option);
}

bool is_numbered_name(const char *rest, const void *separator) {
  size_t n = strlen(separator);
  if (strncmp(rest, separator, n)) return false;
  rest += n;
  size_t digits = strspn(rest, "0123456789");
  return digits && rest[digits] == '.';
}

void check_derived_outputs(const char *prefix, bool (*derived)(const char *rest, const void *arg),
                           const void *arg, const char *option) {
  char *copy = xstrdup(prefix), *copy2 = xstrdup(prefix);
  const char *dir = dirname(copy), *base = basename(copy2);
  size_t base_len = strlen(base);
  // A path another option names (--time-trace=OUT.0.spv with --save-temps) would be written
  // twice, whether it exists yet or not.
  char *canonical_prefix = canonical_output_name(prefix);
  size_t prefix_len = strlen(canonical_prefix);
  for (size_t i = 0; i < num_outputs; i++) {
    const char *name = outputs[i].canonical;
    if (!strncmp(name, canonical_prefix, prefix_len) && derived(name + prefix_len, arg))
      fatal(outputs[i].path, "both %s and %s would write it", outputs[i].option, option);
  }
  free(canonical_prefix);
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, base, base_len) || !derived(e->d_name + base_len, arg)) continue;
    char *path = !strcmp(dir, ".") && prefix[0] != '.' ? xstrdup(e->d_name)
                                                        : format("%s/%s", dir, e->d_name);
    check_output_file(path, option);
    free(path);
  }
  if (d) closedir(d);
  free(copy);
  free(copy2);
}
