// Specification of util.c's StrMap: keys are copied, a put replaces the value of an existing
// key, a missing key reads as NULL, and every key survives the table's growth.
#include "base/base.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  StrMap map = {0};
  check(strmap_get(&map, "anything") == NULL, "an empty map has no keys");

  int one = 1, two = 2;
  char key[32] = "kernel";
  strmap_put(&map, key, &one);
  strcpy(key, "changed");
  check(strmap_get(&map, "kernel") == &one, "the key was copied, not kept");
  check(strmap_get(&map, "changed") == NULL, "the caller's buffer is not a key");

  strmap_put(&map, "kernel", &two);
  check(strmap_get(&map, "kernel") == &two && map.count == 1, "a put replaces, not adds");
  check(strmap_get(&map, "") == NULL, "the empty string is a key like any other (absent)");
  strmap_put(&map, "", &one);
  check(strmap_get(&map, "") == &one, "the empty string can be a key");

  // Past 1000 keys the table has grown several times; each value stays with its key.
  enum { N = 1500 };
  static int values[N];
  for (int i = 0; i < N; i++) {
    char name[32];
    snprintf(name, sizeof name, "_ZTS%d", i);
    values[i] = i;
    strmap_put(&map, name, &values[i]);
  }
  check(map.count == N + 2, "count is the number of distinct keys");
  check((map.cap & (map.cap - 1)) == 0 && map.cap >= 2 * map.count,
        "capacity is a power of two, at most half full");
  bool all_found = true;
  for (int i = 0; i < N; i++) {
    char name[32];
    snprintf(name, sizeof name, "_ZTS%d", i);
    int *v = strmap_get(&map, name);
    if (!v || *v != i) all_found = false;
  }
  check(all_found, "all 1500 keys read back their own values after growth");
  check(strmap_get(&map, "kernel") == &two, "keys put before the growth are still there");
  check(strmap_get(&map, "_ZTS1500") == NULL, "a key never put is still absent");

  for (size_t i = 0; i < map.cap; i++)
    free(map.keys[i]);
  free(map.keys);
  free(map.values);
  return checks_result();
}
