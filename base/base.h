// base/ — the ground floor: what every layer uses and that uses no layer. Diagnostics and
// cleanup, memory and files, string lists and the string map, threads, the cache, the trace,
// LLVM modules in and out, the name predicates, the C++ bridge. No other project header.
#ifndef SYCL_THINLTO_BASE_H
#define SYCL_THINLTO_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/blake3.h>
#include <jansson.h>
#include <uv.h>

#define TOOL_NAME "sycl-thinlto"
// The name messages begin with: TOOL_NAME, or "sycl-post-link" when run under that name
// (intel's tool's tests and users read its messages so). Defined in base/cleanup.c.
extern const char *tool_name;
#define SPIRV_TRIPLE "spirv64-unknown-unknown"

// Whether the process's memory is checked for leaks before it exits (the ASan build's
// LeakSanitizer, tool/main.c). Elsewhere what a command holds until its end is left to the
// exit, which gives it all back at once, instead of freed piece by piece.
#if defined(__SANITIZE_ADDRESS__)
#define LEAKS_CHECKED 1
#else
#define LEAKS_CHECKED 0
#endif

#ifdef __cplusplus
extern "C" {
#endif
//
// base/diag.c, memory.c, files.c, parallel.c — diagnostics, memory, files, threads
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
int warning_count(void); // warnings reported so far (a link that warned is not recorded)
// A line of status on a terminal's stderr that the next one replaces (progress): TEXT without
// a newline, or NULL to clear it. A message printed meanwhile clears it first.
void status_line(const char *text);
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

//
// base/owned.c — the one owner of the file system (issue 30; docs/reliability.md). Every
// create, rename and remove of the program goes through here (test/check_fs_owner.py
// refuses a raw one elsewhere): files are created exclusively (O_EXCL|O_NOFOLLOW), never by
// truncating what stands at a name; temporaries and folders have a random part in their
// names; what this run created is remembered (device and inode), and a path is removed only
// while it still holds that; a folder is emptied only of what this run created in it;
// nothing is opened for writing through a symbolic link (the final rename onto an output
// replaces a link there, the link itself). Thread-safe.
//

// Creates PATH for writing, exclusively: a file descriptor (close-on-exec), or a negative
// errno (-EEXIST when anything, a link too, stands there). Remembered as this run's.
int own_create(const char *path, int mode);
// A new file PATH.tmp.HOST.PID.R (R random; *NAME gets the name, malloc'd), made as
// own_create and removed on failure until renamed; locked (flock) while open, so that
// remove_dead_temporaries never takes it for a dead process's. fd, or a negative errno.
int own_create_temporary(const char *path, char **name);
// A new temporary of PATH (as own_create_temporary, SUFFIX after its random part: a tool may
// want ".bc") holding DATA, for a tool to read: *NAME gets its name. 0, or a negative errno
// (nothing is left).
int own_write_temporary(const char *path, const char *suffix, const void *data, size_t size,
                        char **name);
// A name for a tool's output beside PATH: a temporary of PATH made empty (so nothing planted
// stands there), expected (the tool may write it or rename its own file onto it) and removed
// on failure. Malloc'd; NULL with *ERROR (an errno) if it cannot be made.
char *own_tool_output(const char *path, int *error);
// A new file at PATH replacing what stands there (a link is replaced, never followed): made
// as a temporary and renamed onto PATH at once, for a file written while the process runs
// (a log). fd, or a negative errno.
int own_create_replacing(const char *path);
// An existing FIFO, terminal or device at PATH (a link to one too) opened for writing in
// place, nothing truncated; -EEXIST if a regular file or folder is there (write it through a
// temporary instead). fd, or a negative errno.
int own_open_in_place(const char *path);
// /dev/null, opened with FLAGS' access mode (O_RDONLY, O_WRONLY, O_RDWR) and O_CLOEXEC.
int own_open_null(int flags);
struct stat;
// mkdir(PATH, MODE), exclusively (-EEXIST when anything stands there), remembered.
int own_mkdir(const char *path, int mode);
// A new folder PREFIX followed by 12 random hex digits (malloc'd), made as own_mkdir with
// MODE, removed with what this run made in it on a failure if ON_FAILURE (from before it is
// made: a signal in between leaves nothing); NULL with *ERROR (an errno) if it cannot be made.
char *own_make_dir(const char *prefix, int mode, bool on_failure, int *error);
// The folder FROM, which a run of ours left for the next one (own_leave_dir), moved to PREFIX
// followed by 12 random hex digits (never over anything there) and remembered as if this run
// had made it there (malloc'd); its files are not this run's, except as own_adopt and
// own_expect make them. NULL with *ERROR (an errno) if FROM is no folder or cannot be moved.
char *own_claim_dir(const char *from, const char *prefix, int *error);
// The folder DIR this run made or claimed, moved to TO (never over anything there, a folder
// either) and no longer this run's: it outlives the run. 0, or a negative errno.
int own_leave_dir(const char *dir, const char *to);
// NAME is handed to a tool or library this run runs, which makes the file: a regular file
// there is taken as this run's. NAME's last component may hold one '*' (any characters): the
// names a library picks itself in a folder of ours ("DIR/*.thinlto.o").
void own_expect(const char *name);
// The regular file a tool made at PATH (a name given to it), remembered as this run's now.
int own_adopt(const char *path);
// rename(FROM, TO): FROM must be a file this run made (or a tool made at an expected name)
// and still be there; a link at TO is replaced, not followed. TO is then this run's, removed
// on failure if TO_ON_FAILURE. 0, or a negative errno (-EPERM: FROM is not ours). A large
// regular file replaced at TO may still be going when it returns: own_wait_removals.
int own_rename(const char *from, const char *to, bool to_on_failure);
// Waits until the files own_rename replaced are gone (before the process ends: a file removed
// by a thread that the exit kills may stay).
void own_wait_removals(void);
// Removes PATH (a file, or an empty folder) if it still is what this run made there. 0 (also
// when nothing is there), or a negative errno (-EPERM: something else stands there now).
int own_remove(const char *path);
// PATH is no longer this run's to remove (it went to someone else).
void own_forget(const char *path);
// PATH, a folder this run made, is handed over to the tools it runs as their working folder
// (ocloc's): whatever they leave in it is this run's to remove with it (own_empty_dir, a
// failure's clean-up), of any type, without following a link, opening a FIFO or crossing a
// mount. 0, or -EPERM when PATH is not such a folder.
int own_hand_over_dir(const char *path);
// Removes a folder this run made, with what this run made in it (files, expected names,
// folders made in it, at any depth; everything, in a folder handed over); what it did not make
// stays, and so does the folder (-ENOTEMPTY). 0, or a negative errno.
int own_empty_dir(const char *path);
// What a dead run of ours left (base/temporaries.c, issue 24), the only removals of what this
// run did not make but own_remove_at's (the cache's); the caller has proved the owner dead. A regular
// file, or a flat folder and its regular files, only while it still is what the caller saw
// (SEEN, from lstat).
int own_remove_dead_file(const char *path, const struct stat *seen);
int own_remove_dead_dir(const char *path, const struct stat *seen);

// Relative to a folder opened by the caller (the cache's: base/cache.c), one component NAME
// each, nothing followed through a link, nothing recorded (the cache's files outlive the run;
// the caller registers what a failure must remove). Each returns a descriptor or 0, or a
// negative errno. own_open_dir_at: the folder NAME in AT, made first if CREATE (O_NOFOLLOW:
// a link there is -ENOTDIR or -ELOOP). own_create_at: exclusively. own_create_temporary_at:
// NAME.tmp.HOST.PID.R exclusively, *TMP its name (malloc'd). own_append_at: an existing
// regular file for appending. own_rename_at, own_link_at: renameat, linkat (a link is never
// followed). own_remove_at: a regular file or a link (the link), only while it is SEEN (if
// not NULL; -EPERM: something else stands there now).
int own_open_dir_at(int at, const char *name, bool create);
int own_create_at(int dir, const char *name, int mode);
int own_create_temporary_at(int dir, const char *name, char **tmp);
// The same, and the file is removed if the run fails (remove_on_failure) from before it is
// made, not after: *TMP_PATH is DIR_PATH/its name (malloc'd); keep_on_success(*TMP_PATH) once
// it is renamed into place.
// An unnamed regular file in DIR (O_TMPFILE): gone when closed, whatever ends the run. A
// descriptor, or a negative errno (-EOPNOTSUPP, -EISDIR: the file system makes none).
int own_create_unnamed(const char *dir);
int own_create_temporary_guarded_at(int dir, const char *dir_path, const char *name, char **tmp,
                                    char **tmp_path);
int own_append_at(int dir, const char *name);
int own_rename_at(int from_dir, const char *from, int to_dir, const char *to);
int own_link_at(int from_dir, const char *from, int to_dir, const char *to);
int own_remove_at(int dir, const char *name, const struct stat *seen);

// What a failure removes: paths removed if the process exits through fatal() or
// exit_on_errors(), or is ended by SIGINT, SIGTERM or SIGHUP, but only while they hold what
// this process made there (issue 24: never remove what we did not create). remove_on_failure:
// a path made through the functions above, or a regular file a tool this process ran has made
// at PATH (its device and inode are recorded now), or a name given to a tool that has yet to
// make it; never a directory, a device, a FIFO or a link. Register a final output after it is
// written, not before.
void remove_on_failure(const char *path);
void own_remove_on_failure(const char *path); // the same
// PATH, holding what is at MADE now: a temporary this process made and renames to PATH next.
void remove_on_failure_as(const char *path, const char *made);
// A folder this process made (own_mkdir, own_make_dir), removed as own_empty_dir does.
void remove_dir_on_failure(const char *dir);
void keep_on_success(const char *path);
void remove_failure_paths(void); // exit_failure()'s
// The same from a signal handler (base/cleanup.c's): system calls and atomics only.
void remove_failure_paths_now(void);
// owned.c registers the two above with cleanup.c (below it), whose exits and signal handlers
// call them through remove_registered_failure_paths.
void set_failure_removers(void (*remove)(void), void (*remove_now)(void));
void remove_registered_failure_paths(bool in_signal_handler);
// base/cleanup.c: children (PIDs) a signal must end with us, from their start until reaped.
void track_child(int pid);
void untrack_child(int pid);
// In a forked child that is a process of its own (not exec'd): its parent's children are not
// its own to end.
void forget_children(void);
// base/cleanup.c: on SIGINT, SIGTERM or SIGHUP (unless ignored at start) the children get the
// signal (SIGKILL after 2 s), the paths are removed, and the process ends by the signal.
// Installed first thing in main; a child forked from us that is not us (the spawner)
// uninstalls it.
void install_signal_cleanup(void);
void uninstall_signal_cleanup(void);
// True once such a signal is being handled: nothing more is committed.
bool ending_by_signal(void);
// Exits wait here while a signal is handled, so the process ends by the signal.
void wait_while_ending(void);
// Around the making of a path a failure removes, from its reservation to its record (base/
// owned.c): false (nothing may be made) once an ending signal is being handled; else the
// handler waits for making_end before its last removals.
bool making_begin(void);
void making_end(void);
// base/cleanup.c: a crash (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE) cleans up as an
// ending signal does, then exits: 1 with "ORIGIN: malformed KIND: LLVM's KIND reader crashed
// on it (SIGSEGV)" if the crashing thread was reading an input through LLVM (between these
// two calls; KIND is "bitcode", "IR" or "object"), else EXIT_INTERNAL_ERROR with "internal
// error: SIGSEGV during STAGE". ORIGIN must live until reading_input_end. Not nested.
enum { EXIT_INTERNAL_ERROR = 70 }; // EX_SOFTWARE of <sysexits.h>
void reading_input_begin(const char *origin, const char *kind);
void reading_input_end(void);
// The input the calling thread is reading now (between those calls), or NULL.
const char *reading_input_now(void);
// What the process is doing, for that message: a string literal ("link stage hooks").
void set_crash_stage(const char *stage);
// The calling thread's alternate signal stack (a crash by stack overflow needs one): given if
// it has none; signal_stack_end takes back what this thread was given (before it exits).
void signal_stack_begin(void);
void signal_stack_end(void);

// An allocation that cannot be made is bad input (a malformed module asking for more than
// there is), not our bug: fatal(), naming the input this thread is reading, if any. WHAT:
// how much was asked for.
__attribute__((noreturn)) void out_of_memory(const char *what);
// Lowers the process's memory ceiling (RLIMIT_DATA) while untrusted inputs are read: to what
// is in use, plus 2 GiB, plus 64 times INPUT_BYTES (the bytes about to be read). Not nested;
// _end restores the ceiling before (a link restores it before its optimizing stages).
void read_memory_ceiling_begin(uint64_t input_bytes);
void read_memory_ceiling_end(void);
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
void buffer_append(Buffer *b, const void *data, size_t n);

// Reads SYCL_THINLTO_MAX_INPUT_SIZE, the largest file read_file reads (default 4 GiB);
// fatal() on a malformed value. Called by main before any command.
void input_size_limit_init(void);
uint64_t input_size_limit(void);
// Grows the process's descriptor table to hold descriptors 0..1023 (fewer under a lower
// RLIMIT_NOFILE) while the process has one thread. Called by main before anything starts a
// thread: see base/files.c for why.
void descriptor_table_init(void);
// 0, or a negative errno: -EISDIR for a directory, -ENODEV for a device (/dev/zero never
// ends), -EFBIG for a file over the input size limit (refused before it is read). A FIFO is
// read to its end; one nobody writes to reads as empty, it does not hang.
int read_file(const char *path, Buffer *out);
// What read_file's negative errno RC means, for "FILE: <text>".
const char *read_error_text(int rc);
// True if both paths exist and name the same file (an output that would replace an input).
bool same_file(const char *a, const char *b);
// Maps a regular, non-empty file read-only: its pages are memory only while they are used
// (see buffer_drop_pages). The mapping outlives the file's name. 0, or a negative errno.
int map_file(const char *path, Buffer *out);
// The same for the file NAME of the open folder DIR, never through a link, and leaving its
// access time as it is where the file is this user's; ST gets its fstat (all zero where it
// could not be opened).
int map_file_at(int dir, const char *name, struct stat *st, Buffer *out);
// The size of a regular file, or 0 (missing, not regular).
uint64_t file_size(const char *path);
// Whether DIR has room for BYTES more in one file, under a name 100 bytes long: reserved
// (fallocate) and given back at once. 0, or a negative errno: -ENOSPC (a full file system),
// -EFBIG (ulimit -f), -ENAMETOOLONG (a path near PATH_MAX)... For writers that cannot fail
// gracefully (libLTO ends the process on a failed write).
int check_room(const char *dir, uint64_t bytes);
// Frees a malloc'd buffer or unmaps a mapped one; leaves *B empty.
void buffer_free(Buffer *b);
// A mapped buffer's pages leave the process's resident set (the next read brings them back
// from the page cache); any thread may read it meanwhile. Nothing for a malloc'd buffer.
void buffer_drop_pages(const Buffer *b);
// base/owned.c: this host's name as part of a file name ('/' and '.' made '_'), for
// temporaries that links on several hosts write into one shared directory.
const char *host_name(void);
// PATH.tmp.HOST.PID.R, R a random number: a name for a temporary of PATH that no other
// process guesses; malloc'd. remove_dead_temporaries knows these names. Create it with
// own_create (or take own_create_temporary), never by opening it otherwise.
char *temporary_name(const char *path);
// Writes PATH.tmp.HOST.PID.N then renames it over PATH: readers never see half a file. An
// existing non-regular PATH (/dev/null, a FIFO) is written in place instead.
int write_file_atomic(const char *path, const void *data, size_t size);
// The same for an output of a command that other outputs may still fail after: PATH is then
// removed if the process fails before keep_on_success(PATH), and only if it still holds
// what was written (it is registered with the temporary's inode before the rename).
int write_output_atomic(const char *path, const void *data, size_t size);
// The same, written piece by piece: open, write (errors are kept), commit or abort. The
// temporary is removed if the process exits through fatal().
typedef struct {
  int fd;
  char *tmp, *path;
  int error;
} AtomicFile;
int atomic_open(AtomicFile *f, const char *path);
int atomic_write(AtomicFile *f, const void *data, size_t size);
// A regular file's temporary only: DATA written at OFFSET (not moving the file's offset), and
// the file cut to SIZE bytes; errors stick as atomic_write's do.
int atomic_pwrite(AtomicFile *f, const void *data, size_t size, uint64_t offset);
// The same for the N parts (at most ATOMIC_PARTS_MAX) written one after another from OFFSET,
// in one call where the kernel takes them at once: a header and the data it heads need not
// be copied into one buffer first.
enum { ATOMIC_PARTS_MAX = 4 };
int atomic_pwrite_parts(AtomicFile *f, const Buffer *parts, int n, uint64_t offset);
int atomic_truncate(AtomicFile *f, uint64_t size);
int atomic_commit(AtomicFile *f); // 0, or a negative errno (nothing is left behind)
void atomic_abort(AtomicFile *f);
// rename(TMP, PATH), except that an existing non-regular PATH (/dev/null, a FIFO) is written
// in place rather than replaced. 0, or a negative errno.
int replace_file(const char *tmp, const char *path);

// base/temporaries.c — what a process killed by SIGKILL leaves is removed by the next one
// (issue 24). Regular files beside PATH named after it (PATH or PATH's name with more after
// it) ending in ".tmp.HOST.PID.N", where HOST is this host and PID a process that no longer
// exists (a PID of another host is never judged).
void remove_dead_temporaries(const char *path);
// A new directory PARENT/NAME-XXXXXX (malloc'd), removed on failure with its files, that a
// lock (flock on its .lock file) marks as this process's while it lives. First removes the
// PARENT/NAME-* directories whose lock nobody holds: their process has ended. Fatal if it
// cannot be made.
char *make_temp_dir(const char *parent, const char *name);
// Removes such a directory once its files are gone (its lock file too) and lets the lock go.
void remove_temp_dir(const char *dir);
// The directory PARENT/KEPT that an earlier process left (keep_temp_dir) taken as this one's,
// as if make_temp_dir(PARENT, NAME) had made it: moved to PARENT/NAME-XXXXXX and locked; its
// files as they were. NULL when there is none or another process has it. Also removes the
// dead processes' PARENT/NAME-* directories, as make_temp_dir does.
char *claim_kept_dir(const char *parent, const char *name, const char *kept);
// Leaves the directory DIR (made or claimed, locked) at PARENT/KEPT for the next process,
// with its files, and lets its lock go; false when it cannot (one is there already): DIR is
// then still this process's, to remove.
bool keep_temp_dir(const char *dir, const char *parent, const char *kept);

// base/outputs.c — the one rule for outputs (issue 24): a command writes only the paths it
// was asked to write, and never one that names an input, a directory or a device. Each
// command records its inputs, then checks every path it will write, before anything runs.
// Records PATH (if it exists) as an input of this run, by device and inode: a symbolic link,
// a hard link or a path through ".." names it too.
void output_rule_input(const char *path);
// Forgets every input and output recorded: a process that runs one command after another
// (the local distributor's workers) begins each afresh.
void output_rule_reset(void);
// Fatal ("PATH: ...") if PATH, which OPTION asks for ("-o", "--time-trace"...), names a
// recorded input, a directory, or a device other than the null device (written in place, as
// a FIFO is), or a path an earlier check_output_path of this run named (two options writing
// one file); then removes the temporaries dead processes left beside PATH.
void check_output_path(const char *path, const char *option);
// Whether PATH is the null device (or a node of it elsewhere): written there, output is discarded.
bool output_is_null_device(const char *path);
// check_output_path without the look for dead processes' temporaries of PATH, which reads
// its whole directory: for a directory its owner sweeps (a link's jobs directory, where each
// of thousands of jobs checks its outputs).
void check_output_path_unswept(const char *path, const char *option);
// Only the last check of check_output_path, for a directory the command fills (--cache-dir):
// fatal if a path an earlier check named is PATH.
void check_output_distinct(const char *path, const char *option);
// check_output_path for each existing entry of PREFIX's directory whose name is PREFIX's
// last component followed by a REST that DERIVED(REST, ARG) says the command would write
// (OUT_3.bc, OUT.0.spv): the names a command derives from its -o, checked before they are
// known one by one; fatal too if a path check_output_path named is such a name.
// A DERIVED for check_derived_outputs: REST is SEPARATOR (a string), digits, then a dot
// (".3.spv" after OUT, "_0.bc" after a post-link prefix).
bool is_numbered_name(const char *rest, const void *separator);
void check_derived_outputs(const char *prefix, bool (*derived)(const char *rest, const void *arg),
                           const void *arg, const char *option);

// Seconds on a monotonic clock, for durations.
double now_seconds(void);
// Hands the pages of freed heap memory back to the system (glibc keeps them otherwise,
// wherever a live block above them pins the heap): called after a stage frees much.
void release_free_memory(void);
// Before the first thread: glibc's heaps are grown and shrunk 64 MiB at a time, not at each
// free() that empties a heap's top (each shrink and regrowth takes the address space's lock,
// which every thread's page faults wait on).
void heap_steps_for_threads(void);

// A hash table from string to pointer (FNV-1a, open addressing); keys are copied.
typedef struct {
  char **keys;
  void **values;
  size_t cap, count;
} StrMap;
void *strmap_get(const StrMap *m, const char *key);
void strmap_put(StrMap *m, const char *key, void *value);
void strmap_reserve(StrMap *m, size_t count); // room for COUNT keys without growing
void strmap_free(StrMap *m); // the copied keys and the tables; the values are the caller's

// Runs fn(arg, i) for every i in [0, n) on up to JOBS threads; returns when all are done.
// fn may only touch item i and thread-safe state (error(), note()).
void parallel_for(size_t n, int jobs, void (*fn)(void *arg, size_t i), void *arg);

//
// base/trace.c — --time-trace (Chrome trace JSON) and --stats counters; thread-safe
//

enum { TRACE_WORKER_TID = 1000 }; // SPIR-V worker N is traced as thread 1000 + N

void trace_start(void); // on the main thread (its id is 0); nothing is recorded before
// Spans shorter than SECONDS are not recorded (--time-trace-granularity; default 0: all are).
void trace_set_granularity(double seconds);
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
// base/json.c — JSON through jansson (a system library, so base/ may use it)
//

// The length of the valid UTF-8 sequence at S (LEFT bytes there; an ASCII byte, control
// bytes too, is 1), or 0 if none starts there: a stray continuation byte, an overlong form,
// a surrogate, past U+10FFFF, or cut short.
size_t utf8_sequence_length(const unsigned char *s, size_t left);
bool utf8_is_valid(const char *s);
// LEN bytes as valid UTF-8: each byte that begins no valid sequence becomes U+FFFD (as
// llvm::json and Python's errors="replace" do), the rest is kept. Malloc'd, NUL-terminated;
// *out_len (if not NULL) its length.
char *utf8_valid_copy(const void *data, size_t len, size_t *out_len);
// Values for jansson documents: a string of any LEN bytes (utf8_valid_copy'd), of a C string
// (NULL: JSON null), an unsigned integer. They never return NULL (out_of_memory()).
json_t *json_bytes(const void *data, size_t len);
json_t *json_text(const char *s);
json_t *json_uint(uint64_t value);
json_t *json_int(int64_t value);
json_t *json_new_object(void);
json_t *json_new_array(void);
// Adds VALUE (taking it) under KEY (any bytes, utf8_valid_copy'd; a later one replaces an
// earlier one of the same key, in place), or at the end of ARRAY.
void json_put(json_t *object, const char *key, json_t *value);
void json_push(json_t *array, json_t *value);
// The document in the one form the tool writes: compact, members in insertion order,
// UTF-8 as it is, control bytes escaped. Malloc'd, no trailing newline.
char *json_dump_text(const json_t *value);

//
// base/module_io.c — LLVM modules in and out, with diagnostics captured per context
//

// A context whose diagnostics are kept (never printed, never exit(1) as LLVM's default does).
LLVMContextRef context_create(void);
void context_dispose(LLVMContextRef ctx);
// The text of the last error diagnostic, or NULL.
const char *context_last_error(LLVMContextRef ctx);
// Parses bitcode (lazily: bodies materialized on demand). 0, or -1 with *errmsg.
int module_parse(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name, bool lazy,
                 LLVMModuleRef *out, char **errmsg);
// Reads a module from an input: whole, through LLVM's verifier before anything else sees it
// (every module a command reads from its inputs comes this way, once). 0, or -1 with
// *errmsg: "invalid bitcode: ..." (unreadable) or "invalid module: ..." (the verifier's first
// line); a kernel whose name holds a line break or a NUL is refused too (it could not be
// listed), and SYCL metadata read as integers that holds something else ("function NAME:
// !reqd_work_group_size must hold 1 to 3 integer constants"). Modules the tool wrote itself,
// from verified ones, are read with module_parse.
int module_parse_verified(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name,
                          LLVMModuleRef *out, char **errmsg);
// The same checks on a module read otherwise (LLVM assembly): the verifier, kernel names,
// SYCL metadata.
int module_verify(LLVMModuleRef m, char **errmsg);
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

// The triple libLTO links (SPIRV_TRIPLE) and its data layout, unless M has it already (the
// link's split and prepare both set it).
void set_canonical_triple(LLVMModuleRef m);
// LLVM bitcode (raw or in the 0x0B17C0DE wrapper), by its magic number.
bool is_llvm_bitcode(const uint8_t *data, size_t size);
// The calling conventions SYCL device code uses (llvm/IR/CallingConv.h).
enum { CC_PTX_KERNEL = 71, CC_SPIR_FUNC = 75, CC_SPIR_KERNEL = 76, CC_AMDGPU_KERNEL = 91 };
// A kernel, defined or declared: spir_kernel, or as intel's sycl-post-link also counts them,
// amdgpu_kernel and ptx_kernel (the link reads SPIR-V modules only).
bool is_kernel(LLVMValueRef f);

//
// base/cache.c — the incremental cache (issue 6)
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

// A cache folder: DIR holds CACHEDIR.TAG and the folder of entries, ROOT (base/cache.c says
// how it is laid out); ROOT_FD and the entry folders' descriptors (opened when first used)
// are what every file operation goes through, so that none follows a planted link.
typedef struct {
  char *dir, *root;
  int root_fd;
  int *shards; // per entry folder: its descriptor, or -1 until opened (atomically)
  CachePolicy policy;
} Cache;

// A BLAKE3 hash of the bytes and strings fed to it, in order; final writes it as a key.
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
// Opens DIR as a cache: made with the folders above it if missing, tagged (CACHEDIR.TAG) if
// new or empty; a folder that holds files but no tag is refused. 0, or -1 and *ERRMSG; 1 and
// *ERRMSG for a new cache on a full file system (the link goes on without it).
int cache_open(Cache *c, const char *dir, const CachePolicy *policy, char **errmsg);
void cache_close(Cache *c);
// 0 and the value, or -1 for a miss (absent, truncated, corrupt, or written for another kind
// or key: a damaged entry is a miss).
int cache_get(const Cache *c, const char *kind, const char *key, Buffer *value);
// The same with the entry's file mapped (value->mapped): its pages are the page cache's, not
// copied, nor faulted in one by one as fresh memory is. An entry that is empty is a miss.
int cache_map(const Cache *c, const char *kind, const char *key, Buffer *value);
// The reader of an entry's bytes: the payload's offset (and *payload_size), or -1 when they
// are not a whole, intact entry of KIND and KEY.
int cache_entry_payload(const char *kind, const char *key, const uint8_t *data, size_t size,
                        size_t *payload_size);
// B, read from an entry of KIND and KEY (a mapped file included), cut to its payload if it is
// a whole, intact one: 0, or -1 (B unchanged).
int cache_take_payload(const char *kind, const char *key, Buffer *b);
// B cut to its first SIZE bytes (<= b->size); a mapping's pages past them are unmapped.
void buffer_shrink(Buffer *b, size_t size);
// Atomic: readers see the old entry or the whole new one. 0, or a negative errno.
int cache_put(const Cache *c, const char *kind, const char *key, const Buffer *value);
// cache_put without a copy: the file NAME of the folder FROM (this process's own), which holds
// PAYLOAD's bytes and nothing else, gets EXTRA's bytes (unless NULL) and the entry's trailer
// (the entry's payload is both) and is moved into the cache (linked there, then removed from
// FROM unless KEEP: the entry's second name). 0, or a negative errno (the file is then left
// where it was, maybe with more bytes).
int cache_adopt(const Cache *c, const char *kind, const char *key, int from, const char *name,
                const Buffer *payload, const Buffer *extra, bool keep);
// cache_put for a link: an entry that cannot be written is a warning, the link goes on.
void cache_store(const Cache *c, const char *kind, const char *key, const Buffer *value);
// libLTO's folder in the cache (lto/thinlto.c), which a link leaves for the next: second
// names of the "thinlto" entries, as libLTO names them (CACHE_LIBLTO_PREFIX and the key).
#define CACHE_LIBLTO_FOLDER "libLTO-kept"
#define CACHE_LIBLTO_PREFIX "llvmcache-"
// Removes the entries unused for longer than the policy's prune_after, then the oldest until
// the cache fits its size limits (a ThinLTO entry's second name with it); at most once per
// prune_interval.
void cache_prune(const Cache *c);
// Hard-links every entry of KIND into the folder TO (a folder of this process's own) as
// PREFIX followed by its key; LINKED maps each name there to its inode (decimal). A link TO
// holds already (a folder an earlier link left, keep_temp_dir) is kept while it is the entry's
// file; one of an entry gone or replaced since, or of no entry, is removed. The entries are
// not read: whoever reads the links checks them (cache_take_payload). The count. On up to
// JOBS threads.
size_t cache_export_entries(const Cache *c, const char *kind, int to, const char *prefix,
                            StrMap *linked, int jobs);
// True when the entry KIND-KEY is there with the size of a SIZE-byte payload's entry; its
// modification time is then made now (pruning by age spares it). Its bytes are not read:
// one damaged is a miss when it is read (cache_get), and its reader removes it.
bool cache_refresh(const Cache *c, const char *kind, const char *key, uint64_t size);
// Removes the entry KIND-KEY if it is still the file SEEN (one found damaged).
void cache_remove_damaged(const Cache *c, const char *kind, const char *key,
                          const struct stat *seen);
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


//
// base/names.c — what a function's name and attributes say about it
//

// A builtin: provided by the backend, the runtime or the device (llvm.*, __spirv_*,
// __sycl_*, __esimd_*, __builtin_*, __devicelib_*, __clc_*, also mangled: _Z<n>__spirv_...).
// The one test of whether a name may stay undefined; the list and why is in base/names.c.
bool is_builtin_name(const char *name);
// True if some function of M carries sycl-module-id: DPC++ IR, where that attribute alone
// marks SYCL_EXTERNAL functions. Upstream clang writes none.
bool module_has_module_ids(LLVMModuleRef m);
// A SYCL_EXTERNAL definition (not a kernel, not a builtin): with MODULE_IDS (its module's
// module_has_module_ids) one with sycl-module-id, else an externally visible spir_func.
bool is_sycl_external(LLVMValueRef f, bool module_ids);
// Symbols in messages, as people wrote them (lld's demangling; --no-demangle clears this).
extern bool demangle_names;
// "mix(float, float, float) (_Z3mixfff)"; a name that does not demangle, or every name under
// --no-demangle, as it is. Malloc'd.
char *symbol_for_message(const char *name);
// KERNELS (mangled names separated by spaces, as the hooks keep them) as a message shows
// them: each kernel by the name its source gave it (_ZTS5Scale: Scale, the type's name),
// separated by ", "; under --no-demangle as they are. Malloc'd.
char *kernels_for_message(const char *kernels);
// One kernel's name as its source gave it (_ZTS5Scale: "Scale", "ns::K<int>"), whether or not
// --no-demangle is given; a name that does not demangle as it is. Malloc'd.
char *kernel_source_name(const char *name);


//
// base/bridge.cpp — the C++ bridge: only what llvm-c cannot do
//

// base/bridge.cpp: llvm-c cannot build or write a ThinLTO module summary.
// Writes M as bitcode with a summary into *out (malloc'd). 0, or -1 with *errmsg.
int bridge_write_bitcode_with_summary(LLVMModuleRef m, Buffer *out, char **errmsg);
// base/bridge.cpp: a function or variable definition becomes an external declaration.
void bridge_make_declaration(LLVMValueRef gv);
// base/bridge.cpp: llvm-c reads attributes of functions and call sites only, not of global
// variables. True if GV has the string attribute NAME; *value (not NUL-terminated) and *len
// then point into LLVM's storage.
bool bridge_global_attribute(LLVMValueRef gv, const char *name, const char **value, size_t *len);
// base/bridge.cpp: llvm-c can neither set a global variable's attributes nor dso_local.
// DPC++'s sanitizer kernel table (__AsanKernelMetadata, __MsanKernelMetadata or
// __TsanKernelMetadata) rewritten as sycl-post-link does, for the SPIR-V translator and the
// runtime: a device global of an unnamed struct holding the array, with !spirv.Decorations.
// Whether there was one.
bool bridge_fix_sanitizer_table(LLVMModuleRef m);
// base/bridge.cpp: llvm-c cannot set TargetOptions::UseInitArray. TM then emits llvm.global_ctors
// and llvm.global_dtors as .init_array.N/.fini_array.N (run by every ELF linker, lld too)
// instead of .ctors.N/.dtors.N.
void bridge_use_init_array(LLVMTargetMachineRef tm);
// base/bridge.cpp: llvm-c cannot read a bitcode file's LTO form (llvm::getBitcodeLTOInfo).
// 0 and *is_thinlto (it has a ThinLTO summary), or -1 if DATA is not bitcode.
int bridge_bitcode_is_thinlto(const uint8_t *data, size_t size, bool *is_thinlto);
// base/bridge.cpp: llvm-c cannot read a bitcode file's triple without parsing its module
// (llvm::getBitcodeTargetTriple). The triple (malloc'd), or NULL if DATA is not bitcode.
char *bridge_bitcode_triple(const uint8_t *data, size_t size);
// base/bridge.cpp: llvm-c cannot verify a module between reading its bodies and the reader's
// own checks (which end the process on an invalid module with debug info). Reads DATA whole
// and verifies it: 0 with *out, or -1 with *errmsg ("invalid bitcode: ..." or "invalid
// module: THE VERIFIER'S FIRST LINE"). Through module_parse_verified.
int bridge_read_verified(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name,
                         LLVMModuleRef *out, char **errmsg);
// LLVMParseBitcodeInContext2, but a module whose debug info is broken has it stripped without
// LLVM's raw report on stderr (it was reported where first read). Through module_parse.
int bridge_read_whole(LLVMContextRef ctx, const uint8_t *data, size_t size, const char *name,
                      LLVMModuleRef *out, char **errmsg);
// LLVM assembly read as LLVMParseIRInContext reads it, but verified before LLVM's debug-info
// upgrade (which ends the process on an invalid module with debug info): 0 with *out, or -1
// with *errmsg (the parser's message, or "invalid module: ..."). Broken debug info: a
// warning naming NAME, stripped.
int bridge_parse_assembly_verified(LLVMContextRef ctx, const uint8_t *data, size_t size,
                                   const char *name, LLVMModuleRef *out, char **errmsg);
// base/bridge.cpp: LLVMVerifyModule treats broken debug info as an error, LLVM's readers do
// not. 0, or -1 with *errmsg "invalid module: THE VERIFIER'S FIRST LINE".
int bridge_verify_module(LLVMModuleRef m, char **errmsg);
// base/bridge.cpp: LLVM failing to allocate (a malformed input's sizes) is fatal(), not abort().
void bridge_handle_bad_alloc(void);


// base/bridge.cpp: llvm-c's builder folds a GEP or cast of constants into a constant expression
// (and a bitcast to the operand's own type into the operand). These insert the instruction at
// B's position, named NAME, as intel's sycl-post-link writes it. The cast is LLVMBitCast or
// LLVMTrunc.
LLVMValueRef bridge_build_unfolded_gep(LLVMBuilderRef b, LLVMTypeRef type, LLVMValueRef ptr,
                                       LLVMValueRef index, const char *name);
LLVMValueRef bridge_build_unfolded_cast(LLVMBuilderRef b, LLVMOpcode op, LLVMValueRef value,
                                        LLVMTypeRef type, const char *name);
// base/bridge.cpp: llvm-c has no demangler. NAME demangled (malloc'd), or NULL if it is not
// an Itanium mangling.
char *bridge_demangle(const char *name);


// base/tar.c: a tar archive in memory, for --reproduce (what `tar x` extracts).
// Appends a regular file NAME (relative; a longer name than ustar holds gets a pax record).
void tar_add(Buffer *tar, const char *name, const void *data, size_t size);
// Appends the end-of-archive blocks; the archive is then complete.
void tar_finish(Buffer *tar);

// base/run_tool.c: runs ARGV (argv[0] looked up on PATH) to completion, stdin from
// /dev/null, stdout and stderr together into *output (malloc'd). *wait_status as from
// waitpid. Thread-safe. 0, or a negative errno when it cannot be started.
int run_tool(const char *const argv[], Buffer *output, int *wait_status);
// Starts a child as run_tool does, without waiting: ARGV[0] (looked up on PATH), or, with ARGV
// NULL, FN(ARG) in a fork of this process (single-threaded callers only), exiting with its
// value. Its stdout and stderr go to OUTPUT_FD. The pid (tracked: a signal that ends us ends
// it), or a negative errno: the exec's own when the program could not be run.
pid_t child_start(const char *const argv[], int (*fn)(void *), void *arg, int output_fd);
// Waits for CHILD (-1: any child) and untracks it: its pid, or a negative errno.
pid_t child_wait(pid_t child, int *wait_status);
// The absolute path of the running executable (malloc'd); dies if the system cannot say.
char *executable_path(void);

#ifdef __cplusplus
}
#endif

#endif
