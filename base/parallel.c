// Threads and time: parallel_for over a libuv thread per job, the clock, and handing freed
// memory back. A worker touches only its own item; nothing here knows what the items are.
#include "base/base.h"

#include <stdlib.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

void release_free_memory(void) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

void heap_steps_for_threads(void) {
#ifdef __GLIBC__
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
  size_t n, next;
  void (*fn)(void *, size_t);
  void *arg;
  uv_mutex_t lock;
} ParallelFor;

static void parallel_worker(void *p) {
  ParallelFor *pf = p;
  signal_stack_begin(); // a crash reading an input here must still be reported
  for (;;) {
    uv_mutex_lock(&pf->lock);
    size_t i = pf->next++;
    uv_mutex_unlock(&pf->lock);
    if (i >= pf->n) break;
    pf->fn(pf->arg, i);
  }
  signal_stack_end();
}

void parallel_for(size_t n, int jobs, void (*fn)(void *arg, size_t i), void *arg) {
  ParallelFor pf = {.n = n, .fn = fn, .arg = arg};
  if (jobs < 1) jobs = 1;
  if ((size_t)jobs > n) jobs = (int)n;
  if (jobs <= 1) {
    for (size_t i = 0; i < n; i++)
      fn(arg, i);
    return;
  }
  if (uv_mutex_init(&pf.lock)) die("uv_mutex_init failed");
  uv_thread_t *threads = xcalloc(jobs, sizeof(uv_thread_t));
  // Big modules need deep stacks in LLVM's recursive passes.
  uv_thread_options_t options = {.flags = UV_THREAD_HAS_STACK_SIZE, .stack_size = 16 << 20};
  for (int t = 0; t < jobs; t++)
    if (uv_thread_create_ex(&threads[t], &options, parallel_worker, &pf))
      die("cannot start a thread");
  for (int t = 0; t < jobs; t++)
    uv_thread_join(&threads[t]);
  free(threads);
  uv_mutex_destroy(&pf.lock);
}
