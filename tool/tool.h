// tool/ — the commands on top: main and its subcommands, each parsing its options and calling
// the stages below in data-flow order. Nothing else calls into tool/.
#ifndef SYCL_THINLTO_TOOL_H
#define SYCL_THINLTO_TOOL_H

#include "lto/lto.h"
#include "wrap/wrap.h"

//
// tool/options.c — what every command's option parser shares
//

// "--name=value", "--name value", or the same with one dash: the value (pointing into ARG or
// argv), or NULL if ARG is another option. NAME is given without dashes.
const char *option_value(int argc, char **argv, int *i, const char *arg, const char *name);
// "--name=value" or "-name=value" only: the value, or NULL. For options whose value must be
// joined (lld's --threads=, --thinlto-cache-dir=, ...), so that no input is taken as a value.
const char *joined_value(const char *arg, const char *name);
// The value of -j / --jobs (OPTION names it in the error): 1 to MAX_JOBS, else fatal.
enum { MAX_JOBS = 1024 }; // libuv's thread pool holds at most 1024 threads
int parse_jobs(const char *option, const char *text);
// Opens a standard descriptor the parent left closed on /dev/null (so that no file of ours
// becomes fd 0, 1 or 2), noting whether standard output was one of them. First in main.
void open_standard_descriptors(void);
// Fatal "standard output is closed" if it was: for what prints its result there (inspect,
// post-link's "-o -", --help, --version, distribute-local --count), which would vanish.
void require_standard_output(void);
// A command's --help: USAGE on standard output (require_standard_output first, flushed and
// checked: some callers exit(0) past main's check); 0.
int print_help(const char *usage);
// "-o -": fatal for a command that writes files only (post-link alone writes its tables to
// standard output on purpose); a file named '-' is ./-.
void refuse_stdout_output(const char *output);
// --aot-aspects=a,b,...: the names (or numbers) appended to ASPECTS; an unknown name is fatal
// (it would match nothing and silently change which images are made).
void parse_aspects(const char *option, const char *list, StringList *aspects);
// `sycl-thinlto 0.1.0 (LLVM 22.1.8)` on stdout: what --version prints on every command
// (require_standard_output first, flushed and checked).
void print_version(void);
// Whether ARGV (argv[0] a command's name) holds --version before any "--": every command and
// every name the tool runs under answers it before reading its other options.
bool asks_for_version(int argc, char **argv);

// `@FILE` arguments replaced by the arguments FILE holds, read as clang and lld read them on
// Linux (GNU quoting: blanks separate, "..." and '...' quote, a backslash escapes the next
// character; empty arguments dropped; nested @FILEs relative to the working directory, at
// most 20 deep), for every command and every name, before any option is parsed. *argv is
// then a new array (the strings live until exit). A FILE that cannot be read, or that
// includes itself, is fatal.
void expand_response_files(int *argc, char ***argv);
// Appends ARG and a line break to a response file's text, quoted where it must be so that
// expand_response_files, clang, lld and GNU ld read it back unchanged (an empty argument
// excepted: clang and lld drop it).
void append_response_arg(Buffer *out, const char *arg);

//
// tool/reproduce.c — --reproduce=FILE.tar: the inputs and a response file in one archive
//

typedef struct {
  const char *path; // FILE.tar
  char *root;       // its top folder
  Buffer tar, response;
  StrMap files;     // absolute path (without the leading '/') -> archived name
  StringList names; // the archived names, owned
} Reproducer;
void reproducer_begin(Reproducer *r, const char *tar_path);
// Appends one argument to the response file.
void reproducer_arg(Reproducer *r, const char *arg);
// Archives the file at PATH (once); returns the name the response file gives it.
const char *reproducer_file(Reproducer *r, const char *path);
// Adds response.txt and version.txt and writes the archive; fatal if it cannot.
void reproducer_write(Reproducer *r);

//
// tool/progress.c — a link's progress on a terminal, one line that updates
//

// Whether to show it: stderr is a terminal (not TERM=dumb), no -v, no --no-progress.
bool progress_wanted(bool no_progress);
void progress_begin(bool on);
// A stage begins; IMAGES > 0: it finishes that many images (progress_image_done each).
void progress_stage(const char *stage, size_t images);
void progress_image_done(void);
// Clears the line (before the link's own output, or an exit).
void progress_end(void);

//
// tool/link.c — the link's options
//

// An option as the link's parser grouped it: argv[start..end] (one input when INPUT).
typedef struct {
  int start, end;
  bool input;
} ArgGroup;

//
// tool/relink.c — a link whose inputs are unchanged gives the last link's output again
//

// What the input stage found in one file, and where the split stage found each image's split
// entry: a relink takes a file whose identity is the record's from here, unread.
typedef struct {
  bool known;          // the file's images are below (else it is read whatever its identity)
  InputImage *images;  // without bytes (data NULL): origin, kinds, triple, keys, size
  SplitEntryKey *keys; // per image: its split entry's key, its offset in the file
  size_t count;
} RecordedFile;
void recorded_file_free(RecordedFile *f);

typedef struct {
  const Cache *cache;
  const char *output;
  const StringList *files; // every file the link reads: inputs, device libraries
  char key[CACHE_KEY_SIZE]; // the link's: the options that shape the output, the files' paths
  void *ids;                // each file's identity, taken by relink_begin
  int64_t started_ns;
  // The last record of the same key, when relink_reuse read one: each file's identity then
  // and its content key, and when those identities were taken. relink_record hashes only the
  // files whose identity differs from it.
  void *recorded;
  char (*recorded_keys)[CACHE_KEY_SIZE];
  int64_t recorded_ns;
  bool recordable; // every file regular, and the output there before the link
  // Per file: changed less than a second before the link (its identity cannot be trusted):
  // its content key is taken from the bytes the link read (read_keys, by the input stage),
  // not from the file after the link, and the next link hashes it again.
  bool *racy;
  char (*read_keys)[CACHE_KEY_SIZE];
  int jobs; // threads for the output's pieces: hashed, stored and read in parallel
  // Per file: its images as the last record has them (relink_reuse), and as this link found
  // them (set by the link, before relink_record; NULL: none known).
  RecordedFile *files_in, *files_out;
} Relink;

// Before the link reads anything: the link's key from its arguments (those that change only
// how it runs, -j, -v, --time-trace, ..., left out) and FILES, and one stat per file.
void relink_begin(Relink *rl, const Cache *cache, char **argv, const ArgGroup *groups,
                  size_t num_groups, const StringList *files, const char *output, int jobs);
// True when the last link of the same key read the same files, unchanged (by identity, else
// by content hash): its output, from the cache, is written to the output.
bool relink_reuse(Relink *rl);
// After a link that succeeded without a warning: records it for relink_reuse.
void relink_record(Relink *rl);
// True when file I's identity is the last record's (trusted) and the record has its images:
// the link takes them from rl->files_in[I] instead of reading the file.
bool relink_file_recorded(const Relink *rl, size_t i);
void relink_free(Relink *rl);

//
// tool/relink_program.c — a relink's whole-program results, kept for the next link (issue 32)
//

// Each module (image after the split) is known by its content key, taken from its split
// record (a lookup; tool/relink_program.c). The link keeps, under its relink key, each
// content key's facts key and interface key (what the facts stage and resolution read of the
// module); and under a key of all modules' facts keys the facts' results, under one of all
// interface keys the resolution. A relink whose edit leaves every module's facts (interfaces)
// as they were reads the results back; any other computes them and keeps them.
typedef struct {
  bool active; // a relink of ThinLTO: the stages below consult it
  bool lists;  // this link's list of modules is written
  const Cache *cache;
  char link_key[CACHE_KEY_SIZE];
  size_t count;                      // modules, as the facts stage sees them
  char (*content)[CACHE_KEY_SIZE];   // per module: its content key
  char (*facts)[CACHE_KEY_SIZE];     // per module: its facts key, or "" while not known
  char (*interface)[CACHE_KEY_SIZE]; // per module: its interface key, or "" while not known
  size_t listed;                     // modules the last link's list gave
  char facts_key[CACHE_KEY_SIZE];    // the results' key, once every module's is known
  const InputSet *inputs;            // program_record_facts's arguments, for keep_facts
  const SplitOptions *split;
  bool allow_dependencies;
} ProgramRecord;

// Before the facts stage: each module's keys, from the last list of LINK_KEY where its
// content is there, else from its split's records. LISTS: this link's list is written (as
// the relink record, not for an output that was not there before: Relink.recordable).
void program_record_begin(ProgramRecord *pr, const Cache *cache, const char *link_key,
                          const InputSet *inputs, bool lists);
// The facts' results kept for these modules' facts and SPLIT's options (program_restored's
// ProgramFacts: regroup has nothing to do with them), or NULL.
ProgramFacts *program_record_facts(ProgramRecord *pr, const InputSet *inputs,
                                   const SplitOptions *split, bool allow_dependencies);
// After program_facts: the facts keys not known, from P; after a regroup that changed nothing,
// P's results kept (when program_keeps).
void program_record_computed(ProgramRecord *pr, const ProgramFacts *p);
void program_record_keep_facts(ProgramRecord *pr, const ProgramFacts *p);
// The resolution kept for these modules' interfaces and options into R, or false.
bool program_record_resolution(ProgramRecord *pr, Resolution *r, InputSet *inputs, bool aot,
                               bool allow_dependencies);
// After resolve_symbols (with INTERFACE, its interface keys): R kept; then the list of this
// link's modules' keys written when it differs from the last one. Either way R's kept_key is
// set: the definitions index keeps its providers under it (hooks/complete.c).
void program_record_keep_resolution(ProgramRecord *pr, Resolution *r, InputSet *inputs,
                                    char (*interface)[CACHE_KEY_SIZE], bool aot,
                                    bool allow_dependencies);
void program_record_end(ProgramRecord *pr);

//
// The commands, in the order `sycl-thinlto --help` lists them
//

// tool/link.c: `sycl-thinlto link`, the link driver: the data flow of ARCHITECTURE.md, one
// call per stage; CLANG_SYCL_LINKER (argv[0] ends in clang-sycl-linker): clang-sycl-linker
// 22's command line, its options we do not support warned about.
int link_main(int argc, char **argv, bool clang_sycl_linker);
// tool/link_aot.c: the AOT stage of a link with --arch=<Intel GPUs>: RESULTS' SPIR-V compiled
// by ocloc for PLAN's devices, written to OUTPUT as native images (and SPIR-V ones if asked).
void link_native_output(const char *output, const AotPlan *plan, const AotOptions *opts,
                        ImageResult *results, size_t count);
// tool/split_command.c: `sycl-thinlto split`.
int split_main(int argc, char **argv);
// tool/post_link.c: `sycl-thinlto post-link`, or argv[0] ending in sycl-post-link: intel's
// sycl-post-link command line and output files over split_module and compute_properties.
int post_link_main(int argc, char **argv);
// tool/linker_wrapper.c: `sycl-thinlto wrapper`, or argv[0] ending in clang-linker-wrapper:
// clang-linker-wrapper 22's command line; device link, wrap, then the host linker.
int linker_wrapper_main(int argc, char **argv);
// tool/wrap_commands.c: `sycl-thinlto wrap IMAGES -o wrapper.o`.
int wrap_main(int argc, char **argv);
// tool/wrap_commands.c: `sycl-thinlto register-host IN.bc -o OUT.bc`.
int register_host_main(int argc, char **argv);
// tool/backend_command.c: `sycl-thinlto backend`, one distributed job of a link (issue 26).
int backend_main(int argc, char **argv);
// tool/distributor_local.c: `sycl-thinlto distribute-local`, or argv[0] ending in
// sycl-thinlto-local: a DTLTO distributor running a job list's jobs on this host.
int distribute_local_main(int argc, char **argv);
// tool/offload_binary.c: argv[0] ending in llvm-offload-binary: LLVM 22's command line; a
// SYCL image for a SPIR-V triple is split before it is packaged (clang++ -fsycl -c -B...),
// every other use runs LLVM's tool.
int offload_binary_main(int argc, char **argv);
// tool/inspect.c: `sycl-thinlto inspect`.
int inspect_main(int argc, char **argv);

#endif
