// `sycl-thinlto distribute-local` (installed also as sycl-thinlto-local): a DTLTO distributor
// that runs a job list's jobs on this host's cores, or one share of them (on each node of a
// Slurm step: dist/sycl-thinlto-slurm). It runs LLVM's own DTLTO jobs as well as ours: a job's
// command is common.args + job.args (ARCHITECTURE.md fact 11). It does not retry a job: the
// linker does, from what the outputs say.
#include "tool/tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char local_usage[] =
    "USAGE: sycl-thinlto distribute-local [options] <jobs.json>\n"
    "       sycl-thinlto-local [options] <jobs.json>\n"
    "\n"
    "Runs the jobs of a DTLTO job list ({\"common\": {\"args\"}, \"jobs\": [{\"args\"}]}, each\n"
    "job's command being common.args followed by its own args) on this host, -j at a time.\n"
    "A job's output is printed when it ends; a failed job is reported and the others go on.\n"
    "Exit status 0 once every job has run, whatever their own status (the linker finds a\n"
    "failed job by its outputs); 1 if the list cannot be read.\n"
    "\n"
    "OPTIONS:\n"
    "  -j <n>, --jobs=<n>   jobs at a time (default: $SLURM_CPUS_PER_TASK, else every core)\n"
    "  --share=<k>/<n>      only the jobs i with i % n == k (0 <= k < n)\n"
    "  --share=slurm        the share of this Slurm task: $SLURM_PROCID/$SLURM_NTASKS\n"
    "  --count              print how many jobs the list holds, run none\n"
    "With --share it prints \"share K/N: ran J job(s)\" on stdout at the end.\n";

//
// The job list, read by jansson
//

// Appends the strings of array V to L (copies); false if V is not an array of strings.
static bool push_strings(StringList *l, const json_t *v) {
  if (!json_is_array(v)) return false;
  size_t i;
  json_t *item;
  json_array_foreach(v, i, item) {
    if (!json_is_string(item)) return false;
    strlist_push(l, xstrndup(json_string_value(item), json_string_length(item)));
  }
  return true;
}

//
// Running the jobs
//

typedef struct {
  size_t index; // in the list
  StringList argv;
  char *what; // its first output, or its command, for messages
  pid_t pid;
  int log_fd; // its stdout and stderr
} LocalJob;

// Starts a job of another program: fork and exec (base/run_tool.c).
static void start_job(LocalJob *job) {
  job->log_fd = memfd_create("sycl-thinlto-local-job", MFD_CLOEXEC);
  if (job->log_fd < 0) fatal(NULL, "cannot create a job's log: %s", strerror(errno));
  strlist_push(&job->argv, NULL);
  job->argv.count--;
  job->pid = child_start((const char *const *)job->argv.items, NULL, NULL, job->log_fd);
  if (job->pid < 0) // the program could not be run: the job failed, naming it
    dprintf(job->log_fd, "cannot run %s: %s\n", job->argv.items[0], strerror(-job->pid));
}

//
// Our own backend's jobs (what our links send) run on workers that this runner forks once
// and keeps, -j of them, each running one job after another in its process: an exec per job
// would load and start libLLVM again (about 25 ms of CPU a job), and a fork per job would
// fault in again all of libLLVM a job touches (the reader, the passes, the validator). A
// worker forks only the SPIR-V emission of each image (spirv_emit_forked), as the link's own
// pool does (hooks/pool.c): the backend is reliable once per process (fact 9). A job that
// fails ends its worker at worst (fatal(), a crash): the runner reports that job and forks
// a new worker. The runner sets up the SPIR-V target once before it forks any, and never
// emits itself.
//

static bool is_our_backend(const StringList *argv) {
  return argv->count >= 2 && !strcmp(argv->items[1], "backend") &&
         same_file(argv->items[0], "/proc/self/exe");
}

typedef struct {
  pid_t pid;
  int sock;      // the runner's end: a job's index and log go out, its exit status comes back
  LocalJob *job; // the job it runs, or NULL
} Worker;

typedef struct {
  LocalJob *jobs;
  Worker *workers;
  size_t num_workers;
  int sock; // the worker's end
} WorkerStart;

// One job's index and its log's descriptor, in one packet.
static int send_job(int sock, size_t index, int log_fd) {
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(int))];
  } control = {0};
  struct iovec iov = {&index, sizeof index};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes,
                       .msg_controllen = sizeof control.bytes};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &log_fd, sizeof log_fd);
  while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
    if (errno != EINTR) return -errno;
  return 0;
}

// 1 and the job, 0 at the end of the jobs, or a negative errno.
static int receive_job(int sock, size_t *index, int *log_fd) {
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(int))];
  } control;
  struct iovec iov = {index, sizeof *index};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes,
                       .msg_controllen = sizeof control.bytes};
  ssize_t n;
  while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0)
    if (errno != EINTR) return -errno;
  if (n == 0) return 0;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (n != sizeof *index || !c || c->cmsg_type != SCM_RIGHTS) return -EPROTO;
  memcpy(log_fd, CMSG_DATA(c), sizeof *log_fd);
  return 1;
}

// The worker process: jobs until the runner closes its socket.
static int worker_main_loop(void *arg) {
  const WorkerStart *w = arg;
  for (size_t i = 0; i < w->num_workers; i++) // the others' ends: their EOF is not ours
    if (w->workers[i].sock >= 0) close(w->workers[i].sock);
  forget_children(); // the runner's other workers are not this one's to end
  install_signal_cleanup();
  for (;;) {
    size_t index;
    int log_fd = -1, rc = receive_job(w->sock, &index, &log_fd);
    if (rc <= 0) return rc ? 2 : 0;
    if (dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0) return 2;
    close(log_fd);
    output_rule_reset(); // each job is a command of its own
    const LocalJob *job = &w->jobs[index];
    int status = backend_main((int)job->argv.count - 1, job->argv.items + 1);
    fflush(NULL);
    while (send(w->sock, &status, sizeof status, MSG_NOSIGNAL) < 0)
      if (errno != EINTR) return 2;
  }
}

static void start_worker(Worker *workers, size_t num_workers, size_t i, LocalJob *jobs) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    fatal(NULL, "cannot start a worker: %s", strerror(errno));
  WorkerStart start = {jobs, workers, num_workers, sv[1]};
  workers[i].sock = sv[0];
  workers[i].pid = child_start(NULL, worker_main_loop, &start, 2);
  close(sv[1]);
  if (workers[i].pid < 0) fatal(NULL, "cannot start a worker: %s", strerror(-workers[i].pid));
  workers[i].job = NULL;
}

// Prints what the job wrote, and says how it failed if it did.
static void finish_job(LocalJob *job, int status) {
  off_t size = lseek(job->log_fd, 0, SEEK_END);
  char *text = xcalloc(1, size > 0 ? size + 1 : 1);
  if (size > 0 && pread(job->log_fd, text, size, 0) < 0) text[0] = 0;
  close(job->log_fd);
  bool ok = job->pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    char *how = job->pid < 0        ? xstrdup("not started")
                : WIFSIGNALED(status) ? format("killed by signal %d (%s)", WTERMSIG(status),
                                               strsignal(WTERMSIG(status)))
                                      : format("exit status %d", WEXITSTATUS(status));
    fprintf(stderr, "%s: distribute-local: job %zu (%s) failed: %s\n", TOOL_NAME, job->index,
            job->what, how);
    free(how);
  }
  fputs(text, stderr);
  if (*text && text[strlen(text) - 1] != '\n') fputc('\n', stderr);
  fflush(stderr);
  free(text);
  strlist_free(&job->argv);
  free(job->what);
  job->pid = 0;
}

// Jobs of any program, JOBS at a time, each its own process.
static void run_each(LocalJob *run, size_t count, size_t jobs) {
  size_t started = 0, running = 0;
  while (started < count || running) {
    for (; started < count && running < jobs; running++) {
      LocalJob *job = &run[started++];
      start_job(job);
      if (job->pid < 0) { // done already
        finish_job(job, 0);
        running--;
      }
    }
    if (!running) continue;
    int status;
    pid_t pid = child_wait(-1, &status);
    if (pid < 0) die("waitpid: %s", strerror(-pid));
    for (size_t i = 0; i < started; i++)
      if (run[i].pid == pid) {
        finish_job(&run[i], status);
        running--;
        break;
      }
  }
}

// Our backend's jobs on JOBS workers kept for the whole list.
static void run_on_workers(LocalJob *run, size_t count, size_t jobs) {
  spirv_target_init(); // once, for every worker and every emission they fork
  size_t num_workers = jobs < count ? jobs : count;
  Worker *workers = xcalloc(num_workers, sizeof *workers);
  for (size_t i = 0; i < num_workers; i++)
    workers[i].sock = -1;
  for (size_t i = 0; i < num_workers; i++)
    start_worker(workers, num_workers, i, run);
  struct pollfd *fds = xcalloc(num_workers, sizeof *fds);
  size_t started = 0, finished = 0;
  while (finished < count) {
    for (size_t i = 0; i < num_workers && started < count; i++) {
      if (workers[i].job) continue;
      LocalJob *job = &run[started++];
      job->log_fd = memfd_create("sycl-thinlto-local-job", MFD_CLOEXEC);
      if (job->log_fd < 0) fatal(NULL, "cannot create a job's log: %s", strerror(errno));
      int rc = send_job(workers[i].sock, (size_t)(job - run), job->log_fd);
      if (rc) { // the worker ended while idle (a signal): another takes the job
        int status;
        close(workers[i].sock);
        child_wait(workers[i].pid, &status);
        start_worker(workers, num_workers, i, run);
        rc = send_job(workers[i].sock, (size_t)(job - run), job->log_fd);
      }
      if (rc) fatal(NULL, "cannot give a worker its job: %s", strerror(-rc));
      job->pid = workers[i].pid;
      workers[i].job = job;
    }
    for (size_t i = 0; i < num_workers; i++)
      fds[i] = (struct pollfd){.fd = workers[i].job ? workers[i].sock : -1, .events = POLLIN};
    if (poll(fds, num_workers, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll: %s", strerror(errno));
    }
    for (size_t i = 0; i < num_workers; i++) {
      if (!fds[i].revents) continue;
      Worker *w = &workers[i];
      int status;
      ssize_t n = recv(w->sock, &status, sizeof status, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n == (ssize_t)sizeof status) {
        finish_job(w->job, W_EXITCODE(status & 0xff, 0));
      } else { // the job ended its worker: its status is the job's; a new worker goes on
        close(w->sock);
        if (child_wait(w->pid, &status) < 0) die("waitpid: %s", strerror(errno));
        finish_job(w->job, status);
        start_worker(workers, num_workers, i, run);
      }
      w->job = NULL;
      finished++;
    }
  }
  for (size_t i = 0; i < num_workers; i++) { // EOF: each worker ends
    close(workers[i].sock);
    int status;
    child_wait(workers[i].pid, &status);
  }
  free(fds);
  free(workers);
}

static int parse_share(const char *v, unsigned *k, unsigned *n) {
  char *env_k = NULL, *env_n = NULL;
  if (!strcmp(v, "slurm")) {
    env_k = getenv("SLURM_PROCID"), env_n = getenv("SLURM_NTASKS");
    if (!env_k || !env_n) fatal(NULL, "--share=slurm: SLURM_PROCID and SLURM_NTASKS are not set");
    char *text = format("%s/%s", env_k, env_n);
    int rc = parse_share(text, k, n);
    free(text);
    return rc;
  }
  char *end;
  unsigned long a = strtoul(v, &end, 10);
  if (end == v || *end != '/') return -1;
  const char *rest = end + 1;
  unsigned long b = strtoul(rest, &end, 10);
  if (end == rest || *end || b == 0 || a >= b || b > 1u << 20) return -1;
  *k = (unsigned)a, *n = (unsigned)b;
  return 0;
}

int distribute_local_main(int argc, char **argv) {
  int jobs = 0;
  unsigned share = 0, shares = 1;
  bool count_only = false, shared = false;
  const char *list = NULL, *v;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      return print_help(local_usage);
    } else if ((v = option_value(argc, argv, &i, a, "jobs"))) {
      jobs = parse_jobs("--jobs", v);
    } else if (!strncmp(a, "-j", 2)) {
      const char *n = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
      if (!n) fatal(NULL, "option '-j' needs a value");
      jobs = parse_jobs("-j", n);
    } else if ((v = option_value(argc, argv, &i, a, "share"))) {
      if (parse_share(v, &share, &shares))
        fatal(NULL, "--share: expected K/N with 0 <= K < N, or slurm; not '%s'", v);
      shared = true;
    } else if (!strcmp(a, "--count")) {
      count_only = true;
    } else if (a[0] == '-') {
      fatal(NULL, "unknown option '%s'; see 'sycl-thinlto distribute-local --help'", a);
    } else if (list) {
      fatal(a, "one job list only: %s is the list already", list);
    } else {
      list = a;
    }
  }
  if (!list) fatal(NULL, "no job list; see 'sycl-thinlto distribute-local --help'");
  if (count_only) require_standard_output(); // the count is the result
  if (!jobs && getenv("SLURM_CPUS_PER_TASK")) jobs = atoi(getenv("SLURM_CPUS_PER_TASK"));
  if (jobs <= 0) jobs = (int)uv_available_parallelism();

  Buffer text;
  int rc = read_file(list, &text);
  if (rc) fatal(list, "%s", read_error_text(rc));
  json_error_t error;
  json_t *root = json_loadb((const char *)text.data, text.size, 0, &error);
  free(text.data);
  if (!root) fatal(list, "not JSON: byte %d: %s", error.position, error.text);
  StringList common = {0};
  const json_t *list_jobs = json_object_get(root, "jobs");
  if (!push_strings(&common, json_object_get(json_object_get(root, "common"), "args")) ||
      !common.count || !json_is_array(list_jobs))
    fatal(list, "not a DTLTO job list: expected common.args (a non-empty array of strings) "
                "and jobs (an array)");
  size_t total = json_array_size(list_jobs);
  if (count_only) {
    printf("%zu\n", total);
    json_decref(root);
    strlist_free(&common);
    return 0;
  }

  // This share's jobs, checked before any starts.
  size_t mine = 0;
  LocalJob *run = xcalloc(total ? total : 1, sizeof *run);
  for (size_t j = share; j < total; j += shares) {
    LocalJob *job = &run[mine++];
    job->index = j;
    for (size_t i = 0; i < common.count; i++)
      strlist_push(&job->argv, xstrdup(common.items[i]));
    const json_t *entry = json_array_get(list_jobs, j);
    StringList outputs = {0};
    if (!push_strings(&job->argv, json_object_get(entry, "args")))
      fatal(list, "job %zu: expected args, an array of strings", j);
    push_strings(&outputs, json_object_get(entry, "outputs"));
    job->what = xstrdup(outputs.count ? outputs.items[0] : job->argv.items[0]);
    strlist_free(&outputs);
  }
  json_decref(root);
  strlist_free(&common);

  bool ours = mine > 0;
  for (size_t i = 0; i < mine; i++)
    ours = ours && is_our_backend(&run[i].argv);
  if (ours)
    run_on_workers(run, mine, (size_t)jobs);
  else
    run_each(run, mine, (size_t)jobs);
  free(run);
  // A share's end, for the Slurm distributor: it tells a step Slurm ran from one it did not.
  if (shared) printf("share %u/%u: ran %zu job(s)\n", share, shares, mine);
  return 0;
}
