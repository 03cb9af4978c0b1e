// What every fuzz target checks of what a reader returns: a span it points at lies inside the
// input bytes, so a reader never reads past what it was given.
#ifndef FUZZ_INSIDE_H
#define FUZZ_INSIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Whether the N bytes at P lie inside the SIZE bytes at DATA.
static inline bool inside(const void *p, size_t n, const uint8_t *data, size_t size) {
  const uint8_t *b = p;
  return b >= data && b <= data + size && n <= (size_t)(data + size - b);
}

#endif
