// The hook's cache: a finished image (SPIR-V, symbols, imports, properties) stored under a
// key of its post-ThinLTO bitcode and the options that shape it. It does not decide when to
// look up; hooks/hook.c does, before completion.
#include "hooks/hooks.h"

#include <stdlib.h>
#include <string.h>

// A hit is valid only while every name completion looked up has a provider with the same
// content as when the entry was written ("-" for a name nothing provided): completion is
// deterministic, so the same providers give the same completed module.
static const char *provider_key(const CompletionSources *s, const char *name) {
  uintptr_t provider = (uintptr_t)strmap_get(&s->provider, name);
  return provider ? s->content_key[provider - 1] : "-";
}

void image_cache_key(const char *content_key, const HookOptions *opts, int module_opt_level,
                     char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "image v12"); // v12: the properties' JSON as the output writes it
  char *options = format(
      "tool=%d translator=%s validate=%d deps=%d O%d module O%d ext=%s meta=%d names=%d sc=%d",
      opts->tool, opts->tool == SPIRV_TRANSLATOR ? opts->llvm_spirv : "", opts->validate,
      opts->allow_dependencies, opts->opt_level, module_opt_level, spirv_extensions,
      opts->emit_program_metadata, opts->emit_kernel_names, opts->spec_const);
  cache_hash_string(&h, options);
  free(options);
  cache_hash_string(&h, content_key);
  cache_hash_final(&h, key);
}

bool image_cache_lookup(const Cache *c, const char *key, const CompletionSources *s,
                        ImageResult *out) {
  Buffer entry;
  if (cache_get(c, "image", key, &entry)) return false;
  RecordReader r = {entry.data, entry.data + entry.size, false};
  StringList deps = {0}, symbols = {0}, imports = {0};
  bool hit = record_get_strings(&r, &deps) && deps.count % 2 == 0;
  for (size_t i = 0; hit && i < deps.count; i += 2)
    hit = !strcmp(provider_key(s, deps.items[i]), deps.items[i + 1]);
  size_t spirv_size = 0;
  const uint8_t *spirv = hit ? record_get(&r, &spirv_size) : NULL;
  char *properties = NULL;
  if (hit && spirv && record_get_strings(&r, &symbols) && record_get_strings(&r, &imports))
    properties = record_get_string(&r);
  // The properties are the text the output writes (an entry's checksum stands for them): not
  // parsed here, nor written again.
  hit = hit && properties && !r.bad;
  if (hit) {
    // Everything else is parsed out already: the SPIR-V moves to the front of the entry's
    // buffer, which becomes the image's, cut to size (a hit copies nothing).
    memmove(entry.data, spirv, spirv_size);
    out->spirv =
        (Buffer){.data = xrealloc(entry.data, spirv_size ? spirv_size : 1), .size = spirv_size};
    entry.data = NULL;
    out->symbols = symbols;
    out->imports = imports;
    out->properties = properties;
  } else {
    strlist_free(&symbols);
    strlist_free(&imports);
    free(properties);
  }
  strlist_free(&deps);
  free(entry.data);
  return hit;
}

void image_cache_store(const Cache *c, const char *key, const StringList *looked_up,
                       const CompletionSources *s, const ImageResult *res) {
  StringList deps = {0};
  for (size_t i = 0; i < looked_up->count; i++) {
    strlist_push(&deps, looked_up->items[i]);
    strlist_push(&deps, (char *)provider_key(s, looked_up->items[i]));
  }
  Buffer b = {0};
  record_put_strings(&b, &deps);
  record_put(&b, res->spirv.data, res->spirv.size);
  record_put_strings(&b, &res->symbols);
  record_put_strings(&b, &res->imports);
  record_put(&b, res->properties, strlen(res->properties));
  free(deps.items); // the strings belong to LOOKED_UP and S
  cache_store(c, "image", key, &b);
  free(b.data);
}
