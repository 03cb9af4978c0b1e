// lto/ — the ThinLTO and full-LTO stages: symbol resolution, prepare, the thin link and
// its backends (libLTO), full LTO. Option parsing and output files are the tool's.
#ifndef SYCL_THINLTO_LTO_H
#define SYCL_THINLTO_LTO_H

#include "hooks/hooks.h"
#include "split/split.h"

#ifdef __cplusplus
extern "C" {
#endif

//
// lto/symbols.c — symbol resolution over all images
//

// Reads every module's symbols (in parallel; with CACHE, from the record the split kept with
// an image, module_symbols_record), then resolves them. Under AOT (no set images: kernel images are self-contained) a module
// defining "indirectly-callable" functions is an ordinary source of definitions.
// Duplicate strong definitions are errors naming both inputs.
// With INTERFACE (and CACHE), each module's interface key (module_symbols_key's) is written
// there.
void resolve_symbols(Resolution *r, InputSet *inputs, bool allow_dependencies, bool aot,
                     const Cache *cache, int jobs, char (*interface)[CACHE_KEY_SIZE]);
// With a cache, a module's content key: the one its split's record holds (the record came with
// the bitcode in one checked cache entry), else the hash of its bytes.
void module_content_key(const InputImage *in, char key[CACHE_KEY_SIZE]);
// What resolution reads of IN, as a key: the hash of its split's record but for the content
// key. False when IN has no such record (resolve_symbols gives the key then).
bool module_symbols_key(const InputImage *in, char key[CACHE_KEY_SIZE]);
// The results of resolve_symbols (every module's kernels, exports, device globals, set,
// definitions lost; must_preserve, cross_referenced, prevailing), serialized into OUT; and
// read back for INPUTS (the same modules' interfaces, in the same order) with each module's
// CONTENT_KEYS. False (R empty) for anything damaged or of another count of modules.
void resolution_save(const Resolution *r, Buffer *out);
bool resolution_restore(Resolution *r, InputSet *inputs, const uint8_t *data, size_t size,
                        char (*content_keys)[CACHE_KEY_SIZE]);
// SplitOptions.describe: what resolve_symbols reads of an image, for the split's cache entry
// (read back only for the same bytes). 0, or -1 if the bitcode does not read.
int module_symbols_record(const uint8_t *bitcode, size_t size, Buffer *out);
// Everything resolve_symbols and the prepare stage allocated; not the inputs.
void resolution_free(Resolution *r);

//
// lto/prepare.c — every module made ready for the thin link
//

// Canonical triple, overridden weak definitions dropped, entry points marked with the aspects
// they reach in PROGRAM (may be NULL), written with a summary. With a cache, a module whose
// bytes, dropped definitions and marks are unchanged is not redone.
// A module passed on as the split wrote it takes its bytes' buffer from INPUTS (which the
// modules' inputs are; NULL: none) where that buffer is its own, rather than a copy: the
// inputs' bytes are not read after this (the thin link's stage releases them).
void prepare_modules(Resolution *r, const ProgramFacts *program, const Cache *cache,
                     InputSet *inputs, int jobs);

//
// lto/thinlto.c — the thin link and the per-module backends (libLTO)
//

typedef struct {
  int jobs;
  int import_instr_limit;
  const char *save_temps_dir; // NULL unless --save-temps
  const Cache *cache;         // --cache-dir: libLTO's backend cache lives in DIR/thinlto
} ThinLinkOptions;

// Post-ThinLTO bitcode of every module, indexed like r->modules: emitted ones are
// finished by the hooks, all of them are sources for completion, indexed into SOURCES
// (initialized here, freed with completion_sources_free). Returns how many results came from
// damaged ThinLTO cache entries (their hashes did not match; removed) or do not read as
// bitcode.
size_t thin_link(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized,
                 CompletionSources *sources);
// The thin link's cache verification: any damage (BAD from thin_link), and the thin link is
// redone without reusing entries. Frees the prepared bitcode libLTO read.
void thin_link_verify(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized,
                      size_t bad, CompletionSources *sources);

//
// lto/full_lto.c — --lto=full: one module, optimized once, split again (the baseline)
//

typedef struct {
  LLVMContextRef ctx;
  LLVMModuleRef module;
} FullModule;

// Links the prepared user modules into one, in link order, then what it uses of the device
// libraries (through complete_module). Errors are fatal. A set's dummy image is left out:
// the split of the linked module makes it again.
void full_link(Resolution *r, int jobs, FullModule *out);
// Internalizes all but what ThinLTO would preserve (and virtual functions), then runs
// default<O<level>> once.
void full_optimize(FullModule *fm, const Resolution *r, int opt_level);
// Splits the module (consumed, context disposed) by O's rules into IMAGES, each named after
// the input of its first kernel; returns their bitcode (IMAGES point into it; caller frees).
Buffer *full_split(FullModule *fm, const Resolution *r, const SplitOptions *o, InputSet *images);

#ifdef __cplusplus
}
#endif

#endif
