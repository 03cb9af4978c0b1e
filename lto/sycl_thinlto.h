// sycl-thinlto: the one header, and the table of contents of the tool.
// Sections follow the data flow of ARCHITECTURE.md; each names its file.
#ifndef SYCL_THINLTO_H
#define SYCL_THINLTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/blake3.h>
#include <uv.h>

#define TOOL_NAME "sycl-thinlto"
// The name messages begin with: TOOL_NAME, or "sycl-post-link" when run under that name
// (intel's tool's tests and users read its messages so).
extern const char *tool_name;
#define SPIRV_TRIPLE "spirv64-unknown-unknown"

#ifdef __cplusplus
extern "C" {
#endif

//
// lto/util.c — diagnostics, memory, files
//

// A byte buffer owned by whoever holds it: free(data), or buffer_free when it may be mapped.
typedef struct {
  uint8_t *data;
  size_t size;
  bool mapped; // a read-only mapping of a file (map_file), not malloc'd
} Buffer;

// A growable array of strings; small metadata, usually kept until exit.
typedef struct {
  char **items;
  size_t count, cap;
} StringList;

extern bool verbose; // -v: notes on stderr

// Bad input: "sycl-thinlto: error: WHAT: message"; recorded, not fatal.
void error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Bad input that stops the link now (main thread only): prints, cleans up, exits 1.
__attribute__((noreturn)) void fatal(const char *what, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
// Set by fuzz targets (test/fuzz/) only: fatal() calls it before exiting; it must not return.
extern void (*fatal_hook)(void);
void warning(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2))); // only with -v
void inform(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3))); // always
int error_count(void);
// Exits 1 if any error was recorded; called by the driver after each stage.
void exit_on_errors(void);
// Our own broken invariant: abort with file and line.
__attribute__((noreturn)) void die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
#define assert_that(c)                                                                             \
  do {                                                                                             \
    if (!(c)) die("assertion failed: %s", #c);                                                     \
  } while (0)

// lto/cleanup.c: paths removed if the process exits through fatal() or exit_on_errors(),
// or is ended by SIGINT, SIGTERM or SIGHUP; a directory is removed with the files in it.
void remove_on_failure(const char *path);
void keep_on_success(const char *path);
void remove_failure_paths(void); // exit_failure()'s
// lto/cleanup.c: children (PIDs) a signal must end with us, from their start until reaped.
void track_child(int pid);
void untrack_child(int pid);
// lto/cleanup.c: on SIGINT, SIGTERM or SIGHUP (unless ignored at start) the children get the
// signal (SIGKILL after 2 s), the paths are removed, and the process ends by the signal.
// Installed first thing in main; a child forked from us that is not us (the spawner)
// uninstalls it.
void install_signal_cleanup(void);
void uninstall_signal_cleanup(void);
// True once such a signal is being handled: nothing more is committed.
bool ending_by_signal(void);
// Exits wait here while a signal is handled, so the process ends by the signal.
void wait_while_ending(void);
// lto/cleanup.c: a crash (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE) cleans up as an
// ending signal does, then exits: 1 with "ORIGIN: malformed KIND: LLVM's KIND reader crashed
// on it (SIGSEGV)" if the crashing thread was reading an input through LLVM (between these
// two calls; KIND is "bitcode", "IR" or "object"), else EXIT_INTERNAL_ERROR with "internal
// error: SIGSEGV during STAGE". ORIGIN must live until reading_input_end. Not nested.
enum { EXIT_INTERNAL_ERROR = 70 }; // EX_SOFTWARE of <sysexits.h>
void reading_input_begin(const char *origin, const char *kind);
void reading_input_end(void);
// What the process is doing, for that message: a string literal ("link stage hooks").
void set_crash_stage(const char *stage);
// The calling thread's alternate signal stack (a crash by stack overflow needs one): given if
// it has none; signal_stack_end takes back what this thread was given (before it exits).
void signal_stack_begin(void);
void signal_stack_end(void);
// Unlinks the files of DIR whose names begin with PREFIX ("" for all); not subdirectories.
void remove_files_in(const char *dir, const char *prefix);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void strlist_push(StringList *l, char *s); // takes ownership of s
bool strlist_contains(const StringList *l, const char *s);
void strlist_free(StringList *l); // the strings and the array; L is left empty
// The items with SEP between them, NUL-terminated, malloc'd ("" for none).
char *strlist_join(const StringList *l, const char *sep);
// Appends the non-empty items of "a,b,c".
void strlist_split_commas(StringList *out, const char *list);
// "--name=value", "--name value", or the same with one dash: the value (pointing into ARG or
// argv), or NULL if ARG is another option. NAME is given without dashes.
const char *option_value(int argc, char **argv, int *i, const char *arg, const char *name);
void buffer_append(Buffer *b, const void *data, size_t n);

// 0, or a negative errno: -EISDIR for a directory, -ENODEV for a device (/dev/zero never
// ends). A FIFO is read to its end; one nobody writes to reads as empty, it does not hang.
int read_file(const char *path, Buffer *out);
// What read_file's negative errno RC means, for "FILE: <text>".
const char *read_error_text(int rc);
// True if both paths exist and name the same file (an output that would replace an input).
bool same_file(const char *a, const char *b);
// Maps a regular, non-empty file read-only: its pages are memory only while they are used
// (see buffer_drop_pages). The mapping outlives the file's name. 0, or a negative errno.
int map_file(const char *path, Buffer *out);
// Frees a malloc'd buffer or unmaps a mapped one; leaves *B empty.
void buffer_free(Buffer *b);
// A mapped buffer's pages leave the process's resident set (the next read brings them back
// from the page cache); any thread may read it meanwhile. Nothing for a malloc'd buffer.
void buffer_drop_pages(const Buffer *b);
// Writes PATH.tmp.PID.N then renames it over PATH: readers never see half a file. An
// existing non-regular PATH (/dev/null, a FIFO) is written in place instead.
int write_file_atomic(const char *path, const void *data, size_t size);
// The same, written piece by piece: open, write (errors are kept), commit or abort. The
// temporary is removed if the process exits through fatal().
typedef struct {
  int fd;
  char *tmp, *path;
  int error;
} AtomicFile;
int atomic_open(AtomicFile *f, const char *path);
int atomic_write(AtomicFile *f, const void *data, size_t size);
int atomic_commit(AtomicFile *f); // 0, or a negative errno (nothing is left behind)
void atomic_abort(AtomicFile *f);
// rename(TMP, PATH), except that an existing non-regular PATH (/dev/null, a FIFO) is written
// in place rather than replaced. 0, or a negative errno.
int replace_file(const char *tmp, const char *path);
double now_seconds(void);
// Hands the pages of freed heap memory back to the system (glibc keeps them otherwise,
// wherever a live block above them pins the heap): called after a stage frees much.
void release_free_memory(void);

// A hash table from string to pointer (FNV-1a, open addressing); keys are copied.
typedef struct {
  char **keys;
  void **values;
  size_t cap, count;
} StrMap;
void *strmap_get(const StrMap *m, const char *key);
void strmap_put(StrMap *m, const char *key, void *value);
void strmap_free(StrMap *m); // the copied keys and the tables; the values are the caller's

// Runs fn(arg, i) for every i in [0, n) on up to JOBS threads; returns when all are done.
// fn may only touch item i and thread-safe state (error(), note()).
void parallel_for(size_t n, int jobs, void (*fn)(void *arg, size_t i), void *arg);
// The value of -j / --jobs (OPTION names it in the error): 1 to MAX_JOBS, else fatal.
enum { MAX_JOBS = 1024 }; // libuv's thread pool holds at most 1024 threads
int parse_jobs(const char *option, const char *text);

//
// lto/trace.c — --time-trace (Chrome trace JSON) and --stats counters; thread-safe
//

enum { TRACE_WORKER_TID = 1000 }; // SPIR-V worker N is traced as thread 1000 + N

void trace_start(void); // on the main thread (its id is 0); nothing is recorded before
bool trace_enabled(void);
// A small id for the calling thread: 0 the main thread, 1, 2, ... the others.
int trace_thread_id(void);
// A complete span ("ph":"X") from START to END (now_seconds()) on thread TID; DETAIL may be NULL.
void trace_span(const char *name, const char *detail, double start, double end, int tid);
// {"traceEvents":[...]} for chrome://tracing or Perfetto, written atomically. 0, or -errno.
int trace_write(const char *path);

typedef enum {
  STAT_IMPORTS,          // functions ThinLTO imported that stayed as .__uniq. copies
  STAT_COMPLETION_LINKS, // definitions completion linked into images
  STAT_COUNT
} Stat;
void stats_add(Stat s, size_t n);
size_t stats_get(Stat s);

//
// lto/module_io.c — LLVM modules in and out, with diagnostics captured per context
//

// A context whose diagnostics are kept (never printed, never exit(1) as LLVM's default does).
LLVMContextRef context_create(void);
void context_dispose(LLVMContextRef ctx);
// The text of the last error diagnostic, or NULL.
const char *context_last_error(LLVMContextRef ctx);
// Parses bitcode (lazily: bodies materialized on demand). 0, or -1 with *errmsg.
int module_parse(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name, bool lazy,
                 LLVMModuleRef *out, char **errmsg);
Buffer module_write(LLVMModuleRef m);
// Runs the new pass manager's pipeline PASSES ("globaldce,...") on M: NULL, or why it failed
// (malloc'd).
char *run_passes(LLVMModuleRef m, const char *passes);
// The same for one function's pipeline (opt's -passes syntax, function passes) on F alone.
char *run_function_passes(LLVMValueRef f, const char *passes);
// The metadata node NAME attached to global object GV, as a value (operands readable), or
// NULL when it has none.
LLVMValueRef global_metadata_node(LLVMValueRef gv, const char *name);
// Every function, then every global variable, of M: the definitions and declarations that
// symbol tables, completion and checks walk (aliases and ifuncs are not included).
LLVMValueRef first_global_object(LLVMModuleRef m);
LLVMValueRef next_global_object(LLVMValueRef gv);
// A definition that is not local yet (internal, private, appending): one internalization may
// change. Which of them stay external is the caller's rule (finalization, full LTO).
bool is_internalizable(LLVMValueRef gv);
// Internal linkage, default visibility, no comdat.
void make_internal(LLVMValueRef gv);

//
// lto/cache.c — the incremental cache (issue 6)
//

enum { CACHE_KEY_SIZE = 65 }; // 64 hex digits of BLAKE3 and a NUL

typedef struct {
  uint8_t state[sizeof(llvm_blake3_hasher)];
} CacheHasher;

typedef struct {
  uint64_t prune_after;    // seconds an entry may stay unused (default 7 days)
  uint64_t prune_interval; // seconds between two prunings (default 20 minutes)
  uint64_t max_bytes;      // 0: no limit
  uint64_t max_files;      // 0: no limit
} CachePolicy;

typedef struct {
  char *dir;
  CachePolicy policy;
} Cache;

void cache_hash_init(CacheHasher *h);
void cache_hash_update(CacheHasher *h, const void *data, size_t size);
void cache_hash_string(CacheHasher *h, const char *s);
void cache_hash_final(CacheHasher *h, char key[CACHE_KEY_SIZE]);
// Every key begins with this: WHAT (the kind and its format version), this tool's version
// and the version of the libLLVM it runs on.
void cache_hash_tool(CacheHasher *h, const char *what);
// The content key of DATA: its hash alone, for keys derived from it.
void cache_content_key(const void *data, size_t size, char key[CACHE_KEY_SIZE]);
// The key of what WHAT derives from content alone: the tool's tag and CONTENT_KEY.
void cache_derived_key(const char *what, const char *content_key, char key[CACHE_KEY_SIZE]);
// lld-style: "prune_after=24h:cache_size_bytes=1g:cache_size_files=N:prune_interval=20m".
int cache_parse_policy(const char *text, CachePolicy *p, char **errmsg);
int cache_open(Cache *c, const char *dir, const CachePolicy *policy, char **errmsg);
// 0 and the value, or -1 for a miss (absent, truncated, corrupt, or written for another kind
// or key: a damaged entry is a miss).
int cache_get(const Cache *c, const char *kind, const char *key, Buffer *value);
// The reader of an entry's bytes: the payload's offset (and *payload_size), or -1 when they
// are not a whole, intact entry of KIND and KEY.
int cache_entry_payload(const char *kind, const char *key, const uint8_t *data, size_t size,
                        size_t *payload_size);
// Atomic: readers see the old entry or the whole new one. 0, or a negative errno.
int cache_put(const Cache *c, const char *kind, const char *key, const Buffer *value);
// cache_put for a link: an entry that cannot be written is a warning, the link goes on.
void cache_store(const Cache *c, const char *kind, const char *key, const Buffer *value);
void cache_prune(const Cache *c);
// Payloads of entries: records of a u64 length and bytes; string lists as a count and records.
void record_put(Buffer *b, const void *data, size_t size);
void record_put_strings(Buffer *b, const StringList *l);
typedef struct {
  const uint8_t *p, *end;
  bool bad; // set by the first read past the end; later reads return nothing
} RecordReader;
const uint8_t *record_get(RecordReader *r, size_t *size);
char *record_get_string(RecordReader *r); // malloc'd, or NULL
bool record_get_strings(RecordReader *r, StringList *l);

// SYCL property sets (intel's PropertySetIO model). The types live here because every
// image carries them from the hooks to the output; the code is in properties/.
typedef enum { PROP_UINT32 = 1, PROP_BYTES = 2 } PropertyType;

typedef struct {
  char *name;
  PropertyType type;
  uint32_t u32; // PROP_UINT32
  Buffer bytes; // PROP_BYTES: the raw bytes (no bit-count header; encoders add it)
} Property;

typedef struct {
  char *name; // "SYCL/devicelib req mask", ...
  Property *props;
  size_t count, cap;
} PropertySet;

typedef struct {
  PropertySet *sets;
  size_t count, cap;
} PropertySets;

//
// lto/offload_binary.c — OffloadBinary v1 (llvm/Object/OffloadBinary.h)
//

enum { IMG_NONE = 0, IMG_OBJECT, IMG_BITCODE, IMG_CUBIN, IMG_FATBINARY, IMG_PTX, IMG_SPIRV };
enum { OFK_OPENMP = 1, OFK_CUDA = 2, OFK_HIP = 4, OFK_SYCL = 8 };

typedef struct {
  const char *key, *value;
} OffloadString;

typedef struct {
  uint16_t image_kind, offload_kind;
  uint32_t flags;
  OffloadString *strings; // array owned by the entry; texts point into the parsed bytes
  size_t num_strings;
  const uint8_t *image; // points into the parsed bytes
  size_t image_size;
} OffloadEntry;

bool is_offload_binary(const uint8_t *data, size_t size);
// Parses one or more concatenated blobs. 0, or -1 with *errmsg (malloc'd) saying
// what is wrong and at which byte offset. *entries is malloc'd.
int offload_binary_parse(const uint8_t *data, size_t size, OffloadEntry **entries, size_t *count,
                         char **errmsg);
// Appends one v1 blob for E to OUT; strings are written in the order given.
void offload_binary_append(Buffer *out, const OffloadEntry *e);
const char *offload_entry_get(const OffloadEntry *e, const char *key);
// The texts and the array.
void offload_strings_free(OffloadString *strings, size_t count);
const char *image_kind_name(uint16_t kind); // "spirv", "bitcode", ...

//
// lto/archive.c — static archives (ar, GNU long-name table)
//

typedef struct {
  char *name;          // malloc'd
  const uint8_t *data; // points into the archive bytes
  size_t size;
} ArchiveMember;

bool is_archive(const uint8_t *data, size_t size);
// Regular members only (symbol tables and the long-name table are skipped).
int archive_parse(const uint8_t *data, size_t size, ArchiveMember **members, size_t *count,
                  char **errmsg);

//
// lto/input.c — every device image found in the inputs
//

typedef struct {
  char *origin;          // for messages: "a.o", "libx.a(m.o)", "blob.bin[1]"
  uint16_t image_kind;   // IMG_BITCODE for bitcode found bare or in an ELF
  uint16_t offload_kind; // OFK_SYCL when found bare
  char *triple, *arch;   // canonical triple
  OffloadString *keys;
  size_t num_keys;     // every string key the image came with
  bool keys_copied;    // the keys are the image's own copies, not pointers into input bytes
  const uint8_t *data; // the image bytes; they live as long as the input buffers
  size_t size;
  bool is_library; // --device-libs: supplies definitions, never emitted
  // What split/program.c reads of the image, when the link's split wrote it (else NULL):
  // serialized facts, living as long as the image's bytes.
  const uint8_t *facts;
  size_t facts_size;
  // Written by the link's split (split/stage.c): the canonical triple and data layout, and a
  // ThinLTO summary with the module hash. Prepare passes such an image on unchanged when it
  // has nothing to drop or mark (lto/prepare.c).
  bool link_ready;
} InputImage;

typedef struct {
  InputImage *items;
  size_t count, cap;
  Buffer *files; // the input files' bytes, kept until the link no longer needs them
  size_t num_files;
  // Set by a link before reading: a bitcode file named on the command line for another
  // target, and user images for two different SPIR-V targets (spir64_gen and spirv64), are
  // errors there; inspect lists what it finds and only notes what it skips.
  bool for_link;
  char *target, *target_origin; // for_link: the first user image's target, and where from
} InputSet;

// Adds the images of one file (any supported form). Errors are fatal.
void read_input_file(InputSet *set, const char *path, bool is_library);
// The same for a file's bytes, named ORIGIN in messages; the images point into DATA.
void read_input_bytes(InputSet *set, const char *origin, const uint8_t *data, size_t size,
                      bool is_library);
// Frees the first NUM_FILES files read, once the images are found (and split): every image
// keeps its own bytes and keys, the rest (host code, what a split replaced) goes.
void release_file_bytes(InputSet *set, size_t num_files);
// Frees the bytes of every file and image once the modules are prepared (origins and keys
// stay): the thin link works on the prepared copies.
void release_input_bytes(InputSet *set);
// An image owns its origin, triple, arch and key array, and the keys' texts once
// keys_copied. derive: a copy of IN's own strings, no keys and keys_copied set (an image made
// from IN: the keys that split_image_keys makes are its own). free: what it owns, not its bytes.
InputImage input_image_derive(const InputImage *in);
void input_image_free(InputImage *in);
// Every image, the files' bytes and the set's own strings.
void input_set_free(InputSet *set);
// Triples linked here: spirv64*, spir64* (canonicalized to SPIRV_TRIPLE).
bool is_spirv_triple(const char *triple);
const char *canonical_triple(const char *triple);
// The .llvm.offloading section of an ELF object, through llvm-c's object API.
// 0 with *section NULL when the object has none; -1 with *errmsg if not an object or the
// section is out of range or empty.
int elf_offloading_section(const uint8_t *data, size_t size, const uint8_t **section,
                           size_t *section_size, char **errmsg);

//
// lto/names.c — what a function's name and attributes say about it
//

// A builtin: provided by the backend, the runtime or the device (llvm.*, __spirv_*,
// __sycl_*, __esimd_*, __builtin_*, __devicelib_*, __clc_*, also mangled: _Z<n>__spirv_...).
// The one test of whether a name may stay undefined; the list and why is in lto/names.c.
bool is_builtin_name(const char *name);
// True if some function of M carries sycl-module-id: DPC++ IR, where that attribute alone
// marks SYCL_EXTERNAL functions. Upstream clang writes none.
bool module_has_module_ids(LLVMModuleRef m);
// A SYCL_EXTERNAL definition (not a kernel, not a builtin): with MODULE_IDS (its module's
// module_has_module_ids) one with sycl-module-id, else an externally visible spir_func.
bool is_sycl_external(LLVMValueRef f, bool module_ids);

//
// lto/symbols.c — symbol resolution over all images
//

typedef enum { DEF_NONE, DEF_STRONG, DEF_WEAK, DEF_LINKONCE } DefKind;

typedef struct {
  char *name;
  DefKind def; // DEF_NONE for a use
  bool is_function;
  bool is_kernel;        // spir_kernel definition
  bool is_external;      // SYCL_EXTERNAL-style: externally visible spir_func definition
  bool is_device_global; // a variable with "sycl-unique-id": the host reaches it by that id
} ModuleSymbol;

// One module taking part in the link: an input image or a device library.
typedef struct LinkModule {
  int index; // position in the link, also libLTO's module order
  const InputImage *input;
  char *id;                         // unique module identifier for libLTO
  char content_key[CACHE_KEY_SIZE]; // with a cache: its bitcode's hash (resolve_symbols)
  ModuleSymbol *symbols;
  size_t num_symbols;
  StringList kernels;        // its kernels, in module order
  StringList exported;       // SYCL_EXTERNAL definitions it prevails for
  StringList device_globals; // device globals it defines (kept external: the host uses them)
  bool emit;                 // produces an output image
  Buffer prepared;           // bitcode with a ThinLTO summary, ready for libLTO
  char *prepare_error;       // set by a worker in the prepare stage
  bool passed_on;            // prepared is the split's bitcode as it was (prepare.c)
  // Seed 002: an image without kernels holding an outlined "indirectly-callable" set (or the
  // set's dummy) is emitted with the set's functions as entry points; no other image gets
  // their definitions. A dummy resolves nothing, is no import source, skips libLTO.
  char *virtual_set;            // the set it holds, or NULL
  StringList virtual_functions; // its "indirectly-callable" definitions
  bool dummy;                   // SPLIT_DUMMY_KEY / SPLIT_DUMMY_METADATA
  int opt_level;                // the level it was compiled at (module_opt_level); -1: unknown
} LinkModule;

typedef struct {
  LinkModule *modules;
  size_t num_modules;
  StrMap prevailing;        // symbol name -> LinkModule* whose definition wins
  StringList must_preserve; // kernels (and exports) of emitted images
  StringList cross_referenced;
} Resolution;

// Reads every module's symbols (in parallel; from CACHE for bitcode read before), then
// resolves them. Under AOT (no set images: kernel images are self-contained) a module
// defining "indirectly-callable" functions is an ordinary source of definitions.
// Duplicate strong definitions are errors naming both inputs.
void resolve_symbols(Resolution *r, InputSet *inputs, bool allow_dependencies, bool aot,
                     const Cache *cache, int jobs);
// Everything resolve_symbols and the prepare stage allocated; not the inputs.
void resolution_free(Resolution *r);

//
// lto/prepare.c + lto/bridge.cpp — every module made ready for the thin link
//

// Canonical triple, overridden weak definitions dropped, entry points marked with the aspects
// they reach in PROGRAM (may be NULL), written with a summary. With a cache, a module whose
// bytes, dropped definitions and marks are unchanged is not redone.
struct ProgramFacts;
void prepare_modules(Resolution *r, const struct ProgramFacts *program, const Cache *cache,
                     int jobs);
// The triple libLTO links (SPIRV_TRIPLE) and its data layout, unless M has it already.
void set_canonical_triple(LLVMModuleRef m);

// bridge.cpp: llvm-c cannot build or write a ThinLTO module summary.
// Writes M as bitcode with a summary into *out (malloc'd). 0, or -1 with *errmsg.
int bridge_write_bitcode_with_summary(LLVMModuleRef m, Buffer *out, char **errmsg);
// bridge.cpp: a function or variable definition becomes an external declaration.
void bridge_make_declaration(LLVMValueRef gv);
// bridge.cpp: llvm-c reads attributes of functions and call sites only, not of global
// variables. True if GV has the string attribute NAME; *value (not NUL-terminated) and *len
// then point into LLVM's storage.
bool bridge_global_attribute(LLVMValueRef gv, const char *name, const char **value, size_t *len);
// bridge.cpp: llvm-c cannot set TargetOptions::UseInitArray. TM then emits llvm.global_ctors
// and llvm.global_dtors as .init_array.N/.fini_array.N (run by every ELF linker, lld too)
// instead of .ctors.N/.dtors.N.
void bridge_use_init_array(LLVMTargetMachineRef tm);
// bridge.cpp: llvm-c cannot read a bitcode file's LTO form (llvm::getBitcodeLTOInfo).
// 0 and *is_thinlto (it has a ThinLTO summary), or -1 if DATA is not bitcode.
int bridge_bitcode_is_thinlto(const uint8_t *data, size_t size, bool *is_thinlto);
// bridge.cpp: LLVM failing to allocate (a malformed input's sizes) is fatal(), not abort().
void bridge_handle_bad_alloc(void);

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
// finished by the hooks, all of them are sources for completion, which SOURCES (initialized
// here, freed with completion_sources_free) indexes. Indexing reads every module, so it is
// also where a damaged ThinLTO cache entry shows: the link is then redone without them.
struct CompletionSources;
void thin_link(Resolution *r, const ThinLinkOptions *opts, Buffer *optimized,
               struct CompletionSources *sources);

//
// hooks/ — the pre-codegen hook, per image, in parallel
//

typedef enum { SPIRV_BACKEND, SPIRV_TRANSLATOR } SpirvTool;

typedef struct {
  int jobs;
  SpirvTool tool;
  const char *llvm_spirv; // --llvm-spirv
  bool validate;          // spirv-val unless --no-validate
  bool allow_dependencies;
  bool stats;                    // --stats: count imports and completion links
  int opt_level;                 // the optLevel property where the modules do not say (-O)
  const char *save_temps_prefix; // "out" -> out.<i>.opt.bc, out.<i>.linked.bc, out.<i>.spv
  const Cache *cache;            // --cache-dir, or NULL
  struct OutputWriter *output;   // told of each image that is done, or NULL
} HookOptions;

// The result for one output image.
typedef struct {
  const LinkModule *module;
  Buffer spirv;
  StringList symbols;      // kernel names
  StringList imports;      // what the SPIR-V still imports
  PropertySets properties; // runtime metadata, computed on the finalized module (issue 4)
  char *error;             // recorded by whoever failed; reported by the stage
} ImageResult;

// hooks/hook.c: completion and finalization on the libuv thread pool, then SPIR-V
// generation on the worker processes; results[i] for every emitted module.
// SOURCES are the indexed completion sources (thin_link's, or index_definitions').
void run_hooks(Resolution *r, Buffer *optimized, const struct CompletionSources *sources,
               const HookOptions *opts, ImageResult *results);
// Images the last run_hooks took whole from the --cache-dir cache (for --stats).
extern size_t hook_cache_hits;

// hooks/complete.c: where completion finds definitions: the post-ThinLTO modules,
// whose names match what the backends left behind (promoted locals included).
typedef struct CompletionSources {
  const Buffer *bitcode; // every module's post-ThinLTO bitcode
  size_t num_modules;
  StrMap provider; // symbol -> (index + 1) of the module whose definition is linked
  char (*content_key)[CACHE_KEY_SIZE]; // with a cache: each module's bitcode hash, else NULL
} CompletionSources;

// Reads every module's external definitions (in parallel) and picks a provider for each.
// With CACHE, also hashes each module into s->content_key, and keeps each module's list of
// definitions there: a relink parses only the modules that changed.
// Returns how many modules did not read as bitcode (they provide nothing).
size_t index_definitions(CompletionSources *s, const Resolution *r, const Cache *cache, int jobs);
// The provider map and content keys; not the bitcode, which the caller owns.
void completion_sources_free(CompletionSources *s);
// Links into M the provided definition of every declaration, and everything those need,
// until nothing more can be found. Thread-safe for distinct contexts. 0, or -1 with *errmsg.
int complete_module(LLVMModuleRef m, const CompletionSources *s, char **errmsg);
// The same, also listing in LOOKED_UP every name it searched a provider for (the image
// cache's dependencies: the result depends on exactly those names' providers).
int complete_module_recording(LLVMModuleRef m, const CompletionSources *s, StringList *looked_up,
                              char **errmsg);

// hooks/image_cache.c: a finished image (SPIR-V, symbols, imports, properties) cached under
// a key of its post-ThinLTO bitcode (CONTENT_KEY, the hash the definitions index took) and
// the options (and the input module's own opt level, which optLevel follows), valid while
// every name completion looked up still has a provider with the same content.
void image_cache_key(const char *content_key, const HookOptions *opts, int module_opt_level,
                     char key[CACHE_KEY_SIZE]);
bool image_cache_lookup(const Cache *c, const char *key, const CompletionSources *s,
                        ImageResult *out);
void image_cache_store(const Cache *c, const char *key, const StringList *looked_up,
                       const CompletionSources *s, const ImageResult *res);

// hooks/finalize.c: internalizes all but the entry points and removes what is dead.
// With OPT_LEVEL > 0 it also runs the light post-link pipeline (inline, SROA, CSE,
// instcombine, simplifycfg) that is all the optimization a thin image gets after import.
int finalize_module(LLVMModuleRef m, const StringList *entry_points, int opt_level, char **errmsg);
// hooks/finalize.c: every device global M defines with a "sycl-unique-id" gets spirv.Decorations
// for HostAccessINTEL <access> "<id>" (SPV_INTEL_global_variable_host_access): the ID is how
// a runtime finds the variable in the SPIR-V (issue 16).
void decorate_host_access(LLVMModuleRef m);

// hooks/pool.c — long-lived worker processes, forked by the spawner (ARCHITECTURE fact 9).
// Loop-thread only: a worker process owns one request at a time; the loop owns the rest.
typedef struct WorkerPool WorkerPool;
// Called on the loop thread. On success errmsg is NULL and spirv is owned by the callee;
// on failure spirv is empty and errmsg (malloc'd, owned by the callee) says why.
typedef void (*CodegenDone)(void *arg, Buffer spirv, char *errmsg);
WorkerPool *worker_pool_start(uv_loop_t *loop, int num_workers, char **errmsg);
// Queues BITCODE (ownership passes to the pool) for SPIR-V generation.
void worker_pool_submit(WorkerPool *pool, Buffer bitcode, CodegenDone done, void *arg);
// Closes the workers' pipes once every submitted job has finished; the loop then ends.
void worker_pool_stop(WorkerPool *pool);

// hooks/spawner.c — the process that forks the pool's workers. spawner_start forks it; call
// it while the process has no other thread. 0, or a negative errno.
int spawner_start(void);
// Closes the spawner's socket and waits for it (and so for every worker's resource usage).
void spawner_stop(void);
// The linker's end of the spawner's socket, to poll for reports; -1 when not started.
int spawner_fd(void);
// Asks for worker SERIAL on FDS (its stdin, stdout, stderr; ours to close after). 0, or a
// negative errno (-ESRCH: the spawner has ended); whether it started comes as a report. A
// worker is killed when the spawner ends.
int spawner_spawn(unsigned serial, const int fds[3]);
// Kills worker SERIAL unless it has already been reaped.
void spawner_kill(unsigned serial);
// Reports from the spawner: STARTED (value: pid), FAILED (value: errno), EXITED (value:
// exit status, signal: the signal that ended it, or 0).
enum { SPAWNER_STARTED = 10, SPAWNER_FAILED = 11, SPAWNER_EXITED = 12 };
typedef struct {
  uint32_t kind, serial;
  int64_t value;
  int32_t signal;
} SpawnerMessage;
// The next report: 1, 0 if none is waiting, -EPIPE once the spawner has gone.
int spawner_receive(SpawnerMessage *m);

//
// spirv/ — SPIR-V generation and checks
//

// codegen.c: the SPIR-V backend, in process; codegen rewrites M. Not thread-safe (fact 9),
// and only the first call in a process is reliable: LLVM 22.1.8 keeps module state in a
// static (llvm/llvm-project#160613), so later calls can emit duplicate ids. Use the
// worker pool, which runs each module in a fresh fork. 0, or -1 with *errmsg.
int spirv_emit(LLVMModuleRef m, Buffer *out, char **errmsg);
// A SPIR-V worker, forked by hooks/spawner.c: serves codegen requests on stdin/stdout,
// each in a child forked for it; returns its exit status.
int worker_main(void);
// What every worker needs set up once (the target, the fatal-error handler): the spawner
// calls it before it forks any.
void spirv_worker_init(void);
// The SPIR-V extensions generated code may use (the backend's -spirv-ext, the
// translator's --spirv-ext); each is emitted only where a module needs it.
extern const char *const spirv_extensions;
// The worker protocol, served by codegen.c and spoken by hooks/pool.c: a WorkerFrame
// in host byte order, then SIZE payload bytes. Request WORKER_CODEGEN (bitcode);
// response WORKER_SPIRV (SPIR-V) or WORKER_ERROR (message text).
enum { WORKER_MAGIC = 0x57544c53, WORKER_CODEGEN = 1, WORKER_SPIRV = 2, WORKER_ERROR = 3 };
typedef struct {
  uint32_t magic, kind;
  uint64_t size;
} WorkerFrame;

// scan.c: names the module imports and exports (LinkageAttributes decorations).
int spirv_linkage(const uint8_t *data, size_t size, StringList *imports, StringList *exports,
                  char **errmsg);

// fixup.c: OpConstantNull of scalar integers becomes OpConstant 0 (see the file for why).
int spirv_fix_null_integers(Buffer *spirv, char **errmsg);

// host_access.c: SPV_INTEL_global_variable_host_access (issue 16). Takes its capability,
// extension and every HostAccessINTEL decoration out of SPIRV (tools that predate it reject
// the module: spirv-val 2023.1, spirv-link, llvm-spirv-15); with VARS, each decorated
// variable is appended to *vars / *count (malloc'd names). 0, or -1 with *errmsg.
typedef struct {
  uint32_t variable; // its result id
  char *name;        // the decoration's name: the device global's unique ID
} HostAccessVariable;
int spirv_strip_host_access(Buffer *spirv, HostAccessVariable **vars, size_t *count, char **errmsg);

// translator.c: an external SPIRV-LLVM-Translator.
// Checks that `PATH --version` reports our LLVM major. 0, or -1 with *errmsg, which
// leaves PATH for the caller to name. Blocking; any thread.
int translator_check_version(const char *path, char **errmsg);
typedef void (*TranslateDone)(void *arg, Buffer spirv, char *errmsg);
// Spawns `PATH INPUT_BC -o INPUT_BC.spv --spirv-ext=...` through libuv; loop thread only.
// DONE runs from a loop callback, never inside this call, with the SPIR-V (the .spv file
// is removed) or a message with the exit status and the translator's output.
void translator_submit(uv_loop_t *loop, const char *path, const char *input_bc, TranslateDone done,
                       void *arg);

// validate.c: SPIRV-Tools' validator (what spirv-val runs) on SPIRV, in-process. 0, or -1
// with *errmsg carrying its message. Thread-safe.
int spirv_validate(const Buffer *spirv, char **errmsg);
// validate.c: runs ARGV (argv[0] looked up on PATH) to completion, stdin from /dev/null,
// stdout and stderr together into *output (malloc'd). *wait_status as from waitpid.
// Thread-safe. 0, or a negative errno when it cannot be started.
int run_tool(const char *const argv[], Buffer *output, int *wait_status);

//
// properties/ — SYCL runtime metadata (intel's PropertySetIO model); issue 4
//

// properties/propset.c: building, and the two encodings (both round-trip).
void propsets_add_u32(PropertySets *p, const char *set, const char *name, uint32_t value);
void propsets_add_bytes(PropertySets *p, const char *set, const char *name, const void *data,
                        size_t size);
const Property *propsets_find(const PropertySets *p, const char *set, const char *name);
const PropertySet *propsets_find_set(const PropertySets *p, const char *set);
void propsets_remove(PropertySets *p, const char *set, const char *name); // if it is there
void propsets_free(PropertySets *p);
// Upstream JSON: {"Set": {"Name": 1 | "<standard base64>"}}; malloc'd text.
char *propsets_to_json(const PropertySets *p);
int propsets_from_json(const char *json, PropertySets *out, char **errmsg);
// intel's .prop text: "[Set]" then "Name=1|42" or "Name=2|<intel base64 of bitcount+bytes>".
char *propsets_to_prop(const PropertySets *p);
// Puts the sets in the order sycl-post-link writes them (JSON has them sorted), for diffs.
void propsets_order_as_intel(PropertySets *p);
int propsets_from_prop(const char *text, PropertySets *out, char **errmsg);
// Base64: standard (RFC 4648, '=' padded; the JSON values) and intel's variant (bits
// least-significant first, unpadded: 0x40 is "AB"; the .prop values). Decoders: 0 or -EINVAL.
char *base64_encode(const void *data, size_t size);
int base64_decode(const char *text, size_t len, Buffer *out);
char *base64_encode_intel(const void *data, size_t size);
int base64_decode_intel(const char *text, size_t len, Buffer *out);

// properties/resolver.c: the images the runtime links for a kernel (seeds 000 and 002).
typedef struct {
  const char *name;               // for messages and the cache key
  uint16_t image_kind;            // only images of the kernel's image's kind are candidates
  const StringList *symbols;      // kernels it defines
  const PropertySets *properties; // exported/imported symbols, virtual functions, ...
} ResolverImage;
// Fills *chosen with indices into IMAGES in a deterministic order and *cache_key with a
// stable key for that set. 0, or -1 with *errmsg naming every unresolved symbol.
int resolve_kernel_images(const ResolverImage *images, size_t count, const char *kernel,
                          const StringList *device_aspects, size_t **chosen, size_t *num_chosen,
                          char **cache_key, char **errmsg);
// SYCL aspect numbers: "fp64" -> 6, ...; a decimal number stands for itself. 0, or -1.
int aspect_value(const char *name, uint32_t *value);
const char *aspect_name(uint32_t value); // NULL when unnamed

// properties/compute.c: every property set of one finalized image (hooks/hook.c calls it in
// complete_work, on the job's own module). Sets, in intel's order: devicelib req mask, device
// requirements, exported/imported symbols (allow_dependencies only), misc properties, device
// globals, virtual functions, assert used.
typedef struct {
  const StringList *kernels;  // the image's kernels
  const StringList *exported; // its SYCL_EXTERNAL entry points (external only if allowed)
  bool allow_dependencies;    // --allow-device-image-dependencies: symbol tables are written
  bool dummy_image;           // SPLIT_DUMMY_KEY / SPLIT_DUMMY_METADATA: a set's dummy image
  int opt_level;              // optLevel: the input module's own level, else -O; -1: none
  // sycl-post-link's rules (split/post_link.c; false for the link): symbol tables and device
  // globals only where asked for, the exported symbols are ENTRY_POINTS' spir_func functions
  // in their order, imports need no sycl-module-id, no creates-virtual-functions-set, aspects
  // from !sycl_used_aspects only (none inferred from double/half).
  bool post_link;
  bool emit_exported, emit_imported, emit_device_globals;
  const StringList *entry_points; // the image's entry points, in module order
} PropertyInputs;
void compute_properties(LLVMModuleRef m, const PropertyInputs *in, PropertySets *out);
// The level a module's code was compiled at, for optLevel: "sycl-optlevel" (a kernel's first,
// then any definition's); else 0 when every kernel is optnone (clang -O0; a module without
// kernels: every definition); else -1. Read from the input: ThinLTO and finalization change
// the module after (symbols.c keeps it in LinkModule.opt_level).
int module_opt_level(LLVMModuleRef m);
// A set's dummy image: SPLIT_DUMMY_KEY "1" on the input, or SPLIT_DUMMY_METADATA in M.
bool is_dummy_image(const InputImage *input, LLVMModuleRef m);
// --check-imports: a warning for each imported symbol no image of this link exports.
void check_link_imports(const ImageResult *results, size_t count);
// A declaration the runtime must find in another image: not an intrinsic, not
// "indirectly-callable", not __-prefixed before or after demangling (__spirv_*, __sycl_*:
// intel's rule, for this property only) and, with MODULE_IDS (DPC++ IR), one that carries
// sycl-module-id.
bool is_importable_declaration(LLVMValueRef f, bool module_ids);
// intel's "__" rule alone: NAME begins with "__" before or after Itanium demangling.
bool is_implementation_name(const char *name);
// properties/devicelib.c: the mask bit of the fallback library providing NAME, or 0.
uint32_t devicelib_bit(const char *name);
size_t devicelib_table_size(void);
// The DPC++ device library (a --device-libs file, "libsycl-cmath.bc") whose C wrapper defines
// the libm-style NAME ("sqrtf") on top of __devicelib_NAME; NULL for any other name.
const char *devicelib_wrapper_library(const char *name);

//
// split/ — early device-code split (issue 3): per kernel / per source, SYCL_EXTERNAL entry
// points, virtual-function sets; at compile time (`split`) or per input at link time
//

typedef enum { SPLIT_KERNEL, SPLIT_SOURCE, SPLIT_AUTO, SPLIT_NONE } SplitMode;

struct SplitImage;
// A consumer of the split modules (split/post_link.c): called with each image's module, which
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
  bool canonical_triple; // the link's split: images get set_canonical_triple (link_ready)
} SplitOptions;

// How split images are marked; properties/ (issue 4) reads the same marks.
// OffloadBinary string keys of every split image:
#define SPLIT_KEY "sycl-split" // the mode: kernel, source, auto or none
// ...of an image holding one outlined virtual-function set, and of its dummy copy:
#define SPLIT_VF_SET_KEY "sycl-virtual-functions-set" // the set's name
#define SPLIT_DUMMY_KEY "sycl-dummy-image"            // "1" on the dummy image only
// The same marks in the module, for bitcode that lost its keys (clang-linker-wrapper):
// named metadata !sycl-split = !{!{!"<mode>"}} on every split module, and
// !sycl-dummy-image = !{!{!"<set>"}} on a dummy image. The outlined set's functions keep
// their "indirectly-callable"="<set>" attribute; other images only declare them.
#define SPLIT_MODE_METADATA "sycl-split"
#define SPLIT_DUMMY_METADATA "sycl-dummy-image"

typedef struct SplitImage {
  Buffer bitcode;      // written with a ThinLTO summary (empty with SplitOptions.emit)
  StringList kernels;  // in module order
  StringList exported; // SYCL_EXTERNAL (and outlined virtual) functions it defines for others
  StringList entries; // its group's entry points (kernels, SYCL_EXTERNAL, virtual), in module order
  char *virtual_set;  // the outlined "indirectly-callable" set, or NULL
  bool dummy;         // the set's functions with empty bodies
  Buffer facts;       // SplitOptions.facts: module_facts of the image as written
} SplitImage;

typedef struct {
  SplitImage *images;
  size_t count;
} SplitResult;

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
// split/stage.c: the link-time split stage: every user image without a sycl-split key or
// mark is split in parallel and replaced by its images (their bytes join inputs->files).
void split_inputs(InputSet *inputs, const SplitOptions *o, int jobs);
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
// Where the whole program decides otherwise than each unit's split did: an image whose
// kernels reach different aspects is split again by source; the images of one virtual-
// functions set from several units become one (and their dummies one); a device_image_scope
// global reached from two images is an error. With --split=none only the last two. P
// describes INPUTS as they are on entry.
void program_regroup(InputSet *inputs, const ProgramFacts *p, const SplitOptions *o, int jobs);
// The same propagation within one module: its kernels and set functions get what they reach
// in M as sycl_used_aspects (DPC++'s aspect propagation), before M is grouped.
void propagate_aspects(LLVMModuleRef m);
// split/command.c: `sycl-thinlto split`.
int split_main(int argc, char **argv);
// split/post_link.c: `sycl-thinlto post-link`, or argv[0] ending in sycl-post-link: intel's
// sycl-post-link command line and output files over split_module and compute_properties.
int post_link_main(int argc, char **argv);

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

//
// lto/output.c — the linked images as OffloadBinary blobs
//

// Opened before the hooks, which call output_ready as each image is done; output_commit
// writes what is left and renames the file into place (fatal on error). A failed link
// exits without committing, and the temporary is removed.
typedef struct OutputWriter {
  AtomicFile file;
  const char *arch;
  ImageResult *results;
  size_t count, next; // results [0, next) are written, their SPIR-V freed
  bool *ready;
  bool streaming; // a regular file: images go out as soon as their turn comes
} OutputWriter;
void output_open(OutputWriter *w, const char *path, const char *arch, ImageResult *results,
                 size_t count);
void output_ready(OutputWriter *w, size_t image); // loop thread
void output_commit(OutputWriter *w);

//
// wrap/ — the host side: the wrapper object and the clang-linker-wrapper personality
//

// wrap/wrap.c: one __sycl.tgt_device_image (v3) per image with its offload entries and
// its property sets in the DPC++ layout, a __sycl.tgt_bin_desc (v1), and the ctor/dtor
// calling __sycl_register_lib / __sycl_unregister_lib, emitted as a host object.
typedef struct {
  const char *host_triple; // NULL: LLVM's default triple (x86-64 only)
  const char *compile_options, *link_options;
} WrapOptions;
// PROPERTIES[i] belongs to IMAGES[i]. 0, or -1 with *errmsg.
int write_wrapper_object(const char *path, const OffloadEntry *images,
                         const PropertySets *properties, size_t count, const WrapOptions *o,
                         char **errmsg);
// The SYCL images of OffloadBinary FILES, properties decoded from their `properties` key.
// Entry texts point into (*bytes)[file]. 0, or -1 after error() naming the file.
int read_images_to_wrap(const StringList *files, OffloadEntry **images, PropertySets **properties,
                        size_t *count, Buffer **bytes);
int wrap_main(int argc, char **argv); // `sycl-thinlto wrap IMAGES -o wrapper.o`

// wrap/register_host.c: seed 004's "custom host compiler" pass. Every global variable
// DEFINED in M with "sycl-unique-id" and "sycl-uid-kind" is registered by one internal
// constructor, first in llvm.global_ctors at priority HOST_REGISTRATION_PRIORITY (or lower, to
// stay first): __register_uniquely_identifiable_object(&var, "<id>", "<kind>"). A registered
// variable gets HOST_REGISTERED_METADATA, so a second run (or a module linked from processed
// ones) registers nothing twice. *registered: how many calls it added. 0, or -1 with *errmsg.
#define HOST_REGISTRATION_FUNCTION "__register_uniquely_identifiable_object"
#define HOST_REGISTRATION_CTOR "sycl.register_uniquely_identifiable_objects"
#define HOST_REGISTERED_METADATA "sycl.uid.registered"
enum { HOST_REGISTRATION_PRIORITY = 1 };
int register_host_objects(LLVMModuleRef m, size_t *registered, char **errmsg);
// The pass on bitcode DATA (NAME for messages) into *out, in the LTO form it came in (a
// ThinLTO module keeps a summary). Nothing to register: *out is a copy of DATA, byte for byte.
// Its own context; thread-safe. 0, or -1 with *errmsg.
int register_host_bitcode(const uint8_t *data, size_t size, const char *name, Buffer *out,
                          size_t *registered, char **errmsg);
// LLVM bitcode (raw or in the 0x0B17C0DE wrapper), by its magic number.
bool is_llvm_bitcode(const uint8_t *data, size_t size);
// The device code a host-LTO bitcode module embeds (clang -fsycl -flto: the initializer of its
// global in section .llvm.offloading), appended to *out. 0 (*out untouched when there is
// none), or -1 with *errmsg.
int host_bitcode_offloading(const uint8_t *data, size_t size, const char *name, Buffer *out,
                            char **errmsg);
int register_host_main(int argc, char **argv); // `sycl-thinlto register-host IN.bc -o OUT.bc`

// wrap/linker_wrapper.c: `sycl-thinlto wrapper`, or argv[0] ending in clang-linker-wrapper:
// clang-linker-wrapper 22's command line; device link, wrap, then the host linker.
int linker_wrapper_main(int argc, char **argv);

//
// lto/inspect.c, lto/driver.c — subcommands
//

int inspect_main(int argc, char **argv);
int link_main(int argc, char **argv);
// argv[0] ends in clang-sycl-linker: clang-sycl-linker 22's command line.
int clang_sycl_linker_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
