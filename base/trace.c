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

// One event as a line of the trace: a compact JSON object written by jansson (names and
// details are any bytes: json_text makes them valid UTF-8).
static void append_event(Buffer *b, json_t *event) {
  char *text = json_dump_text(event);
  buffer_append(b, ",\n", 2);
  buffer_append(b, text, strlen(text));
  free(text);
  json_decref(event);
}

static json_t *event(const char *name, const char *ph, int pid, int tid) {
  json_t *e = json_new_object();
  json_put(e, "name", json_text(name));
  json_put(e, "ph", json_text(ph));
  json_put(e, "pid", json_int(pid));
  json_put(e, "tid", json_int(tid));
  return e;
}

static json_t *args_named(const char *key, const char *value) {
  json_t *args = json_new_object();
  json_put(args, key, json_text(value));
  return args;
}

static void append_thread_name(Buffer *b, int pid, int tid) {
  char *name = tid == 0                  ? xstrdup("main")
               : tid >= TRACE_WORKER_TID ? format("SPIR-V worker %d", tid - TRACE_WORKER_TID)
                                         : format("thread %d", tid);
  json_t *e = event("thread_name", "M", pid, tid);
  json_put(e, "args", args_named("name", name));
  append_event(b, e);
  free(name);
}

// Microseconds since the trace started, as a whole number.
static json_t *microseconds(double seconds) {
  return json_int(seconds * 1e6 < 0 ? (int64_t)(seconds * 1e6 - 0.5) : (int64_t)(seconds * 1e6 + 0.5));
}

// {"traceEvents":[ one event a line ],"displayTimeUnit":"ms"}: the Chrome trace format.
int trace_write(const char *path) {
  int pid = (int)getpid();
  Buffer b = {0};
  const char *head = "{\"traceEvents\":[";
  buffer_append(&b, head, strlen(head));
  json_t *process = event("process_name", "M", pid, 0);
  json_put(process, "args", args_named("name", TOOL_NAME));
  append_event(&b, process);
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
    json_t *span = json_new_object();
    json_put(span, "name", json_text(e->name));
    json_put(span, "ph", json_text("X"));
    json_put(span, "ts", microseconds(e->start - origin));
    json_put(span, "dur", microseconds(e->end - e->start));
    json_put(span, "pid", json_int(pid));
    json_put(span, "tid", json_int(e->tid));
    if (e->detail) json_put(span, "args", args_named("detail", e->detail));
    append_event(&b, span);
  }
  pthread_mutex_unlock(&trace_lock);
  const char *tail = "\n],\"displayTimeUnit\":\"ms\"}\n";
  buffer_append(&b, tail, strlen(tail));
  // The first event followed the bracket directly: ",\n" after '[' becomes "\n".
  memmove(b.data + strlen(head), b.data + strlen(head) + 1, b.size - strlen(head) - 1);
  b.size--;
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
