// Test-only faults of distributed jobs (test/lit/distribute/faults.test, test/slurm): with
// SYCL_THINLTO_JOB_FAULT_TEST a comma-separated list of KIND:NAME, the job whose bitcode holds
// NAME fails as KIND says. The production path only calls job_fault; nothing else here runs.
#include "hooks/hooks.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Kinds: kill (the job is killed), kill-once (killed the first time only: OUT.fault marks
// it), sleep (it waits to be cancelled), empty (it vouches for an empty SPIR-V), damage (its
// result's SPIR-V changes after the result is written).
static bool requested(const Buffer *bitcode, const char *kind) {
  const char *test = getenv("SYCL_THINLTO_JOB_FAULT_TEST");
  size_t n = strlen(kind);
  for (const char *entry = test; entry && *entry;) {
    size_t len = strcspn(entry, ",");
    if (len > n + 1 && !strncmp(entry, kind, n) && entry[n] == ':' &&
        memmem(bitcode->data, bitcode->size, entry + n + 1, len - n - 1))
      return true;
    entry += len + (entry[len] == ',');
  }
  return false;
}

static bool first_time(const char *out_prefix) {
  char *marker = format("%s.fault", out_prefix);
  int fd = own_create(marker, 0666);
  free(marker);
  if (fd >= 0) close(fd);
  return fd >= 0;
}

void job_fault(JobFaultPoint point, const JobFaultSite *site) {
  if (!getenv("SYCL_THINLTO_JOB_FAULT_TEST")) return;
  const Buffer *bc = site->bitcode;
  switch (point) {
  case JOB_FAULT_START:
    if (requested(bc, "kill") || (requested(bc, "kill-once") && first_time(site->out_prefix))) {
      fprintf(stderr, "job fault test: killing the job\n");
      raise(SIGKILL);
    }
    if (requested(bc, "sleep")) sleep(120); // until cancelled
    break;
  case JOB_FAULT_SPIRV:
    if (requested(bc, "empty")) site->spirv->size = 0;
    break;
  case JOB_FAULT_WRITTEN:
    if (requested(bc, "damage")) {
      Buffer b;
      if (read_file(site->result_path, &b)) break;
      b.data[b.size - 1] ^= 0xff; // the SPIR-V's last byte: the result's last
      write_file_atomic(site->result_path, b.data, b.size);
      free(b.data);
    }
    break;
  }
}
