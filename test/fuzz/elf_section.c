// Fuzz target: the ELF section reader (elf_offloading_sections in formats/input.c, our section
// table checks then llvm-c's object API) on any bytes. Every section it returns lies inside them.
#include "formats/formats.h"
#include "inside.h"

#include <stdlib.h>

#include <llvm-c/ErrorHandling.h>

static void llvm_fatal(const char *reason) {
  (void)reason;
  abort(); // LLVM stopping the process on an input is a finding
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LLVMInstallFatalErrorHandler(llvm_fatal);
  SectionBytes *sections;
  size_t count;
  char *errmsg = NULL;
  if (elf_offloading_sections(data, size, &sections, &count, &errmsg)) {
    free(errmsg);
    return 0;
  }
  for (size_t i = 0; i < count; i++)
    if (!inside(sections[i].data, sections[i].size, data, size)) abort();
  free(sections);
  return 0;
}
