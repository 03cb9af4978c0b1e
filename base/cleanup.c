// What a failing, interrupted or crashing process leaves behind: the paths to remove
// (temporaries, a partial output) and the children to end, for exit_failure(), for SIGINT,
// SIGTERM, SIGHUP, and for the fatal signals (a crash: in LLVM's reader on a malformed input,
// or ours). It does not decide what is temporary, nor remove a path itself: whoever creates a
// file registers it with base/owned.c, which removes it.
#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *tool_name = TOOL_NAME; // here, the lowest file that prints it (crash messages)

// The paths a failure removes are base/owned.c's records (remove_on_failure and the rest):
// the handlers below walk them with the function owned.c registers at its first record
// (set_failure_removers), so that this file, below owned.c, does not call up into it.
static _Atomic(void (*)(void)) failure_remover, failure_remover_now;

void set_failure_removers(void (*remove)(void), void (*remove_now)(void)) {
  atomic_store(&failure_remover, remove);
  atomic_store(&failure_remover_now, remove_now);
}

void remove_registered_failure_paths(bool in_signal_handler) {
  void (*remover)(void) =
      atomic_load(in_signal_handler ? &failure_remover_now : &failure_remover);
  if (remover) remover();
}

//
// The children: processes started and not yet reaped (the SPIR-V worker spawner, tools,
// the wrapper's steps). A fixed table of atomic slots, which the handler can read; a child
// that finds no free slot is not ended by a signal (1024 at once: far more than -j runs).
//

enum { MAX_CHILDREN = 1024 };
static atomic_int children[MAX_CHILDREN];

void track_child(int pid) {
  if (pid <= 0) return;
  for (int i = 0; i < MAX_CHILDREN; i++) {
    int free_slot = 0;
    if (atomic_compare_exchange_strong(&children[i], &free_slot, pid)) return;
  }
}

void untrack_child(int pid) {
  if (pid <= 0) return;
  for (int i = 0; i < MAX_CHILDREN; i++) {
    int mine = pid;
    if (atomic_compare_exchange_strong(&children[i], &mine, 0)) return;
  }
}

void forget_children(void) {
  for (int i = 0; i < MAX_CHILDREN; i++)
    atomic_store(&children[i], 0);
}

// Gives every child SIG: a child of our own binary (the wrapper's device link) then cleans up
// after itself, the spawner's workers die with the spawner.
static void signal_children_now(int sig) {
  for (int i = 0; i < MAX_CHILDREN; i++) {
    int pid = atomic_load(&children[i]);
    if (pid > 0) kill(pid, sig);
  }
}

// Waits up to two seconds for the children to end, then kills what is left: the wrapper's
// device link must be gone before the wrapper removes the directory it writes into.
static void wait_children_now(void) {
  for (int round = 0; round < 300; round++) {
    bool running = false;
    for (int i = 0; i < MAX_CHILDREN; i++) {
      int pid = atomic_load(&children[i]);
      if (pid <= 0) continue;
      if (round == 200) kill(pid, SIGKILL); // two seconds are up
      if (waitpid(pid, NULL, WNOHANG) == 0)
        running = true;
      else
        atomic_store(&children[i], 0); // ended (reaped now, or by its own waiter: ECHILD)
    }
    if (!running) return;
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
}

//
// The signals.
//

static const int ending_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NUM_ENDING = sizeof ending_signals / sizeof *ending_signals };
static struct sigaction saved[NUM_ENDING];
static bool installed[NUM_ENDING];
static atomic_bool ending;

// Makings of paths a failure removes (a temporary, a folder), from before the reservation of
// the name to after its record: an ending signal's handler waits for those under way before
// its last removals, so that no thread makes one after them (a worker's cache temporary made
// between the handler's last walk and the end of the process stayed: link/signals.test).
// Dekker's order: a making counts itself, then looks at ENDING; the handler sets ENDING, then
// looks at the count. The handler's own thread may be inside a making: MAKINGS_HERE.
static atomic_int makings;
static _Thread_local int makings_here;

bool making_begin(void) {
  makings_here++;
  atomic_fetch_add(&makings, 1);
  if (!atomic_load(&ending)) return true;
  atomic_fetch_sub(&makings, 1);
  makings_here--;
  return false;
}

void making_end(void) {
  atomic_fetch_sub(&makings, 1);
  makings_here--;
}

// Async-signal-safe. Bounded (0.2 s): a thread stopped for good (a debugger) does not hold the
// process.
static void wait_for_makings(void) {
  for (int i = 0; i < 2000 && atomic_load(&makings) > makings_here; i++)
    nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
}

// A crash. Each is handled on the thread that caused it (on the alternate stack: a stack
// overflow has none left), and blocked in every handler: a crash in a handler ends the process
// by the signal's default action.
static const struct {
  int sig;
  const char *name;
} fatal_signals[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGILL, "SIGILL"},
                     {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGFPE, "SIGFPE"}};
enum { NUM_FATAL = sizeof fatal_signals / sizeof *fatal_signals };
static struct sigaction saved_fatal[NUM_FATAL];
static bool installed_fatal[NUM_FATAL];

// What this thread is reading through LLVM now, and the stage the process is in: the fatal
// handler's words. Initial-exec TLS: the handler reads it without a call that may allocate.
#define TLS_INITIAL_EXEC __attribute__((tls_model("initial-exec")))
static _Thread_local const char *reading_origin TLS_INITIAL_EXEC;
static _Thread_local const char *reading_kind TLS_INITIAL_EXEC;
static const char *_Atomic crash_stage = "startup";

void reading_input_begin(const char *origin, const char *kind) {
  signal_stack_begin();
  reading_kind = kind;
  atomic_signal_fence(memory_order_seq_cst); // the handler sees the kind before the origin
  reading_origin = origin;
}

void reading_input_end(void) {
  reading_origin = NULL;
}

const char *reading_input_now(void) {
  return reading_origin;
}

void set_crash_stage(const char *stage) {
  atomic_store(&crash_stage, stage);
}

//
// Alternate signal stacks, one a thread: the main thread's from install_signal_cleanup, a
// parallel_for worker's for its life, any other thread's from its first reading_input_begin.
// A thread that already has one (ASan's, LLVM's) keeps it. Mapped, not malloc'd: the leak
// checker neither sees them nor minds those of threads that live until exit.
//

enum { SIGNAL_STACK_SIZE = 64 << 10 };
static _Thread_local bool signal_stack_checked TLS_INITIAL_EXEC;
static _Thread_local void *signal_stack TLS_INITIAL_EXEC; // the one given here, if any

void signal_stack_begin(void) {
  if (signal_stack_checked) return;
  signal_stack_checked = true;
  stack_t old;
  if (sigaltstack(NULL, &old) < 0 || !(old.ss_flags & SS_DISABLE)) return;
  void *stack = mmap(NULL, SIGNAL_STACK_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return; // then only a stack overflow goes unreported
  if (sigaltstack(&(stack_t){.ss_sp = stack, .ss_size = SIGNAL_STACK_SIZE}, NULL) < 0) {
    munmap(stack, SIGNAL_STACK_SIZE);
    return;
  }
  signal_stack = stack;
}

void signal_stack_end(void) {
  signal_stack_checked = false;
  if (!signal_stack) return;
  sigaltstack(&(stack_t){.ss_flags = SS_DISABLE}, NULL);
  munmap(signal_stack, SIGNAL_STACK_SIZE);
  signal_stack = NULL;
}

// Async-signal-safe throughout: atomics and system calls. The first signal ends the process
// by its default action once the children are ended and the paths removed, so the exit
// status says which signal it was. Other threads run on meanwhile: the paths are removed
// again after the wait, no output is committed and no exit taken once this has begun
// (atomic_commit, exit_failure and main ask ending_by_signal), and a signal that comes
// meanwhile on another thread waits.
static void on_ending_signal(int sig) {
  int saved_errno = errno;
  if (atomic_exchange(&ending, true)) {
    for (;;)
      pause();
  }
  signal_children_now(sig);
  remove_registered_failure_paths(true);
  wait_children_now();
  wait_for_makings();
  remove_registered_failure_paths(true); // what threads wrote meanwhile
  struct sigaction default_action = {.sa_handler = SIG_DFL};
  sigaction(sig, &default_action, NULL);
  errno = saved_errno;
  raise(sig); // pending until the handler returns (the signal is blocked in it), then fatal
}

static void append_text(char *buffer, size_t *length, size_t capacity, const char *text) {
  for (; text && *text && *length < capacity; text++)
    buffer[(*length)++] = *text;
}

// A crash: while this thread read an input through LLVM, the input is bad (LLVM's readers are
// not hardened against malformed files) and that is the user's error, exit code 1; otherwise
// it is ours, EXIT_INTERNAL_ERROR. Either way the output is not left half made: the children
// get SIGTERM, the paths are removed, as for an ending signal; then the process exits, with
// the message written in one write(2). As on_ending_signal: system calls and atomics only.
static void on_fatal_signal(int sig) {
  const char *origin = reading_origin, *kind = reading_kind;
  if (atomic_exchange(&ending, true)) {
    for (;;) // another thread's signal is being handled: it ends the process
      pause();
  }
  const char *name = "a fatal signal";
  for (int i = 0; i < NUM_FATAL; i++)
    if (fatal_signals[i].sig == sig) name = fatal_signals[i].name;
  char message[2048];
  size_t n = 0, cap = sizeof message - 1;
  append_text(message, &n, cap, tool_name);
  append_text(message, &n, cap, ": error: ");
  if (origin) {
    const char *parts[] = {
        origin, ": malformed ", kind, ": LLVM's ", kind, " reader crashed on it (", name, ")"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
      append_text(message, &n, cap, parts[i]);
  } else {
    const char *parts[] = {"internal error: ", name, " during ", atomic_load(&crash_stage),
                           "; please report it"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
      append_text(message, &n, cap, parts[i]);
  }
  message[n++] = '\n';
  for (size_t at = 0; at < n;) {
    ssize_t written = write(STDERR_FILENO, message + at, n - at);
    if (written <= 0 && errno != EINTR) break;
    if (written > 0) at += (size_t)written;
  }
  signal_children_now(SIGTERM);
  remove_registered_failure_paths(true);
  wait_children_now();
  wait_for_makings();
  remove_registered_failure_paths(true); // what threads wrote meanwhile
  _exit(origin ? 1 : EXIT_INTERNAL_ERROR);
}

bool ending_by_signal(void) {
  return atomic_load(&ending);
}

void wait_while_ending(void) {
  while (atomic_load(&ending))
    pause(); // the handler ends the process
}

void install_signal_cleanup(void) {
  sigset_t all;
  sigemptyset(&all);
  for (int i = 0; i < NUM_ENDING; i++)
    sigaddset(&all, ending_signals[i]);
  for (int i = 0; i < NUM_FATAL; i++)
    sigaddset(&all, fatal_signals[i].sig);
  struct sigaction sa = {.sa_handler = on_ending_signal, .sa_mask = all};
  for (int i = 0; i < NUM_ENDING; i++) {
    // A signal ignored when we start (nohup, a background job's SIGINT) stays ignored.
    if (sigaction(ending_signals[i], NULL, &saved[i]) < 0 || saved[i].sa_handler == SIG_IGN)
      continue;
    installed[i] = sigaction(ending_signals[i], &sa, NULL) == 0;
  }
  signal_stack_begin();
  struct sigaction fatal = {.sa_handler = on_fatal_signal, .sa_mask = all, .sa_flags = SA_ONSTACK};
  for (int i = 0; i < NUM_FATAL; i++) {
    if (sigaction(fatal_signals[i].sig, NULL, &saved_fatal[i]) < 0) continue;
    installed_fatal[i] = sigaction(fatal_signals[i].sig, &fatal, NULL) == 0;
  }
}

void uninstall_signal_cleanup(void) {
  for (int i = 0; i < NUM_ENDING; i++)
    if (installed[i]) sigaction(ending_signals[i], &saved[i], NULL);
  for (int i = 0; i < NUM_FATAL; i++)
    if (installed_fatal[i]) sigaction(fatal_signals[i].sig, &saved_fatal[i], NULL);
}
