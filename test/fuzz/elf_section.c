// Fuzz target: the ELF section reader (elf_offloading_section in formats/input.c, our section
// table checks then llvm-c's object API) on any bytes. A section it returns lies inside them.
#include "formats/formats.h"

#include <stdlib.h>

#include <llvm-c/ErrorHandling.h>

static void llvm_fatal(const char *reason) {
  (void)reason;
  abort(); // LLVM stopping the process on an input is a finding
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LLVMInstallFatalErrorHandler(llvm_fatal);
  const uint8_t *section;
  size_t section_size;
  char *errmsg = NULL;
  if (elf_offloading_section(data, size, &section, &section_size, &errmsg)) {
    free(errmsg);
    return 0;
  }
  if (section &&
      (section < data || section > data + size || section_size > (size_t)(data + size - section)))
    abort();
  return 0;
}
