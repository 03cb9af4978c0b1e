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
#include <sys/mman.h>
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
  int pid;
  int log_fd; // its stdout and stderr
} LocalJob;

// A job of this very binary's `backend` (what our links send) runs in a fork of this process,
// not in a new one: exec and libLLVM's start cost about 25 ms a job (bench/RESULTS.md), more
// than many images' whole backend. The runner never runs LLVM itself, so the child starts as
// clean as an exec'd one (fact 9: its one SPIR-V emission is the process's first).
static bool is_our_backend(const StringList *argv) {
  return argv->count >= 2 && !strcmp(argv->items[1], "backend") &&
         same_file(argv->items[0], "/proc/self/exe");
}

static void start_job(LocalJob *job) {
  job->log_fd = memfd_create("sycl-thinlto-local-job", MFD_CLOEXEC);
  if (job->log_fd < 0) fatal(NULL, "cannot create a job's log: %s", strerror(errno));
  strlist_push(&job->argv, NULL);
  job->argv.count--;
  bool in_process = is_our_backend(&job->argv);
  fflush(NULL);
  job->pid = fork();
  if (job->pid < 0) fatal(NULL, "cannot start a job: %s", strerror(errno));
  if (job->pid == 0) {
    uninstall_signal_cleanup();
    if (dup2(job->log_fd, 1) < 0 || dup2(job->log_fd, 2) < 0) _exit(127);
    if (in_process) {
      forget_children(); // the runner's other jobs are not this one's to end
      install_signal_cleanup();
      fflush(NULL);
      int rc = backend_main((int)job->argv.count - 1, job->argv.items + 1);
      fflush(NULL);
      _exit(rc);
    }
    execvp(job->argv.items[0], job->argv.items);
    fprintf(stderr, "cannot run %s: %s\n", job->argv.items[0], strerror(errno));
    _exit(127);
  }
  track_child(job->pid); // a SIGINT or SIGTERM of ours ends the jobs too
}

// Prints what the job wrote, and says how it failed if it did.
static void finish_job(LocalJob *job, int status) {
  untrack_child(job->pid);
  off_t size = lseek(job->log_fd, 0, SEEK_END);
  char *text = xcalloc(1, size > 0 ? size + 1 : 1);
  if (size > 0 && pread(job->log_fd, text, size, 0) < 0) text[0] = 0;
  close(job->log_fd);
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    char *how = WIFSIGNALED(status) ? format("killed by signal %d (%s)", WTERMSIG(status),
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

  size_t started = 0, running = 0;
  while (started < mine || running) {
    for (; started < mine && running < (size_t)jobs; running++)
      start_job(&run[started++]);
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      die("waitpid: %s", strerror(errno));
    }
    for (size_t i = 0; i < started; i++)
      if (run[i].pid == pid) {
        finish_job(&run[i], status);
        running--;
        break;
      }
  }
  free(run);
  // A share's end, for the Slurm distributor: it tells a step Slurm ran from one it did not.
  if (shared) printf("share %u/%u: ran %zu job(s)\n", share, shares, mine);
  return 0;
}
