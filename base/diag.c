// Diagnostics: errors, warnings and notes in the form "tool: error: WHAT: message", fatal()
// for bad input and die() for our own bugs. Nothing here allocates or knows about LLVM.
#include "base/base.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

bool verbose;

// Errors may be recorded by worker threads; the count and stderr are shared.
static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;
static int errors;

static bool status_shown; // a status line (status_line) is on stderr's last line

void status_line(const char *text) {
  pthread_mutex_lock(&diag_lock);
  if (status_shown || text) fputs("\r\033[K", stderr); // to the line's start, clear it
  if (text) fputs(text, stderr);
  status_shown = text != NULL;
  fflush(stderr);
  pthread_mutex_unlock(&diag_lock);
}

static void vreport(const char *kind, const char *what, const char *fmt, va_list ap) {
  pthread_mutex_lock(&diag_lock);
  if (status_shown) { // a message replaces it; the next update shows it again
    fputs("\r\033[K", stderr);
    status_shown = false;
  }
  if (what)
    fprintf(stderr, "%s: %s: %s: ", tool_name, kind, what);
  else
    fprintf(stderr, "%s: %s: ", tool_name, kind);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  pthread_mutex_unlock(&diag_lock);
}

void error(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error", what, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&diag_lock);
  errors++;
  pthread_mutex_unlock(&diag_lock);
}

static int warnings;

void warning(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("warning", what, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&diag_lock);
  warnings++;
  pthread_mutex_unlock(&diag_lock);
}

int warning_count(void) {
  pthread_mutex_lock(&diag_lock);
  int n = warnings;
  pthread_mutex_unlock(&diag_lock);
  return n;
}

void inform(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("note", what, fmt, ap);
  va_end(ap);
}

void note(const char *fmt, ...) {
  if (!verbose) return;
  va_list ap;
  va_start(ap, fmt);
  vreport("note", NULL, fmt, ap);
  va_end(ap);
}

int error_count(void) {
  pthread_mutex_lock(&diag_lock);
  int n = errors;
  pthread_mutex_unlock(&diag_lock);
  return n;
}

// _exit, not exit: the failure may be reported on any thread (an LLVM fatal error on one of
// libLTO's), and exit() would run libLLVM's static destructors under the threads still
// working, which then crash (exit code 70 for a full TMPDIR). Nothing of ours is left to
// the atexit handlers; stdio is flushed here.
static __attribute__((noreturn)) void exit_failure(void) {
  wait_while_ending();
  remove_registered_failure_paths(false);
  fflush(NULL);
  _exit(1);
}

void (*fatal_hook)(void);

__attribute__((noreturn)) void fatal(const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error", what, fmt, ap);
  va_end(ap);
  if (fatal_hook) fatal_hook(); // a fuzz target's longjmp: the input was refused
  exit_failure();
}

void exit_on_errors(void) {
  if (error_count()) exit_failure();
}

__attribute__((noreturn)) void die_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: internal error at %s:%d: ", tool_name, file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  reading_input_end(); // ours, not the input's: the SIGABRT handler says internal error
  abort();
}
