// sycl-thinlto's entry: picks the subcommand (or the drop-in personality from argv[0]).
// The stages themselves live in driver.c and the files it calls.
#include "tool/tool.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_leak_check()
#else
#define LEAK_CHECK() ((void)0)
#endif

static const char usage[] =
    "OVERVIEW: sycl-thinlto " SYCL_THINLTO_VERSION " - SYCL device-code linker using ThinLTO\n"
    "\n"
    "USAGE: sycl-thinlto <command> [options] <inputs>\n"
    "\n"
    "COMMANDS:\n"
    "  link      link device images with ThinLTO into SPIR-V images (OffloadBinary)\n"
    "  split     split device code per kernel or per source, images with summaries\n"
    "  inspect   print the device images found in files\n"
    "  wrap      write the host object registering linked images with their property sets\n"
    "  wrapper   the whole link as clang-linker-wrapper: device link, wrap, host link\n"
    "  register-host  add the constructor registering a host module's uniquely identifiable\n"
    "            variables (device_global, specialization_id) with the runtime\n"
    "  post-link intel's sycl-post-link: split into modules, .table, .prop and .sym files\n"
    "  distribute-local  a DTLTO distributor: runs a job list's jobs on this host\n"
    "  backend   one image's backend, as a job of `link --distributor=...`\n"
    "\n"
    "Run 'sycl-thinlto <command> --help' for a command's options.\n"
    "Installed as clang-sycl-linker, it takes clang-sycl-linker 22's command line;\n"
    "as clang-linker-wrapper, clang-linker-wrapper 22's; as sycl-post-link, intel's;\n"
    "as sycl-thinlto-local, distribute-local's; as llvm-offload-binary, LLVM's, splitting\n"
    "SYCL device code at compile time.\n";

static const char *const commands[] = {"link",    "inspect",       "split",     "wrap",
                                       "wrapper", "register-host", "post-link", "backend",
                                       "distribute-local", NULL};

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int run(int argc, char **argv) {
  open_standard_descriptors();
  descriptor_table_init(); // while there is one thread: a growth later stops every thread
  // A file size limit (ulimit -f) makes a write fail with EFBIG, reported with the file's
  // name and cleaned up like any failed write, instead of killing us by SIGXFSZ. Children
  // started by run_tool get the default back.
  signal(SIGXFSZ, SIG_IGN);
  install_signal_cleanup();  // a signal or a crash removes what the command has written
  bridge_handle_bad_alloc(); // before any fork: the spawner and its workers inherit it
  const char *self = base_name(argv[0]);
  // llvm-offload-binary hands every use but the one it splits to LLVM's tool as it is: its
  // own --version, --help and response files included, so before ours are read.
  if (!strcmp(self, "llvm-offload-binary")) {
    set_crash_stage("split");
    return offload_binary_main(argc, argv);
  }
  input_size_limit_init(); // a malformed SYCL_THINLTO_MAX_INPUT_SIZE fails every command
  expand_response_files(&argc, &argv); // @FILE, for every command and name
  // --version on every command and under every name (argv[1] is the command or an option).
  if (asks_for_version(argc, argv)) {
    print_version();
    return 0;
  }
  // The command, for the message of a crash (the link's stages say more).
  if (strstr(self, "clang-sycl-linker")) {
    set_crash_stage("link");
    return link_main(argc, argv, true);
  }
  if (strstr(self, "clang-linker-wrapper")) {
    set_crash_stage("wrapper");
    return linker_wrapper_main(argc, argv);
  }
  if (!strcmp(self, "sycl-thinlto-local")) {
    set_crash_stage("distribute-local");
    return distribute_local_main(argc, argv);
  }
  if (strstr(self, "sycl-post-link")) {
    tool_name = "sycl-post-link";
    set_crash_stage("post-link");
    return post_link_main(argc, argv);
  }

  if (argc < 2) {
    fputs(usage, stderr);
    return 1;
  }
  const char *cmd = argv[1];
  for (const char *const *c = commands; *c; c++)
    if (!strcmp(cmd, *c)) set_crash_stage(*c);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    return print_help(usage);
  }
  if (!strcmp(cmd, "link")) return link_main(argc - 1, argv + 1, false);
  if (!strcmp(cmd, "inspect")) return inspect_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "split")) return split_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "wrap")) return wrap_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "wrapper")) return linker_wrapper_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "register-host")) return register_host_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "post-link")) return post_link_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "backend")) return backend_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "distribute-local")) return distribute_local_main(argc - 1, argv + 1);
  fprintf(stderr, "%s: error: unknown command '%s'; see 'sycl-thinlto --help'\n", TOOL_NAME, cmd);
  return 1;
}

// Leaves without running libLLVM's static destructors: thousands of them, spread over its
// text, page in about 2 MB that nothing else used (the link's last RSS peak) and cost time;
// everything of ours is written and closed by now. lld leaves the same way.
int main(int argc, char **argv) {
  int rc = run(argc, argv);
  if (fflush(stdout) != 0 && rc == 0) {
    fprintf(stderr, "%s: error: cannot write to standard output\n", TOOL_NAME);
    rc = 1;
  }
  fflush(stderr);
  wait_while_ending(); // a signal being handled ends the process, not this exit
  own_wait_removals();
  // ASan builds: _exit skips LeakSanitizer's check at exit, so it runs here (when
  // detect_leaks is on; test/lit/link/leaks.test): a command that succeeded frees what it
  // allocated. Error exits (exit_failure) leave without unwinding, on purpose.
  if (rc == 0) LEAK_CHECK();
  _exit(rc);
}
