// What libLTO's cache costs per module it writes, outside any link (issue 31 item 2): N files
// of SIZE bytes written by T threads into one folder, the way libLTO's ThinLTOCodeGenerator
// writes a cache entry (llvm::writeToOutput: a sys::fs::TempFile, registered on LLVM's
// process-wide list of files to remove on a signal, renamed, taken off the list) and then
// hard-links it as the module's result, against a plain write. C++ because it measures LLVM's
// own C++ calls, which libLTO's C API leaves no way around; a measurement tool, not part of
// the product (built by bench/device/issue31-cache5.sh's recipe, never by CMake).
//   tempfiles MODE DIR N SIZE THREADS   (one mode per process: LLVM's list only grows)
//   raw: open, write, close (libLTO's result without a cache); lto: writeToOutput, then a
//   stat and a hard link (with a cache); plain: the same file operations without LLVM's list;
//   signal: the list alone (RemoveFileOnSignal, DontRemoveFileOnSignal), no file.
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

static double now_seconds() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void write_plain(const std::string &path, const std::string &data) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 || write(fd, data.data(), data.size()) != (ssize_t)data.size()) abort();
  close(fd);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: tempfiles raw|lto|plain|signal DIR N SIZE THREADS\n");
    return 2;
  }
  std::string mode = argv[1], dir = argv[2];
  int n = atoi(argv[3]), threads = atoi(argv[5]);
  std::string data(atoi(argv[4]), 'x');
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i; (i = next++) < n;) {
      char key[48];
      snprintf(key, sizeof key, "%040d", i); // libLTO's keys: 40 hex digits
      std::string entry = dir + "/llvmcache-" + key;
      std::string result = dir + "/" + std::to_string(i) + ".spirv64.thinlto.o";
      std::string temporary = entry + ".temp-stream-" + std::to_string(i);
      if (mode == "raw") {
        write_plain(result, data);
      } else if (mode == "lto") {
        if (llvm::Error e = llvm::writeToOutput(entry, [&](llvm::raw_ostream &os) {
              os << data;
              return llvm::Error::success();
            }))
          abort();
        (void)llvm::sys::fs::exists(result);
        if (llvm::sys::fs::create_hard_link(entry, result)) abort();
      } else if (mode == "plain") {
        write_plain(temporary, data);
        if (rename(temporary.c_str(), entry.c_str())) abort();
        struct stat st;
        (void)stat(result.c_str(), &st);
        if (link(entry.c_str(), result.c_str())) abort();
      } else if (mode == "signal") {
        llvm::sys::RemoveFileOnSignal(temporary);
        llvm::sys::DontRemoveFileOnSignal(temporary);
      } else {
        abort();
      }
    }
  };
  double start = now_seconds();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++)
    pool.emplace_back(work);
  for (auto &t : pool)
    t.join();
  double wall = now_seconds() - start;
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%-6s n=%d size=%zu threads=%d  wall %.3f s  user %.3f s  sys %.3f s\n", mode.c_str(), n,
         data.size(), threads, wall, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
         ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
}
