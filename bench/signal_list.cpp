// LLVM's process-wide list of files to remove on a signal, lengthened or switched off, to
// test whether it is what a cold cached link waits on (issue 31 item 2). Loaded with
// LD_PRELOAD; before main:
//   SIGNAL_PREFILL=N   puts N names on the list and takes them off again, as that many earlier
//                      temporary files would have. A name taken off stays on the list as an
//                      empty node (the list only grows), so every later registration and
//                      removal walks past it.
//   SIGNAL_LIST_OFF=1  makes llvm::sys::RemoveFileOnSignal and DontRemoveFileOnSignal return
//                      at once (their first bytes rewritten in this process's copy of
//                      libLLVM; x86-64): libLTO's cache writes (a TempFile per module, each
//                      registered and then taken off, two walks of the whole list) then cost
//                      only their file operations. A temporary file is then left behind by a
//                      link killed while writing it: for measurements only.
// A link without a cache makes no TempFile: neither switch changes its work (the prefill's
// own walks happen once, single-threaded, before main). A measurement tool, not part of the
// product; C++ because what it reaches is LLVM's C++ API.
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Signals.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

// Rewrites the first bytes of the exported function NAME with CODE (N bytes).
static void patch(const char *name, const unsigned char *code, size_t n) {
  void *at = dlsym(RTLD_DEFAULT, name);
  if (!at) {
    fprintf(stderr, "signal_list: %s not found\n", name);
    abort();
  }
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t first = (uintptr_t)at & ~(page - 1);
  size_t length = ((uintptr_t)at + n - first + page - 1) & ~(page - 1);
  if (mprotect((void *)first, length, PROT_READ | PROT_WRITE | PROT_EXEC)) {
    perror("signal_list: mprotect");
    abort();
  }
  memcpy(at, code, n);
  mprotect((void *)first, length, PROT_READ | PROT_EXEC);
  __builtin___clear_cache((char *)at, (char *)at + n);
}

__attribute__((constructor)) static void signal_list_setup() {
  const char *count = getenv("SIGNAL_PREFILL");
  int n = count ? atoi(count) : 0;
  for (int i = 0; i < n; i++) {
    std::string name = "/nonexistent/sycl-thinlto-signal-prefill/" + std::to_string(i);
    llvm::sys::RemoveFileOnSignal(name);
    llvm::sys::DontRemoveFileOnSignal(name);
  }
  const char *off = getenv("SIGNAL_LIST_OFF");
  if (off && !strcmp(off, "1")) {
    static const unsigned char return_false[] = {0x31, 0xc0, 0xc3}; // xor eax, eax; ret
    static const unsigned char return_now[] = {0xc3};                // ret
    patch("_ZN4llvm3sys18RemoveFileOnSignalENS_9StringRefEPNSt7__cxx1112basic_stringIcSt11char_"
          "traitsIcESaIcEEE",
          return_false, sizeof return_false);
    patch("_ZN4llvm3sys22DontRemoveFileOnSignalENS_9StringRefE", return_now, sizeof return_now);
  }
}
