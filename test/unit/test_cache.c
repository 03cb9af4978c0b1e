// Specification of base/cache.c: keys are stable and length-framed, entries round-trip, a
// truncated, corrupted or foreign entry is a miss, a policy parses lld-style, pruning keeps
// limits.
#include "base/base.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void key_of(const char *a, const char *b, char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_string(&h, a);
  cache_hash_string(&h, b);
  cache_hash_final(&h, key);
}

// Where the entry KIND-KEY of the cache DIR is (base/cache.c's layout).
static char *entry_file(const char *dir, const char *kind, const char *key) {
  return format("%s/sycl-thinlto-5/%.2s/%s-%s", dir, key, kind, key);
}

static void corrupt(const char *dir, const char *key, long offset, bool shorten) {
  char *path = entry_file(dir, "spirv", key);
  if (shorten) {
    if (truncate(path, offset) != 0) perror("truncate");
  } else {
    FILE *f = fopen(path, "r+b");
    fseek(f, offset, SEEK_SET);
    fputc('X', f);
    fclose(f);
  }
  free(path);
}

int main(void) {
  char k1[CACHE_KEY_SIZE], k2[CACHE_KEY_SIZE], k3[CACHE_KEY_SIZE];
  key_of("ab", "c", k1);
  key_of("a", "bc", k2);
  key_of("ab", "c", k3);
  check(strlen(k1) == 64, "a key is 64 hex digits");
  check(!strcmp(k1, k3), "the same parts give the same key");
  check(strcmp(k1, k2) != 0, "parts are framed: (ab,c) and (a,bc) differ");

  char dir[] = "/tmp/sycl-thinlto-cache-test-XXXXXX";
  check(mkdtemp(dir) != NULL, "a scratch directory");
  CachePolicy policy;
  char *errmsg = NULL;
  check(cache_parse_policy("prune_after=2h:cache_size_bytes=1k:cache_size_files=2", &policy,
                           &errmsg) == 0 &&
            policy.prune_after == 7200 && policy.max_bytes == 1024 && policy.max_files == 2,
        "an lld-style policy parses");
  check(cache_parse_policy("prune_after=soon", &policy, &errmsg) == -1 &&
            strstr(errmsg, "prune_after=soon"),
        "a bad policy item is named");
  free(errmsg);
  cache_parse_policy("cache_size_files=2:prune_interval=0s", &policy, &errmsg);

  Cache c;
  check(cache_open(&c, dir, &policy, &errmsg) == 0, "the cache opens");
  Buffer v = {.data = (uint8_t *)"SPIR-V bytes", .size = 12}, got = {0};
  check(cache_get(&c, "spirv", k1, &got) == -1, "an absent entry is a miss");
  check(cache_put(&c, "spirv", k1, &v) == 0, "an entry is written");
  check(cache_get(&c, "spirv", k1, &got) == 0 && got.size == 12 && !memcmp(got.data, v.data, 12),
        "it reads back");
  free(got.data);

  corrupt(dir, k1, 3, false);
  check(cache_get(&c, "spirv", k1, &got) == -1, "a corrupted payload is a miss");
  cache_put(&c, "spirv", k1, &v);
  check(cache_get(&c, "spirv", k1, &got) == 0, "rewriting repairs it");
  free(got.data);
  corrupt(dir, k1, 30, true);
  check(cache_get(&c, "spirv", k1, &got) == -1, "a truncated entry is a miss");

  // Foreign entries: another key's or another kind's intact entry under this name, a FIFO.
  char *p1 = entry_file(dir, "spirv", k1), *p2 = entry_file(dir, "spirv", k2);
  char *p3 = entry_file(dir, "image", k1);
  cache_put(&c, "spirv", k2, &v);
  check(rename(p2, p1) == 0 && cache_get(&c, "spirv", k1, &got) == -1,
        "another key's entry is a miss");
  cache_put(&c, "spirv", k1, &v);
  check(rename(p1, p3) == 0 && cache_get(&c, "image", k1, &got) == -1,
        "another kind's entry is a miss");
  check(mkfifo(p1, 0666) == 0 && cache_get(&c, "spirv", k1, &got) == -1,
        "a FIFO is a miss, not a hang");
  check(cache_put(&c, "spirv", k1, &v) == 0 && cache_get(&c, "spirv", k1, &got) == 0,
        "a FIFO is replaced, not written to");
  free(got.data);
  unlink(p3);
  free(p1), free(p2), free(p3);

  cache_put(&c, "spirv", k1, &v);
  sleep(1); // distinct modification times order the entries
  cache_put(&c, "spirv", k2, &v);
  sleep(1);
  cache_put(&c, "spirv", k3 /* == k1 */, &v);
  char k4[CACHE_KEY_SIZE];
  key_of("fourth", "", k4);
  cache_put(&c, "spirv", k4, &v);
  cache_prune(&c);
  int left = 0;
  const char *keys[] = {k1, k2, k4};
  for (int i = 0; i < 3; i++)
    if (cache_get(&c, "spirv", keys[i], &got) == 0) left++, free(got.data);
  check(left == 2, "pruning keeps cache_size_files=2 entries");
  check(cache_get(&c, "spirv", k2, &got) == -1, "the least recently used entry went first");

  // Pruning touches only files named as entries, as regular files: a user's files, a link
  // named as an entry and a temporary being written are left alone.
  char *shard = format("%s/sycl-thinlto-5/%.2s", dir, k1);
  const char *user_files[] = {"my-notes.txt", "build-log", "report-2024", "spirv-1234", NULL};
  for (int i = 0; user_files[i]; i++) {
    char *path = format("%s/%s", shard, user_files[i]);
    FILE *f = fopen(path, "w");
    if (f) fputs("the user's", f), fclose(f);
    free(path);
  }
  char *victim = format("%s/victim", dir);
  char *planted = format("%s/spirv-%064d", shard, 7);
  char *temporary = format("%s/spirv-%064d.tmp.host.1.1", shard, 8);
  FILE *f = fopen(victim, "w");
  if (f) fputs("the user's", f), fclose(f);
  f = fopen(temporary, "w");
  if (f) fputs("being written", f), fclose(f);
  check(symlink(victim, planted) == 0, "a link named as an entry");
  policy.max_files = 0;
  policy.max_bytes = 1; // every entry goes
  Cache tight = c;
  tight.policy = policy;
  cache_prune(&tight);
  check(cache_get(&c, "spirv", k1, &got) == -1, "cache_size_bytes=1 prunes every entry");
  bool kept = true;
  for (int i = 0; user_files[i]; i++) {
    char *path = format("%s/%s", shard, user_files[i]);
    kept = kept && access(path, F_OK) == 0;
    free(path);
  }
  check(kept, "files not named as entries are not pruned");
  struct stat st;
  check(lstat(planted, &st) == 0 && access(victim, F_OK) == 0, "a link is neither followed nor pruned");
  check(access(temporary, F_OK) == 0, "a temporary being written is not pruned");
  free(victim), free(planted), free(temporary), free(shard);

  // A cached result libLTO hands back as the file it is: cut to its payload when intact.
  Buffer entry = {0}, payload = {.data = (uint8_t *)"bitcode", .size = 7};
  cache_put(&c, "thinlto", k4, &payload);
  char *k4_file = entry_file(dir, "thinlto", k4);
  check(map_file(k4_file, &entry) == 0 && cache_take_payload("thinlto", k4, &entry) == 0 &&
            entry.size == 7 && !memcmp(entry.data, "bitcode", 7),
        "an intact entry gives its payload");
  buffer_free(&entry);
  check(map_file(k4_file, &entry) == 0 && cache_take_payload("thinlto", k1, &entry) == -1 &&
            entry.size == 7 + 52,
        "another key's entry does not");
  buffer_free(&entry);
  free(k4_file);
  cache_close(&c);

  // A folder that holds files but no CACHEDIR.TAG is refused; a missing one is made with the
  // folders above it, and tagged.
  char *untagged = format("%s/untagged", dir), *deep = format("%s/a/b/c", dir);
  mkdir(untagged, 0777);
  char *note = format("%s/notes", untagged);
  f = fopen(note, "w");
  if (f) fclose(f);
  check(cache_open(&c, untagged, &policy, &errmsg) == -1 && strstr(errmsg, "CACHEDIR.TAG"),
        "an untagged folder of files is refused");
  free(errmsg);
  check(cache_open(&c, deep, &policy, &errmsg) == 0, "a missing folder is made with its parents");
  char *tag = format("%s/CACHEDIR.TAG", deep);
  Buffer text = {0};
  check(read_file(tag, &text) == 0 && text.size > 43 &&
            !memcmp(text.data, "Signature: 8a477f597d28d172789f06886806bc55", 43),
        "and tagged");
  free(text.data);
  cache_close(&c);
  check(cache_open(&c, deep, &policy, &errmsg) == 0, "a tagged folder opens");
  cache_close(&c);
  free(untagged), free(deep), free(note), free(tag);

  // Payload records: what is written reads back; a cut record is "bad", not a crash.
  Buffer rec = {0};
  StringList names = {0}, back = {0};
  strlist_push(&names, xstrdup("_ZTS2K1"));
  strlist_push(&names, xstrdup("_ZTS2K2"));
  record_put(&rec, "spirv", 5);
  record_put_strings(&rec, &names);
  RecordReader rd = {rec.data, rec.data + rec.size, false};
  size_t n;
  const uint8_t *bytes = record_get(&rd, &n);
  check(bytes && n == 5 && !memcmp(bytes, "spirv", 5) && record_get_strings(&rd, &back) &&
            back.count == 2 && !strcmp(back.items[1], "_ZTS2K2") && rd.p == rd.end,
        "records round-trip");
  RecordReader cut = {rec.data, rec.data + rec.size - 3, false};
  record_get(&cut, &n);
  check(!record_get_strings(&cut, &back) && cut.bad, "a cut record list is refused");
  free(rec.data);

  char *cmd = format("rm -rf %s", dir);
  if (system(cmd)) perror("rm");
  free(cmd);
  return failures ? 1 : 0;
}
