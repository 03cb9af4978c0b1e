// The SPIR-V worker spawner: a process forked from the linker before it starts any thread,
// that forks each worker of hooks/pool.c on request. It neither feeds nor reads a worker.
//
// Why not execute `sycl-thinlto --worker`: a fresh process loads libLLVM again (relocations,
// thousands of static constructors) and sets up the SPIR-V target before its first module,
// and the linker's own fork for the exec, on the loop thread, copies the page tables of a
// process that by the hooks holds every module, one worker after another: at -j16 the last
// workers began their first image up to 216 ms into the hooks, 8-17 ms now (bench/RESULTS.md,
// "The spawner"). The spawner is forked while the linker is still small and single-threaded,
// sets up the target once, and a worker forked from it is ready at once. The linker cannot
// fork its workers itself once it has threads: only the forking thread lives on in the
// child, and any lock another thread held stays locked there.
#include "hooks/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

// Messages both ways are one SpawnerMessage per packet (SOCK_SEQPACKET), in host byte order:
// both ends are the same binary. A SPAWN request carries the worker's stdin, stdout and
// stderr as SCM_RIGHTS.
enum { SPAWN = 1, KILL = 2 };

static int spawner_sock = -1; // the linker's end; -1 when not started
static pid_t spawner_pid = -1;

// One packet both ways: a SpawnerMessage, and room for a worker's three descriptors.
typedef struct {
  SpawnerMessage m;
  struct iovec iov;
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(3 * sizeof(int))];
  } control;
  struct msghdr msg;
} Packet;

static void packet_init(Packet *p) {
  memset(p, 0, sizeof *p);
  p->iov = (struct iovec){&p->m, sizeof p->m};
  p->msg = (struct msghdr){.msg_iov = &p->iov,
                           .msg_iovlen = 1,
                           .msg_control = p->control.bytes,
                           .msg_controllen = sizeof p->control.bytes};
}

//
// The spawner process.
//

typedef struct {
  unsigned serial;
  pid_t pid;
} Child;

static Child *children;
static size_t num_children, children_cap;

static int send_message(int sock, const SpawnerMessage *m) {
  while (send(sock, m, sizeof *m, MSG_NOSIGNAL) < 0)
    if (errno != EINTR) return -errno;
  return 0;
}

// Forks the worker for SERIAL on the three descriptors FDS and reports STARTED or FAILED.
static void spawn_worker_process(int sock, int sigfd, const sigset_t *linker_mask, unsigned serial,
                                 const int fds[3]) {
  pid_t self = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // A worker ends with the spawner: the pool, which can no longer learn how its workers
    // end, then sees their pipes close instead.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != self) _exit(127);
    close(sock);
    close(sigfd);
    sigprocmask(SIG_SETMASK, linker_mask, NULL);
    for (int i = 0; i < 3; i++)
      if (dup2(fds[i], i) < 0) _exit(127);
    _exit(worker_main()); // worker_main closes every other descriptor
  }
  SpawnerMessage m = {.kind = pid < 0 ? SPAWNER_FAILED : SPAWNER_STARTED,
                      .serial = serial,
                      .value = pid < 0 ? errno : pid};
  if (pid > 0) {
    if (num_children == children_cap) {
      children_cap = children_cap ? 2 * children_cap : 32;
      children = xrealloc(children, children_cap * sizeof *children);
    }
    children[num_children++] = (Child){serial, pid};
  }
  send_message(sock, &m);
}

// Reaps every worker that has ended and reports it.
static void reap_workers(int sock) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (size_t i = 0; i < num_children; i++) {
      if (children[i].pid != pid) continue;
      SpawnerMessage m = {.kind = SPAWNER_EXITED,
                          .serial = children[i].serial,
                          .value = WIFEXITED(status) ? WEXITSTATUS(status) : 0,
                          .signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0};
      children[i] = children[--num_children];
      send_message(sock, &m);
      break;
    }
  }
}

static void kill_worker_process(unsigned serial) {
  for (size_t i = 0; i < num_children; i++)
    if (children[i].serial == serial) kill(children[i].pid, SIGKILL); // not yet reaped: ours
}

// One request from the linker: 1 served, 0 at EOF (the linker is done or gone).
static int serve_linker(int sock, int sigfd, const sigset_t *linker_mask) {
  Packet p;
  packet_init(&p);
  const SpawnerMessage *m = &p.m;
  ssize_t n = recvmsg(sock, &p.msg, MSG_CMSG_CLOEXEC);
  if (n < 0) return errno == EINTR ? 1 : 0;
  if (n == 0) return 0;
  int fds[3] = {-1, -1, -1};
  struct cmsghdr *c = CMSG_FIRSTHDR(&p.msg);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
      c->cmsg_len == CMSG_LEN(3 * sizeof(int)))
    memcpy(fds, CMSG_DATA(c), sizeof fds);
  if ((size_t)n == sizeof *m && m->kind == SPAWN && fds[2] >= 0)
    spawn_worker_process(sock, sigfd, linker_mask, m->serial, fds);
  else if ((size_t)n == sizeof *m && m->kind == KILL)
    kill_worker_process(m->serial);
  for (int i = 0; i < 3; i++)
    if (fds[i] >= 0) close(fds[i]);
  return 1;
}

static __attribute__((noreturn)) void spawner_main(int sock) {
  // Nothing of the linker's is ours to write or clean up: no stdio, no atexit, only _exit;
  // a signal ends the spawner by its default action (its workers die with it).
  uninstall_signal_cleanup();
  int null = own_open_null(O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    if (null > 2) close(null);
  }
  sigset_t chld, linker_mask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &linker_mask);
  int sigfd = signalfd(-1, &chld, SFD_CLOEXEC);
  if (sigfd < 0) _exit(2);
  spirv_worker_init(); // once, for every worker forked from here

  for (;;) {
    struct pollfd p[2] = {{.fd = sock, .events = POLLIN}, {.fd = sigfd, .events = POLLIN}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo info;
      while (read(sigfd, &info, sizeof info) < 0 && errno == EINTR) {
      }
      reap_workers(sock);
    }
    if (p[0].revents && !serve_linker(sock, sigfd, &linker_mask)) break;
  }
  // The linker closed its end: whatever still runs has nobody to answer to.
  for (size_t i = 0; i < num_children; i++)
    kill(children[i].pid, SIGKILL);
  while (wait(NULL) > 0 || errno == EINTR) {
  }
  _exit(0);
}

//
// The linker's side.
//

int spawner_start(void) {
  if (spawner_sock >= 0) return 0;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) return -errno;
  fflush(NULL); // the child must not write out our buffered output again
  pid_t pid = fork();
  if (pid < 0) {
    int rc = -errno;
    close(sv[0]);
    close(sv[1]);
    return rc;
  }
  if (pid == 0) {
    close(sv[0]);
    spawner_main(sv[1]);
  }
  close(sv[1]);
  spawner_sock = sv[0];
  spawner_pid = pid;
  track_child(pid); // a signal that ends the linker ends the spawner, and so every worker
  return 0;
}

int spawner_fd(void) {
  return spawner_sock;
}

int spawner_spawn(unsigned serial, const int fds[3]) {
  if (spawner_sock < 0) return -ENOTCONN;
  Packet p;
  packet_init(&p);
  p.m = (SpawnerMessage){.kind = SPAWN, .serial = serial};
  struct cmsghdr *c = CMSG_FIRSTHDR(&p.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(3 * sizeof(int));
  memcpy(CMSG_DATA(c), fds, 3 * sizeof(int));
  // The socket is non-blocking once the pool polls it; a full socket waits, it is not an error.
  while (sendmsg(spawner_sock, &p.msg, MSG_NOSIGNAL) < 0) {
    if (errno == EINTR) continue;
    if (errno == EPIPE || errno == ECONNRESET) return -ESRCH; // the spawner has ended
    if (errno != EAGAIN) return -errno;
    struct pollfd writable = {.fd = spawner_sock, .events = POLLOUT};
    poll(&writable, 1, -1);
  }
  return 0;
}

void spawner_kill(unsigned serial) {
  SpawnerMessage m = {.kind = KILL, .serial = serial};
  if (spawner_sock >= 0) send_message(spawner_sock, &m);
}

int spawner_receive(SpawnerMessage *m) {
  for (;;) {
    ssize_t n = recv(spawner_sock, m, sizeof *m, MSG_DONTWAIT);
    if (n == (ssize_t)sizeof *m) return 1;
    if (n == 0) return -EPIPE;
    if (n > 0) return -EPROTO;
    if (errno == EINTR) continue;
    return errno == EAGAIN ? 0 : -errno;
  }
}

void spawner_stop(void) {
  if (spawner_sock < 0) return;
  close(spawner_sock);
  spawner_sock = -1;
  while (waitpid(spawner_pid, NULL, 0) < 0 && errno == EINTR) {
  }
  untrack_child(spawner_pid);
  spawner_pid = -1;
}
