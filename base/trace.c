// --time-trace and --stats: a thread-safe recorder of spans (written as Chrome trace JSON,
// like clang's -ftime-trace) and of link counters. It measures nothing by itself.
#include "base/base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char *name, *detail;
  double start, end; // now_seconds()
  int tid;
} TraceEvent;

// Any thread may record; the array is the only shared state, behind the lock.
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static TraceEvent *events;
static size_t num_events, cap_events;
static atomic_bool enabled;
static double origin; // set once, before any thread records
static double granularity; // set once, before any thread records

static atomic_int next_thread_id = 1; // 0 is the main thread
static _Thread_local int thread_id = -1;
static _Thread_local bool is_main_thread;

static atomic_size_t counters[STAT_COUNT];

void trace_start(void) {
  is_main_thread = true;
  origin = now_seconds();
  atomic_store(&enabled, true);
}

void trace_set_granularity(double seconds) {
  granularity = seconds;
}

bool trace_enabled(void) {
  return atomic_load(&enabled);
}

int trace_thread_id(void) {
  if (is_main_thread) return 0;
  if (thread_id < 0) thread_id = atomic_fetch_add(&next_thread_id, 1);
  return thread_id;
}

void trace_span(const char *name, const char *detail, double start, double end, int tid) {
  if (!atomic_load(&enabled) || end - start < granularity) return;
  TraceEvent e = {xstrdup(name), detail ? xstrdup(detail) : NULL, start, end, tid};
  pthread_mutex_lock(&trace_lock);
  if (num_events == cap_events) {
    cap_events = cap_events ? cap_events * 2 : 256;
    events = xrealloc(events, cap_events * sizeof(TraceEvent));
  }
  events[num_events++] = e;
  pthread_mutex_unlock(&trace_lock);
}

static void append_text(Buffer *b, const char *s) {
  buffer_append(b, s, strlen(s));
}

// A JSON string literal: quotes, backslashes and control characters escaped.
static void append_json_string(Buffer *b, const char *s) {
  append_text(b, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char esc[8];
    if (c == '"' || c == '\\') {
      esc[0] = '\\', esc[1] = (char)c, esc[2] = 0;
      append_text(b, esc);
    } else if (c < 0x20) {
      snprintf(esc, sizeof esc, "\\u%04x", c);
      append_text(b, esc);
    } else {
      buffer_append(b, s, 1);
    }
  }
  append_text(b, "\"");
}

static void append_thread_name(Buffer *b, int pid, int tid) {
  char *name = tid == 0                  ? xstrdup("main")
               : tid >= TRACE_WORKER_TID ? format("SPIR-V worker %d", tid - TRACE_WORKER_TID)
                                         : format("thread %d", tid);
  char *head = format(",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                      "\"args\":{\"name\":",
                      pid, tid);
  append_text(b, head);
  append_json_string(b, name);
  append_text(b, "}}");
  free(head);
  free(name);
}

int trace_write(const char *path) {
  int pid = (int)getpid();
  Buffer b = {0};
  append_text(&b, "{\"traceEvents\":[\n");
  char *process = format("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                         "\"args\":{\"name\":\"" TOOL_NAME "\"}}",
                         pid);
  append_text(&b, process);
  free(process);
  pthread_mutex_lock(&trace_lock);
  StrMap named = {0};
  for (size_t i = 0; i < num_events; i++) {
    const TraceEvent *e = &events[i];
    char tid_key[16];
    snprintf(tid_key, sizeof tid_key, "%d", e->tid);
    if (!strmap_get(&named, tid_key)) {
      strmap_put(&named, tid_key, (void *)1);
      append_thread_name(&b, pid, e->tid);
    }
    append_text(&b, ",\n{\"name\":");
    append_json_string(&b, e->name);
    char *times = format(",\"ph\":\"X\",\"ts\":%.0f,\"dur\":%.0f,\"pid\":%d,\"tid\":%d",
                         (e->start - origin) * 1e6, (e->end - e->start) * 1e6, pid, e->tid);
    append_text(&b, times);
    free(times);
    if (e->detail) {
      append_text(&b, ",\"args\":{\"detail\":");
      append_json_string(&b, e->detail);
      append_text(&b, "}");
    }
    append_text(&b, "}");
  }
  pthread_mutex_unlock(&trace_lock);
  append_text(&b, "\n],\"displayTimeUnit\":\"ms\"}\n");
  int rc = write_file_atomic(path, b.data, b.size);
  free(b.data);
  strmap_free(&named);
  return rc;
}

void stats_add(Stat s, size_t n) {
  atomic_fetch_add(&counters[s], n);
}

size_t stats_get(Stat s) {
  return atomic_load(&counters[s]);
}
