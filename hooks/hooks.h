// hooks/ — the pre-codegen hook, per image and in parallel: completion, finalization,
// properties, SPIR-V on worker processes, checks. Nothing here decides what is linked.
#ifndef SYCL_THINLTO_HOOKS_H
#define SYCL_THINLTO_HOOKS_H

#include "formats/formats.h"
#include "spirv/spirv.h"

#ifdef __cplusplus
extern "C" {
#endif

//
// The link's modules, as symbol resolution (lto/symbols.c) fills them and the hooks read them
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
  StringList lost;           // its strong and weak definitions that another module's beat
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
  // A relink's (tool/relink_program.c): a key of everything the resolution was computed
  // from, or "": what the definitions index keeps its providers under, with the modules.
  char kept_key[CACHE_KEY_SIZE];
} Resolution;

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
  bool emit_program_metadata, emit_kernel_names; // SYCL/program metadata, SYCL/kernel names
  int spec_const; // SpecConstMode (hooks/spec_constants.c): how each image's are lowered
  bool stats;                    // --stats: count imports and completion links
  int opt_level;                 // the optLevel property where the modules do not say (-O)
  const char *save_temps_prefix; // "out" -> out.<i>.opt.bc, out.<i>.linked.bc, out.<i>.spv
  const Cache *cache;            // --cache-dir, or NULL
  // --distributor (hooks/distribute.c): each image not served by the cache is completed
  // here, then finalized, emitted and checked by a job that PROGRAM DISTRIBUTOR_ARGS... runs
  // from a DTLTO job list; NULL for local workers.
  const char *distributor;
  const StringList *distributor_args;
  const char *remote_compiler; // the jobs' sycl-thinlto (--remote-compiler), or NULL: this one
  const char *jobs_dir;        // where the job list, inputs and outputs go (made by the hooks)
  const char *output;          // the link's -o, the job list's linker_output
  bool keep_jobs;              // --save-temps: the jobs' files stay
  // Called on the loop thread as images are done, their results final (the driver writes
  // them out): IMAGES, N of them (a relink's cache hits all at once), or NULL.
  void (*image_done)(void *arg, const size_t *images, size_t n);
  void *image_done_arg;
} HookOptions;

// The result for one output image.
typedef struct {
  const LinkModule *module;
  Buffer spirv;
  StringList symbols;      // kernel names
  StringList imports;      // what the SPIR-V still imports
  // Runtime metadata (issue 4), computed on the finalized module, as the output writes it: the
  // JSON of propsets_to_json. A cache hit keeps the text it stored; a reader of the sets
  // parses them (propsets_from_json), which few do (--check-imports, ahead of time).
  char *properties;
  char *error;             // recorded by whoever failed; reported by the stage
  bool from_cache;         // taken whole from the --cache-dir cache (for --stats)
} ImageResult;

// Frees what an ImageResult owns (not ERROR: the job that recorded it owns that). In
// hooks/backend.c, below both of its users (the link's hooks and a distributed job).
void image_result_free(ImageResult *r);
// The image's property sets, parsed from its JSON (which this link wrote: our bug if they do
// not read back).
void image_result_properties(const ImageResult *r, PropertySets *sets);

// hooks/hook.c: completion and finalization on the libuv thread pool, then SPIR-V
// generation on the worker processes; results[i] for every emitted module.
// SOURCES are the indexed completion sources (thin_link's, or index_definitions').
typedef struct CompletionSources CompletionSources;
void run_hooks(Resolution *r, Buffer *optimized, const CompletionSources *sources,
               const HookOptions *opts, ImageResult *results);

// hooks/complete.c: where completion finds definitions: the post-ThinLTO modules,
// whose names match what the backends left behind (promoted locals included).
struct CompletionSources {
  const Buffer *bitcode; // every module's post-ThinLTO bitcode
  size_t num_modules;
  StrMap provider; // symbol -> (index + 1) of the module whose definition is linked
  char (*content_key)[CACHE_KEY_SIZE]; // with a cache: each module's bitcode hash, else NULL
};

// Per module (arrays of the sources' num_modules): its linkable definitions, strong ones
// marked with '!' (a list given, or left for the caller to free), whether the list was given
// (then the module is not read), whether the module did not read as bitcode, and a given
// list's module's content key (then the module is not hashed either).
typedef struct {
  StringList *defined;
  const bool *given;
  bool *unreadable;
  char (*content_key)[CACHE_KEY_SIZE];
} DefinitionLists;

// Reads every module's external definitions (in parallel) and picks a provider for each.
// With CACHE, also hashes each module into s->content_key (the image cache's keys), or takes a
// given list's key. LISTS:
// NULL, or what is known of the modules and where the lists go (the thin link keeps them
// in its cache entries: lto/thinlto.c).
// Returns how many modules did not read as bitcode (they provide nothing).
size_t index_definitions(CompletionSources *s, const Resolution *r, const Cache *cache, int jobs,
                         const DefinitionLists *lists);
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

// hooks/backend.c: what an image's backend needs besides its completed module, the same
// whether the link runs it or a distributed job does (which reads it from a file).
typedef struct {
  char *module_id;            // the module's name as the link parsed it
  StringList entry_points;    // what finalization keeps external
  StringList exported;        // SYCL_EXTERNAL definitions it prevails for (properties)
  bool allow_dependencies;    // --allow-device-image-dependencies
  bool dummy_image;           // a set's dummy image (seed 002)
  int opt_level;              // finalization's: HookOptions.opt_level
  int property_opt_level;     // the optLevel property: the module's own level where known
  bool validate;              // spirv-val on the SPIR-V
  bool emit_program_metadata; // SYCL/program metadata
  bool emit_kernel_names;     // SYCL/kernel names
  StringList allowed_imports; // a job's: the functions of the link's sets (seed 002)
} ImageSpec;
void image_spec_make(const LinkModule *lm, const HookOptions *opts, bool dummy_image,
                     ImageSpec *spec);
void image_spec_free(ImageSpec *spec);
// A declaration a finalized image leaves undefined, with the image's kernels that reach it
// (for "undefined symbol" messages).
typedef struct {
  char *name;
  StringList kernels;
  bool declared; // a used declaration of the program's own (sycl-module-id): an undefined
                 // symbol whatever the SPIR-V imports
} UndefinedUse;
typedef struct {
  UndefinedUse *items;
  size_t count;
} UndefinedUses;
// Takes NAME and KERNELS (which it leaves empty).
void undefined_uses_push(UndefinedUses *u, char *name, StringList *kernels, bool declared);
const UndefinedUse *undefined_uses_find(const UndefinedUses *u, const char *name);
void undefined_uses_free(UndefinedUses *u);
// Finalization of a completed module (finalize_module with the spec's entry points).
int finalize_image_module(LLVMModuleRef m, const ImageSpec *spec, char **errmsg);
// On the finalized module: res->symbols, the declarations left over in *undefined,
// res->properties, the host-access decorations. The module is then ready for codegen.
void describe_image(LLVMModuleRef m, const ImageSpec *spec, ImageResult *res,
                    UndefinedUses *undefined);

// hooks/distribute.c — the images' backends as jobs of a DTLTO distributor (issue 26): the
// link writes each job's files, a job list in DTLTO's JSON layout, runs the distributor on it
// and reads every job's result back. Runs on the calling thread except where it says.
typedef struct Distribution Distribution;
// PROGRAM found on PATH, else beside this tool (unless it has a /), an executable regular file: its
// absolute path (malloc'd), or NULL with *errmsg.
char *distributor_resolve(const char *program, char **errmsg);
// Makes OPTS->jobs_dir (removed on failure, and at close unless OPTS->keep_jobs), for jobs of
// images 0 to IMAGES - 1.
Distribution *distribution_open(const HookOptions *opts, const char *linker_output, size_t images);
// Any thread: image IMAGE's job inputs, its completed module M and SPEC, added to a job of
// several images (the calling thread's while it fills it); the result must later name the
// hashes of exactly these. 0, or -1 with *errmsg.
int distribution_write_job(Distribution *d, size_t image, LLVMModuleRef m, const ImageSpec *spec,
                           char **errmsg);
// Runs the distributor once on the jobs of IMAGES (their old outputs removed first; from the
// second attempt on, one job for each image), with the link's SIGINT/SIGTERM passed on to it. 0, or -1 with *errmsg: it could not run, was killed
// or exited non-zero (its output's tail is in the message).
int distribution_run(Distribution *d, const size_t *images, size_t count, unsigned attempt,
                     char **errmsg);
// What a job's result says beyond the image itself.
typedef struct {
  bool validated;          // the job ran spirv-val (not where the link's import check fails first)
  UndefinedUses undefined; // as describe_image's
  char *image_error;       // the image's own error, as the local path words it (no kernels)
  char *job_failure;       // the job failed and may run again: why, with its stderr
} JobOutcome;
// Any thread: image IMAGE's result (its job's result file read once), verified: made from
// this link's input and spec for IMAGE, its SPIR-V as the job wrote it, its kernels the
// image's (RES->module's).
// 0: RES holds the image (or OUT->image_error is set); -1: OUT->job_failure says why.
int distribution_read(Distribution *d, size_t image, ImageResult *res, JobOutcome *out);
void job_outcome_free(JobOutcome *out);
// Removes the jobs' files unless they are kept; frees D. With FAILED, the distributor's
// last log is kept beside the link's output first (OUTPUT.distributor.log), and said so.
void distribution_close(Distribution *d, bool failed);
// `sycl-thinlto backend`: one job, its files named on its command line: for each of its
// images, finalizes, describes, emits SPIR-V in this process (once: fact 9), fixes, scans,
// validates; then writes one result file, PREFIX.result. Its stderr goes to LOG. Returns the
// process's exit status.
int backend_job_main(const char *meta_path, const char *bitcode_path, const char *out_prefix,
                     const char *log_path);
// hooks/job_faults.c, tests only: SYCL_THINLTO_JOB_FAULT_TEST=KIND:NAME,... makes the job of
// the image whose bitcode holds NAME fail at POINT. A no-op without the variable.
typedef enum {
  JOB_FAULT_START,   // the input read: kill, kill-once, sleep
  JOB_FAULT_SPIRV,   // the SPIR-V about to be vouched for: empty
  JOB_FAULT_WRITTEN, // the result written: damage (its SPIR-V changes after)
} JobFaultPoint;
typedef struct {
  const Buffer *bitcode;   // the job's input
  const char *out_prefix;  // its -o
  Buffer *spirv;           // at JOB_FAULT_SPIRV
  const char *result_path; // at JOB_FAULT_WRITTEN
} JobFaultSite;
void job_fault(JobFaultPoint point, const JobFaultSite *site);

// hooks/finalize.c: internalizes all but the entry points and removes what is dead.
// With OPT_LEVEL > 0 it also runs the light post-link pipeline (inline, SROA, CSE,
// instcombine, simplifycfg) that is all the optimization a thin image gets after import.
int finalize_module(LLVMModuleRef m, const StringList *entry_points, int opt_level, char **errmsg);
// hooks/finalize.c: every device global M defines with a "sycl-unique-id" gets spirv.Decorations
// for HostAccessINTEL <access> "<id>" (SPV_INTEL_global_variable_host_access): the ID is how
// a runtime finds the variable in the SPIR-V (issue 16).
void decorate_host_access(LLVMModuleRef m);

// hooks/spec_constants.c: SYCL 2020 specialization constants (and llvm.sycl.alloca arrays sized
// by one), lowered per image as intel's SpecConstantsPass does: NATIVE (SPIR-V specialization constants, IDs from 0 in each image),
// EMULATION (loads from the buffer the runtime passes), DEFAULTS (the default values). Writes
// !sycl.specialization-constants and !sycl.specialization-constants-default-values (not for
// DEFAULTS), which compute_properties turns into the property sets. LINK_ORDER (the link):
// constants numbered and laid out in the order of their names (the order of the JSON the
// runtime gets them in), a padding element of a composite passed as zero, not undef (LLVM's
// SPIR-V backend needs a value); without it, intel's order and undef, and intel's unfolded
// instruction shapes (the front's emulated reads, the default image's bool).
typedef enum {
  SPEC_CONST_NONE,
  SPEC_CONST_NATIVE,
  SPEC_CONST_EMULATION,
  SPEC_CONST_DEFAULTS
} SpecConstMode;
bool module_uses_spec_constants(LLVMModuleRef m);
// 0 (*changed: some call was lowered), or -1 with *errmsg.
int lower_spec_constants(LLVMModuleRef m, SpecConstMode mode, bool link_order, bool *changed,
                         char **errmsg);

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


// hooks/aot.c — ahead-of-time compilation for Intel GPUs through ocloc (issue 33)

typedef struct {
  char *asked;      // as the --arch list spells it: "intel_gpu_acm_g10", "pvc", "dg2-g10"
  char *name;       // LLVM's --offload-arch spelling: "acm_g10"; the output's arch
  char *target;     // intel's device target: "intel_gpu_acm_g10" (compile_target, aspects)
  char *ocloc_name; // the installed ocloc's: "acm-g10"
} AotDevice;

typedef struct {
  AotDevice *devices;
  size_t num_devices;
  bool spirv;                        // "spirv" in the list too: the SPIR-V images are kept
  char *ocloc;                       // the program, found
  StringList options;                // --ocloc-options, one argument each
  char identity[CACHE_KEY_SIZE];     // the installed ocloc, in every cache key
} AotPlan;

// The --arch list ARCH ("pvc,acm_g10,spirv"): 1 with *PLAN when it names Intel GPUs, 0 when
// it names none (an arch only recorded in the output, as "generic"). OCLOC: --ocloc=PATH or
// NULL (ocloc on PATH); OCLOC_OPTIONS: the --ocloc-options given. Fatal for a device the
// installed ocloc does not know, a CPU (opencl-aot), a list mixing GPUs and other names.
int aot_plan(const char *arch, const char *ocloc, const StringList *ocloc_options, AotPlan *plan);
// Every device's aspects (their union) appended to ASPECTS, for the AOT split; false (nothing
// appended) if a device is missing from the target table.
bool aot_device_aspects(const AotPlan *plan, StringList *aspects);
// The devices as --arch lists, one per set of aspects ("pvc,spirv", "acm_g10"): each set
// needs a link of its own, as intel's driver runs a device compilation per target, since the
// AOT split keeps what the device can run (a virtual-function set using fp64 is in pvc's
// images, not in acm_g10's). 'spirv' is a group of its own, "": JIT's split (sets outlined,
// dummy images), not a device's.
void aot_aspect_groups(const AotPlan *plan, StringList *groups);
void aot_plan_free(AotPlan *plan);

typedef struct {
  int jobs;
  const Cache *cache;
  const char *distributor; // each ocloc run a DTLTO job of this distributor, or NULL
  const StringList *distributor_args;
  const char *output;      // the link's -o: messages, and where distributed jobs' files go
  bool keep_files;         // --save-temps: the images' .spv and .bin files stay
} AotOptions;

typedef struct {
  size_t image, device; // RESULTS' index, the plan's device
  Buffer native;        // ocloc's output (a zebin)
  bool from_cache;
  char key[CACHE_KEY_SIZE];
  char *error;
} AotImage;

// Every result's SPIR-V compiled for every device of PLAN that can run it (the others leave
// the image out, as intel's per-target tables do), through the cache, in parallel or as
// distributed jobs. Returns the native images (*COUNT of them) in image, then device order;
// ocloc's failures are reported and the link ends.
AotImage *aot_compile(const AotPlan *plan, const AotOptions *o, const ImageResult *results,
                      size_t num_results, size_t *count);

// hooks/check_imports.c: --check-imports: a warning for each imported symbol no image of this link exports.
void check_link_imports(const ImageResult *results, size_t count);

#ifdef __cplusplus
}
#endif

#endif
