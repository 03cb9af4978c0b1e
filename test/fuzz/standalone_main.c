// The regression driver of the fuzz targets in a normal build (no libFuzzer): every file of
// the directories (or the files) on the command line is fed once to LLVMFuzzerTestOneInput,
// in name order. A crash, or a sanitizer report in sanitized builds, fails the run.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  uint8_t *data = NULL;
  size_t size = 0, cap = 0, n;
  do {
    if (size == cap) data = realloc(data, cap = cap ? cap * 2 : 4096);
    n = fread(data + size, 1, cap - size, f);
    size += n;
  } while (n);
  fclose(f);
  // Exactly SIZE bytes, as libFuzzer passes them: a read past the end is seen by ASan.
  uint8_t *input = malloc(size ? size : 1);
  if (size) memcpy(input, data, size);
  free(data);
  LLVMFuzzerTestOneInput(input, size);
  free(input);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int failures = 0, inputs = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) < 0) {
      perror(argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      failures += run_file(argv[i]);
      inputs++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      names = realloc(names, (count + 1) * sizeof *names);
      names[count++] = strdup(e->d_name);
    }
    if (d) closedir(d);
    qsort(names, count, sizeof *names, by_name);
    for (size_t k = 0; k < count; k++) {
      size_t len = strlen(argv[i]) + strlen(names[k]) + 2;
      char *path = malloc(len);
      snprintf(path, len, "%s/%s", argv[i], names[k]);
      failures += run_file(path);
      inputs++;
      free(path);
      free(names[k]);
    }
    free(names);
  }
  printf("%d input(s) run, %d unreadable\n", inputs, failures);
  return failures || !inputs;
}
