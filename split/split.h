// split/ — early device-code split: per kernel, per source or none; SYCL_EXTERNAL entry
// points, virtual-function sets, whole-program facts and regrouping. Links nothing.
#ifndef SYCL_THINLTO_SPLIT_H
#define SYCL_THINLTO_SPLIT_H

#include "formats/formats.h"

#ifdef __cplusplus
extern "C" {
#endif

//
// split/ — early device-code split (issue 3): per kernel / per source, SYCL_EXTERNAL entry
// points, virtual-function sets; at compile time (`split`) or per input at link time
//

typedef enum { SPLIT_KERNEL, SPLIT_SOURCE, SPLIT_AUTO, SPLIT_NONE } SplitMode;

struct SplitImage;
// A consumer of the split modules (tool/post_link.c): called with each image's module, which
// it may change but not dispose, instead of the image being written as bitcode with a summary
// and the !sycl-split mark. 0, or -1 with *errmsg.
typedef int (*SplitEmit)(void *arg, LLVMModuleRef m, const struct SplitImage *image, char **errmsg);

typedef struct {
  SplitMode mode;
  bool allow_dependencies; // SYCL_EXTERNAL functions are imported, not copied, across images
  bool aot;                // --aot-aspects given: the device's aspects are known
  StringList aot_aspects;  // what the device supports (names, e.g. fp64, or numbers)
  const Cache *cache;      // --cache-dir: an unchanged input's split is reused
  bool only_kernels;       // kernels (and virtual functions) are the only entry points
  bool post_link;          // sycl-post-link's conventions: its module order (category keys,
                           // descending), and copies keep their linkage (its cleanup decides)
  bool virtual_by_category; // sycl-post-link's virtual functions: grouped by their category
                            // key like any entry point (per kernel one module per function,
                            // per source per set and optional features), not one image
                            // per set, and no dummy (the post-link front makes those)
  SplitEmit emit;          // NULL: images are written as bitcode
  void *emit_arg;
  bool facts; // each image also gets its whole-program facts (module_facts), for the link
  // With a cache: what the link's resolution reads of each image (lto/symbols.c gives it), kept
  // in the split's cache entry so that a relink reads no unchanged image for it. 0, or -1.
  int (*describe)(const uint8_t *bitcode, size_t size, Buffer *out);
  bool canonical_triple; // the link's split: images get set_canonical_triple (link_ready)
} SplitOptions;


typedef struct SplitImage {
  Buffer bitcode;      // written with a ThinLTO summary (empty with SplitOptions.emit)
  StringList kernels;  // in module order
  StringList exported; // SYCL_EXTERNAL (and outlined virtual) functions it defines for others
  StringList entries; // its group's entry points (kernels, SYCL_EXTERNAL, virtual), in module order
  char *virtual_set;  // the outlined "indirectly-callable" set, or NULL
  bool dummy;         // the set's functions with empty bodies
  Buffer facts;       // SplitOptions.facts: module_facts of the image as written
  Buffer symbols;     // SplitOptions.describe's, or empty
} SplitImage;

typedef struct {
  SplitImage *images;
  size_t count;
  // A cache entry read whole, into which the images' bitcode, facts and symbols point (their
  // buffers are then not their own); empty for a split made here.
  Buffer entry;
} SplitResult;

// The option's word for MODE ("kernel", "source", ...).
const char *split_mode_name(SplitMode mode);
int split_mode_parse(const char *text, SplitMode *mode); // 0, or -1 if unknown
// split/split.c: splits M (which it consumes) into images. Thread-safe for distinct
// contexts. 0, or -1 with *errmsg (a user error: e.g. a device_image_scope global in two
// images).
int split_module(LLVMModuleRef m, const SplitOptions *o, SplitResult *out, char **errmsg);
// A device_global (DPC++'s "sycl-device-global-size") with the device_image_scope property
// ("sycl-device-image-scope", not "false"): it must live in one image.
bool is_image_scope_global(LLVMValueRef v);
void split_result_free(SplitResult *r);
// True if M carries the !sycl-split mark: it was split already.
bool module_is_split(LLVMModuleRef m);
// An entry point the split may group: a kernel or a SYCL_EXTERNAL function (is_sycl_external
// with its module's module_has_module_ids), never a builtin (is_builtin_name).
bool is_split_entry_point(LLVMValueRef f, bool module_ids);

// split/virtual.c: virtual-function sets (seed 002) and optional-feature aspects.
typedef struct {
  StringList names;    // every "indirectly-callable" set defined here, in module order
  StringList *aspects; // per set: the aspects its functions use
  bool *dropped;       // per set, AOT only: needs an aspect the device lacks
} VirtualSets;
// Finds the sets and their aspects, adds to every kernel with "calls-indirectly" the aspects
// of those sets (sycl_used_aspects), and under AOT deletes the functions of dropped sets.
void virtual_sets_prepare(LLVMModuleRef m, const SplitOptions *o, VirtualSets *sets);
void virtual_sets_free(VirtualSets *sets);
int virtual_set_index(const VirtualSets *sets, LLVMValueRef f); // -1 if F is in none
// The aspects F uses: its sycl_used_aspects metadata, and with SCAN_BODY fp64/fp16 for a
// double/half in its body (upstream clang writes no such metadata).
void function_aspects(LLVMValueRef f, bool scan_body, StringList *aspects);
// Adds ASPECTS (names, or numbers for unnamed ones) to F's sycl_used_aspects.
void add_used_aspects(LLVMValueRef f, const StringList *aspects);
// The aspects F declares with [[sycl::device_has()]] (sycl_declared_aspects), and adding to
// them: required by an image holding F, but no reason to split (intel's split key reads
// sycl_used_aspects only).
void function_declared_aspects(LLVMValueRef f, StringList *aspects);
void add_declared_aspects(LLVMValueRef f, const StringList *aspects);
// The dummy: F keeps its signature and linkage, its body becomes `ret` of zero.
void empty_function_body(LLVMValueRef f);

// split/stage.c: splits one bitcode image in a context of its own; *already_split (and OUT
// empty) when it carries the !sycl-split mark. Thread-safe. 0, or -1 with *errmsg.
int split_bitcode(const uint8_t *data, size_t size, const char *name, const SplitOptions *o,
                  SplitResult *out, bool *already_split, char **errmsg);
// The string keys of a split image: the input's keys with sycl-split set, and the
// virtual-function marks. *keys and every text in it are malloc'd (offload_strings_free).
void split_image_keys(const SplitImage *image, SplitMode mode, const OffloadString *input_keys,
                      size_t num_input_keys, OffloadString **keys, size_t *count);
// What a relink records of an image's split (tool/relink.c), one per image of the set before
// the split.
typedef struct {
  // In: "", or the recorded key of the split entry of an image without bytes (taken from a
  // relink record: its file was not read). Out, with a cache: the key of its split entry.
  char key[CACHE_KEY_SIZE];
  // An image without bytes: the file that holds them at OFFSET, read only when the entry is
  // missing or damaged (a file that no longer holds the recorded bytes there is an error).
  const char *path;
  uint64_t offset;
  bool split; // out: replaced by its split images (not left as it is)
} SplitEntryKey;
// split/stage.c: the link-time split stage: every user image without a sycl-split key or
// mark is split in parallel and replaced by its images (their bytes join inputs->files).
// KEYS (or NULL): one per image of INPUTS, as SplitEntryKey says.
void split_inputs(InputSet *inputs, const SplitOptions *o, int jobs, SplitEntryKey *keys);
// split/program.c: whole-program facts, read from every bitcode image of the link (in
// parallel; from CACHE for bitcode read before): which aspects each function reaches through
// direct calls and "calls-indirectly" sets in any unit.
typedef struct ProgramFacts ProgramFacts;
ProgramFacts *program_facts(const InputSet *inputs, const Cache *cache, int jobs);
// What program_facts reads of one module, serialized into OUT: the split stage computes it
// while the image's module is in memory, so that the facts stage need not parse it again.
void module_facts(LLVMModuleRef m, Buffer *out);
void program_facts_free(ProgramFacts *p);
// The aspects external function NAME reaches in the whole program (appended to OUT).
void program_aspects(const ProgramFacts *p, const char *name, StringList *out);
// ... and the aspects declared (sycl_declared_aspects) by it and what it calls directly.
void program_declared_aspects(const ProgramFacts *p, const char *name, StringList *out);
// Where the whole program decides otherwise than each unit's split did: an image whose
// kernels reach different aspects is split again by source; the images of one virtual-
// functions set from several units become one (and their dummies one); a device_image_scope
// global reached from two images is an error. With --split=none only the last two. P
// describes INPUTS as they are on entry. True when it changed INPUTS.
bool program_regroup(InputSet *inputs, const ProgramFacts *p, const SplitOptions *o, int jobs);
// A relink's facts (tool/relink_program.c): what one module's facts are, as a key (its
// serialized facts: InputImage.facts, or module M of P); whether P's results may be kept
// (nothing image-scope, not itself read back); P's results saved into OUT, and read back
// (NULL for anything damaged) as a ProgramFacts that program_aspects and
// program_declared_aspects read like P (nothing else: regroup does not run on it).
void module_facts_key(const uint8_t *facts, size_t size, char key[CACHE_KEY_SIZE]);
void program_module_key(const ProgramFacts *p, size_t m, char key[CACHE_KEY_SIZE]);
bool program_keeps(const ProgramFacts *p);
void program_facts_save(const ProgramFacts *p, Buffer *out);
ProgramFacts *program_facts_restore(const uint8_t *data, size_t size);
bool program_restored(const ProgramFacts *p);
// The same propagation within one module: its kernels and set functions get what they reach
// in M as sycl_used_aspects (DPC++'s aspect propagation), before M is grouped.
void propagate_aspects(LLVMModuleRef m);

#ifdef __cplusplus
}
#endif

#endif
