// The SPIR-V worker pool: long-lived worker processes, forked by hooks/spawner.c and fed
// bitcode over pipes by libuv (ARCHITECTURE fact 9). It does not generate code itself
// (spirv/codegen.c, where each worker forks a fresh child per module).
#include "hooks/hooks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Threading: everything here runs on the loop thread, in libuv callbacks or in calls
// made from them (a thread-pool stage hands over from its after_work callback, which
// libuv also runs on the loop thread); no other thread ever touches a pool, a job or a
// worker. That is the whole synchronization story: no locks. The parallelism is in the
// worker processes.
//
// Lifetimes: a Job lives from submit until its done callback returns. A Worker lives
// until its three pipes are closed; it leaves the pool's list when it is reaped (the
// spawner has reported its exit and both its output pipes reached EOF, so no answer or
// stderr line is lost). The pool itself is freed only from a close callback, after every
// worker is freed, so no call into the pool can free it under its caller's feet.

typedef struct Job {
  struct Job *next; // in the queue
  Buffer bitcode;   // handed to the worker that takes the job
  CodegenDone done;
  void *arg;
} Job;

enum { STDERR_KEEP = 16 * 1024 }; // the last bytes of a worker's stderr kept for messages

// A worker's state is the set of these events that have happened to it. Exit, stdout EOF and
// stderr EOF arrive in any order; the worker is reaped once all three have. Every change of
// state goes through worker_event(), which is where each transition's action is written.
typedef enum {
  WORKER_EXITED = 1 << 0,       // the spawner reported its exit (or cannot any more)
  WORKER_STDOUT_DONE = 1 << 1,  // no more answers: EOF, a read error, or we stopped reading
  WORKER_STDERR_DONE = 1 << 2,  // its stderr reached EOF
  WORKER_STDIN_CLOSED = 1 << 3, // we closed its request pipe: it takes no more jobs
  WORKER_REAPED = 1 << 4,       // out of the pool's list; a job it held has failed
} WorkerEvent;
enum { WORKER_ENDED = WORKER_EXITED | WORKER_STDOUT_DONE | WORKER_STDERR_DONE };

typedef struct Worker {
  WorkerPool *pool;
  struct Worker *next; // in pool->workers while not reaped
  unsigned serial;     // for messages and the spawner: worker 1, 2, ...
  int pid;             // 0 until the spawner reports it started
  uv_pipe_t to_worker, from_worker, worker_stderr;
  int open_handles; // freed when this drops to 0

  Job *job;         // the job it owns, NULL when idle
  double sent_at;   // --time-trace: when the job was handed to this worker
  size_t sent_size; // and how much bitcode it got
  uv_write_t write_req;
  WorkerFrame request_header;
  Buffer sending; // the bitcode being written; freed when the write ends

  uint8_t *response; // the answer as it arrives: WorkerFrame, then payload
  size_t response_size, response_cap;
  Buffer stderr_text; // recent stderr (at most STDERR_KEEP bytes)
  char stderr_chunk[4096];

  char *failure; // why the worker was killed or its request not sent
  unsigned state; // the WorkerEvents that have happened
  int64_t exit_status;
  int term_signal;
} Worker;

struct WorkerPool {
  uv_loop_t *loop;
  int max_workers;
  int num_workers; // live workers (in the list, not reaped)
  int allocated;   // Worker structs not yet freed
  Worker *workers;
  Job *queue_head, **queue_tail;
  size_t pending; // submitted jobs whose done callback has not run
  bool stopping, closing, spawner_gone;
  uv_poll_t reports; // the spawner's socket; closing it last frees the pool
};

// Serials name workers to the spawner, which outlives pools: unique in the process.
static unsigned workers_spawned;

static void dispatch(WorkerPool *pool);
static void maybe_finish_stop(WorkerPool *pool);

static void free_pool(uv_handle_t *handle) {
  free(handle->data);
}

// Runs the job's callback after the pool's books are already balanced, so that the
// callback may submit more work or stop the pool.
static void finish_job(WorkerPool *pool, Job *job, Buffer spirv, char *errmsg) {
  assert_that(pool->pending > 0);
  pool->pending--;
  CodegenDone done = job->done;
  void *arg = job->arg;
  free(job->bitcode.data);
  free(job);
  done(arg, spirv, errmsg);
}

//
// A worker's handles and their callbacks.
//

static void worker_handle_closed(uv_handle_t *handle) {
  Worker *w = handle->data;
  if (--w->open_handles) return;
  WorkerPool *pool = w->pool;
  free(w->sending.data);
  free(w->response);
  free(w->stderr_text.data);
  free(w->failure);
  free(w);
  pool->allocated--;
  maybe_finish_stop(pool);
}

static void close_handle(uv_handle_t *handle) {
  if (!uv_is_closing(handle)) uv_close(handle, worker_handle_closed);
}

// The message for a job whose worker went away without answering.
static char *crash_message(const Worker *w) {
  char *what;
  if (w->failure)
    what = xstrdup(w->failure);
  else if (w->term_signal == SIGKILL) // nothing of ours sends it without saying why (failure)
    what = format("SPIR-V worker %u was killed (signal %d, %s): by another process, or by the "
                  "out-of-memory killer",
                  w->serial, w->term_signal, strsignal(w->term_signal));
  else if (w->term_signal)
    what = format("SPIR-V worker %u crashed (signal %d, %s)", w->serial, w->term_signal,
                  strsignal(w->term_signal));
  else
    what = format("SPIR-V worker %u exited with status %lld before answering", w->serial,
                  (long long)w->exit_status);
  size_t n = w->stderr_text.size;
  const char *text = (const char *)w->stderr_text.data;
  while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
    n--;
  if (!n) return what;
  char *msg = format("%s; its stderr:\n%.*s", what, (int)n, text);
  free(what);
  return msg;
}

static bool worker_has(const Worker *w, unsigned events) {
  return (w->state & events) == events;
}

static void reap(Worker *w);

// The one place a worker's state changes, with each transition's action. An event already
// recorded does nothing again. Once exit, stdout EOF and stderr EOF have all happened, the
// worker is reaped.
static void worker_event(Worker *w, WorkerEvent e) {
  if (worker_has(w, e)) return;
  w->state |= e;
  if (e == WORKER_STDIN_CLOSED) close_handle((uv_handle_t *)&w->to_worker);
  if (e == WORKER_REAPED)
    reap(w);
  else if (worker_has(w, WORKER_ENDED))
    worker_event(w, WORKER_REAPED);
}

static void worker_exited(Worker *w, int64_t exit_status, int term_signal) {
  w->exit_status = exit_status;
  w->term_signal = term_signal;
  worker_event(w, WORKER_EXITED);
}

// WORKER_REAPED's action: exit, stdout EOF and stderr EOF have all arrived, so no answer or
// stderr line can be lost.
static void reap(Worker *w) {
  WorkerPool *pool = w->pool;
  for (Worker **p = &pool->workers; *p; p = &(*p)->next)
    if (*p == w) {
      *p = w->next;
      break;
    }
  pool->num_workers--;
  Job *job = w->job;
  w->job = NULL;
  char *msg = job ? crash_message(w) : NULL;
  if (!job && (w->term_signal || w->exit_status) && !pool->stopping)
    note("SPIR-V worker %u ended while idle (status %lld, signal %d)", w->serial,
         (long long)w->exit_status, w->term_signal);
  worker_event(w, WORKER_STDIN_CLOSED);
  close_handle((uv_handle_t *)&w->from_worker);
  close_handle((uv_handle_t *)&w->worker_stderr);
  if (job) finish_job(pool, job, (Buffer){0}, msg);
  dispatch(pool); // replaces the worker if jobs are waiting
  maybe_finish_stop(pool);
}

// A worker that breaks the protocol is killed; its job fails when it is reaped.
static void kill_worker(Worker *w, char *why) {
  if (!w->failure)
    w->failure = why;
  else
    free(why);
  uv_read_stop((uv_stream_t *)&w->from_worker);
  if (!worker_has(w, WORKER_EXITED)) spawner_kill(w->serial); // it kills only the unreaped
  worker_event(w, WORKER_STDOUT_DONE);
}

static void request_written(uv_write_t *req, int status) {
  Worker *w = req->data;
  free(w->sending.data);
  w->sending = (Buffer){0};
  // A worker that died mid-request is reported by reap; only other errors matter.
  if (status < 0 && status != UV_EPIPE && status != UV_ECANCELED && !worker_has(w, WORKER_EXITED) &&
      !worker_has(w, WORKER_REAPED))
    kill_worker(
        w, format("cannot send bitcode to SPIR-V worker %u: %s", w->serial, uv_strerror(status)));
}

static void alloc_response(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  Worker *w = handle->data;
  if (suggested < 65536) suggested = 65536;
  if (w->response_cap - w->response_size < suggested) {
    size_t cap = w->response_cap * 2;
    if (cap < w->response_size + suggested) cap = w->response_size + suggested;
    w->response = xrealloc(w->response, cap);
    w->response_cap = cap;
  }
  buf->base = (char *)w->response + w->response_size;
  buf->len = w->response_cap - w->response_size;
}

// Completes the worker's job once a whole frame has arrived.
static void take_response(Worker *w) {
  WorkerFrame h;
  if (w->response_size < sizeof h) return;
  memcpy(&h, w->response, sizeof h);
  if (h.magic != WORKER_MAGIC || (h.kind != WORKER_SPIRV && h.kind != WORKER_ERROR) || !w->job) {
    kill_worker(w, format("SPIR-V worker %u sent a malformed response", w->serial));
    return;
  }
  if (w->response_size - sizeof h < h.size) return;
  if (w->response_size - sizeof h > h.size) {
    kill_worker(w, format("SPIR-V worker %u sent more than one response", w->serial));
    return;
  }

  Job *job = w->job;
  w->job = NULL;
  Buffer spirv = {0};
  char *errmsg = NULL;
  if (h.kind == WORKER_SPIRV) {
    // The payload moves to the front and the buffer, cut to its size, goes to the callee:
    // reads grow it by at least 64 KiB, twice a typical image.
    memmove(w->response, w->response + sizeof h, h.size);
    spirv = (Buffer){.data = xrealloc(w->response, h.size), .size = h.size};
  } else {
    errmsg = xstrndup((const char *)w->response + sizeof h, h.size);
    free(w->response);
  }
  w->response = NULL;
  w->response_size = w->response_cap = 0;
  if (trace_enabled()) {
    char detail[96];
    snprintf(detail, sizeof detail, "%zu bytes of bitcode, %zu of SPIR-V", w->sent_size,
             spirv.size);
    trace_span("codegen", detail, w->sent_at, now_seconds(), TRACE_WORKER_TID + (int)w->serial);
  }
  WorkerPool *pool = w->pool;
  finish_job(pool, job, spirv, errmsg);
  dispatch(pool);
  maybe_finish_stop(pool);
}

static void read_response(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  (void)buf;
  Worker *w = stream->data;
  if (nread > 0) {
    w->response_size += nread;
    take_response(w);
  } else if (nread < 0) { // EOF or a read error: nothing more will come
    uv_read_stop(stream);
    worker_event(w, WORKER_STDOUT_DONE);
  }
}

static void alloc_stderr(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  (void)suggested;
  Worker *w = handle->data;
  buf->base = w->stderr_chunk;
  buf->len = sizeof w->stderr_chunk;
}

static void read_stderr(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  Worker *w = stream->data;
  if (nread < 0) {
    uv_read_stop(stream);
    worker_event(w, WORKER_STDERR_DONE);
    return;
  }
  if (nread == 0) return;
  // Not printed: a crash report attaches it; with -v it is shown as notes.
  note("SPIR-V worker %u: %.*s", w->serial, (int)nread, buf->base);
  Buffer *t = &w->stderr_text;
  if (t->size + nread > STDERR_KEEP) {
    size_t drop = t->size + nread - STDERR_KEEP;
    if (drop > t->size) drop = t->size;
    memmove(t->data, t->data + drop, t->size - drop);
    t->size -= drop;
  }
  buffer_append(t, buf->base, nread < STDERR_KEEP ? (size_t)nread : STDERR_KEEP);
}

// Creates the worker's stdin, stdout and stderr: our ends go to its handles, the worker's
// into CHILD. 0, or a negative errno (with the ends made so far in the handles and CHILD).
static int open_pipes(Worker *w, int child[3]) {
  uv_pipe_t *ours[3] = {&w->to_worker, &w->from_worker, &w->worker_stderr};
  for (int i = 0; i < 3; i++) {
    uv_file fds[2]; // read end, write end
    int rc = uv_pipe(fds, 0, 0);
    if (rc < 0) return rc;
    int mine = i == 0 ? fds[1] : fds[0];
    child[i] = i == 0 ? fds[0] : fds[1];
    rc = uv_pipe_open(ours[i], mine);
    if (rc < 0) {
      close(mine);
      return rc;
    }
  }
  return 0;
}

// Starts one more worker process and adds it to the pool. 0, or a negative errno.
static int spawn_worker(WorkerPool *pool, Worker **out) {
  if (pool->spawner_gone) return UV_ESRCH;
  Worker *w = xcalloc(1, sizeof *w);
  w->pool = pool;
  w->serial = ++workers_spawned;
  pool->allocated++;
  uv_pipe_init(pool->loop, &w->to_worker, 0);
  uv_pipe_init(pool->loop, &w->from_worker, 0);
  uv_pipe_init(pool->loop, &w->worker_stderr, 0);
  w->to_worker.data = w->from_worker.data = w->worker_stderr.data = w->write_req.data = w;
  w->open_handles = 3;

  // The worker gets exactly the three ends in CHILD; they and ours are close-on-exec, and
  // the worker closes anything above 2 that the spawner still had.
  int child[3] = {-1, -1, -1};
  int rc = open_pipes(w, child);
  if (rc == 0) rc = spawner_spawn(w->serial, child);
  for (int i = 0; i < 3; i++)
    if (child[i] >= 0) close(child[i]);
  if (rc < 0) goto fail_pipes;
  rc = uv_read_start((uv_stream_t *)&w->from_worker, alloc_response, read_response);
  if (rc < 0) goto fail_read;
  rc = uv_read_start((uv_stream_t *)&w->worker_stderr, alloc_stderr, read_stderr);
  if (rc < 0) goto fail_read;

  w->next = pool->workers;
  pool->workers = w;
  pool->num_workers++;
  *out = w;
  return 0;

fail_read:
  spawner_kill(w->serial);
fail_pipes:
  w->state |= WORKER_REAPED; // never listed
  worker_event(w, WORKER_STDIN_CLOSED);
  close_handle((uv_handle_t *)&w->from_worker);
  close_handle((uv_handle_t *)&w->worker_stderr);
  return rc;
}

static Worker *find_worker(WorkerPool *pool, unsigned serial) {
  for (Worker *w = pool->workers; w; w = w->next)
    if (w->serial == serial) return w;
  return NULL;
}

// The spawner's reports: a worker started, could not start, or ended. If the spawner itself
// is gone, its workers are killed with it (spawner.c) and no exit will be reported: they
// count as ended, and are reaped once their pipes close.
static void read_reports(uv_poll_t *handle, int status, int events) {
  (void)events;
  WorkerPool *pool = handle->data;
  SpawnerMessage m;
  int rc;
  while (status == 0 && (rc = spawner_receive(&m)) > 0) {
    Worker *w = find_worker(pool, m.serial);
    if (!w) continue; // one killed and reaped in the meantime
    if (m.kind == SPAWNER_STARTED) {
      w->pid = (int)m.value;
      note("started SPIR-V worker %u (pid %d)", w->serial, w->pid);
    } else if (m.kind == SPAWNER_FAILED) {
      if (!w->failure)
        w->failure = format("cannot start SPIR-V worker %u: %s", w->serial, strerror((int)m.value));
      worker_exited(w, 127, 0);
    } else if (m.kind == SPAWNER_EXITED) {
      worker_exited(w, m.value, m.signal);
    }
  }
  if (status == 0 && rc == 0) return;
  uv_poll_stop(handle);
  pool->spawner_gone = true;
  for (Worker *w = pool->workers, *next; w; w = next) {
    next = w->next; // reaping may unlink w
    if (worker_has(w, WORKER_EXITED)) continue;
    if (!w->failure)
      w->failure = format("SPIR-V worker %u ended with the worker spawner", w->serial);
    worker_exited(w, 127, 0);
  }
  dispatch(pool); // with no spawner, waiting jobs fail rather than wait
  maybe_finish_stop(pool);
}

static void send_job(Worker *w, Job *job) {
  w->job = job;
  w->sent_at = now_seconds();
  w->sent_size = job->bitcode.size;
  w->stderr_text.size = 0;
  w->sending = job->bitcode; // the write owns the bytes now; the job keeps its callback
  job->bitcode = (Buffer){0};
  w->request_header = (WorkerFrame){WORKER_MAGIC, WORKER_CODEGEN, w->sending.size};
  uv_buf_t bufs[2] = {
      uv_buf_init((char *)&w->request_header, sizeof w->request_header),
      uv_buf_init((char *)w->sending.data, w->sending.size),
  };
  int rc = uv_write(&w->write_req, (uv_stream_t *)&w->to_worker, bufs, 2, request_written);
  if (rc < 0) {
    free(w->sending.data);
    w->sending = (Buffer){0};
    kill_worker(w,
                format("cannot send bitcode to SPIR-V worker %u: %s", w->serial, uv_strerror(rc)));
  }
}

// Hands queued jobs to idle workers, starting workers up to the limit as needed (so
// never more than there were jobs).
static void dispatch(WorkerPool *pool) {
  while (pool->queue_head) {
    Worker *idle = NULL;
    for (Worker *w = pool->workers; w && !idle; w = w->next)
      if (!w->job && !w->failure && !(w->state & (WORKER_EXITED | WORKER_STDIN_CLOSED)))
        idle = w;
    if (!idle) {
      if (pool->num_workers >= pool->max_workers) return;
      int rc = spawn_worker(pool, &idle);
      if (rc < 0) {
        if (pool->num_workers > 0) return; // the running workers will take the queue
        // No worker at all can run: fail the jobs one by one rather than hang.
        Job *job = pool->queue_head;
        pool->queue_head = job->next;
        if (!pool->queue_head) pool->queue_tail = &pool->queue_head;
        finish_job(pool, job, (Buffer){0},
                   format("cannot start a SPIR-V worker: %s",
                          rc == UV_ESRCH ? "the worker spawner has ended" : uv_strerror(rc)));
        continue;
      }
    }
    Job *job = pool->queue_head;
    pool->queue_head = job->next;
    if (!pool->queue_head) pool->queue_tail = &pool->queue_head;
    send_job(idle, job);
  }
}

// Once stopping and out of work: EOF to every worker; they exit and get reaped. After
// the last worker is freed the spawner's handle closes and its callback frees the pool.
static void maybe_finish_stop(WorkerPool *pool) {
  if (!pool->stopping || pool->pending) return;
  for (Worker *w = pool->workers; w; w = w->next)
    worker_event(w, WORKER_STDIN_CLOSED);
  if (!pool->workers && !pool->allocated && !pool->closing) {
    pool->closing = true;
    uv_close((uv_handle_t *)&pool->reports, free_pool);
  }
}

WorkerPool *worker_pool_start(uv_loop_t *loop, int num_workers, char **errmsg) {
  if (spawner_fd() < 0) {
    *errmsg = xstrdup("the worker spawner is not running");
    return NULL;
  }
  // A worker that dies while we write to it must cost an EPIPE, not our process.
  struct sigaction sa;
  if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);

  WorkerPool *pool = xcalloc(1, sizeof *pool);
  int rc = uv_poll_init(loop, &pool->reports, spawner_fd());
  if (rc < 0) {
    *errmsg = format("cannot watch the worker spawner: %s", uv_strerror(rc));
    free(pool);
    return NULL;
  }
  pool->reports.data = pool;
  uv_poll_start(&pool->reports, UV_READABLE, read_reports);
  pool->loop = loop;
  pool->max_workers = num_workers > 0 ? num_workers : 1;
  pool->queue_tail = &pool->queue_head;
  *errmsg = NULL;
  return pool;
}

void worker_pool_submit(WorkerPool *pool, Buffer bitcode, CodegenDone done, void *arg) {
  if (pool->stopping) die("job submitted to a stopped SPIR-V worker pool");
  Job *job = xcalloc(1, sizeof *job);
  job->bitcode = bitcode;
  job->done = done;
  job->arg = arg;
  *pool->queue_tail = job;
  pool->queue_tail = &job->next;
  pool->pending++;
  dispatch(pool);
}

void worker_pool_stop(WorkerPool *pool) {
  if (pool->stopping) return;
  pool->stopping = true;
  maybe_finish_stop(pool);
}
