// Ahead-of-time compilation for Intel GPUs (issue 33): the devices an --arch list names, mapped
// to the installed ocloc's names, and every linked image's SPIR-V compiled by ocloc for each
// device that can run it, in parallel (or as DTLTO jobs of a distributor), through the cache.
// It does not link, split or write the output: the images come finished from the hooks.
#include "hooks/hooks.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

//
// Device names
//

// Other names of one device: ocloc's, intel's older names, and the 'dg2' ocloc still takes.
static const struct {
  const char *alias, *name;
} device_aliases[] = {
    {"dg2", "acm_g10"},     {"dg2_g10", "acm_g10"},  {"dg2_g11", "acm_g11"},
    {"dg2_g12", "acm_g12"}, {"ats_m150", "acm_g10"}, {"ats_m75", "acm_g11"},
};

// Intel GPUs newer than the target table and Debian's ocloc (LLVM 22's clang-sycl-linker
// knows bmg_g21): named so that asking for one is "unknown to the installed ocloc", not
// "not an Intel GPU".
static const char *const newer_intel_gpus[] = {"bmg_g21", "bmg_g31", "lnl_m", "ptl_h",
                                               "ptl_u",   "wcl",     "arl_s", "arl_u",
                                               "mtl_s",   "mtl_p",   NULL};

// CPU AOT goes through opencl-aot, which Debian does not package.
static const char *const cpu_names[] = {"x86_64",
                                        "spir64_x86_64",
                                        "intel_cpu",
                                        "skylake-avx512",
                                        "skx",
                                        "cascadelake",
                                        "icelake-client",
                                        "icelake-server",
                                        "sapphirerapids",
                                        "graniterapids",
                                        "core-avx2",
                                        "corei7-avx",
                                        "corei7",
                                        "broadwell",
                                        "skylake",
                                        "coffeelake",
                                        "alderlake",
                                        NULL};

static bool in_list(const char *const *list, const char *name) {
  for (; *list; list++)
    if (!strcmp(*list, name)) return true;
  return false;
}

// "intel_gpu_acm_g10", "acm-g10", "dg2-g10", "ACM_G10": "acm_g10" (malloc'd).
static char *canonical_device(const char *asked) {
  const char *p = asked;
  if (!strncmp(p, "intel_gpu_", 10)) p += 10;
  char *name = xstrdup(p);
  for (char *c = name; *c; c++)
    *c = *c == '-' ? '_' : (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : *c;
  for (size_t i = 0; i < sizeof device_aliases / sizeof *device_aliases; i++)
    if (!strcmp(name, device_aliases[i].alias)) {
      free(name);
      return xstrdup(device_aliases[i].name);
    }
  return name;
}

// ocloc's families and releases (gen9, xe-hpc) compile several devices into one fat binary:
// they are not one device.
static bool is_family(const char *ocloc_name) {
  return (!strncmp(ocloc_name, "gen", 3) && ocloc_name[3] >= '0' && ocloc_name[3] <= '9') ||
         !strcmp(ocloc_name, "xe") || !strncmp(ocloc_name, "xe-", 3);
}

// The devices ocloc compiles for, from `ocloc compile --help` ("<device_type> can be: bdw,
// skl, ..., version  or hexadecimal value"): its own names; families into FAMILIES.
static void ocloc_devices(const char *help, StringList *devices, StringList *families) {
  const char *p = strstr(help, "can be:");
  if (!p) return;
  p += strlen("can be:");
  const char *end = strchr(p, '\n');
  if (!end) end = p + strlen(p);
  while (p < end) {
    p += strspn(p, " ,");
    size_t n = strcspn(p, ", \n");
    if (!n || p + n > end) break;
    char *word = xstrndup(p, n);
    if (!strcmp(word, "version") || !strcmp(word, "or")) {
      free(word);
      break;
    }
    strlist_push(is_family(word) ? families : devices, word);
    p += n;
  }
}

// PROGRAM as given (with a '/'), else found on PATH; NULL if there is none.
static char *find_program(const char *program) {
  if (strchr(program, '/')) return access(program, X_OK) == 0 ? xstrdup(program) : NULL;
  const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
  for (const char *p = path;;) {
    size_t n = strcspn(p, ":");
    char *candidate = format("%.*s/%s", (int)n, n ? p : ".", program);
    struct stat st;
    if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0)
      return candidate;
    free(candidate);
    if (!p[n]) return NULL;
    p += n + 1;
  }
}

// ocloc's own command line from --ocloc-options: blanks separate, "..." and '...' quote.
static void split_options(const char *text, StringList *out) {
  Buffer word = {0};
  bool in_word = false;
  for (const char *p = text;; p++) {
    char c = *p;
    if (!c || c == ' ' || c == '\t' || c == '\n') {
      if (in_word) {
        buffer_append(&word, "", 1);
        strlist_push(out, (char *)word.data);
        word = (Buffer){0};
        in_word = false;
      }
      if (!c) break;
    } else if (c == '"' || c == '\'') {
      const char *close = strchr(p + 1, c);
      if (!close) fatal(NULL, "--ocloc-options: unterminated %c in '%s'", c, text);
      buffer_append(&word, p + 1, (size_t)(close - p - 1));
      in_word = true;
      p = close;
    } else {
      buffer_append(&word, p, 1);
      in_word = true;
    }
  }
}

// A file's identity for the cache: its path, inode, size and modification time.
static void hash_file_identity(CacheHasher *h, const char *path) {
  struct stat st;
  char real[PATH_MAX];
  if (stat(path, &st) < 0 || !realpath(path, real)) return;
  char *id = format("%s %llu %llu %lld.%09ld", real, (unsigned long long)st.st_ino,
                    (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
                    st.st_mtim.tv_nsec);
  cache_hash_string(h, id);
  free(id);
}

// The libraries ocloc loads, which do the compiling (IGC) and can be upgraded without it:
// looked up where the dynamic loader would look first (LD_LIBRARY_PATH, then the system's
// folders), the first of each found.
static const char *const ocloc_libraries[] = {"libocloc.so", "libigc.so.1", "libigdfcl.so.1",
                                              NULL};

// What names the installed ocloc for the cache: the program and its libraries (their paths
// and identities), and what its help says (the devices it knows).
static void ocloc_identity(const char *ocloc, const char *help, char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_tool(&h, "ocloc 1");
  hash_file_identity(&h, ocloc);
  const char *env = getenv("LD_LIBRARY_PATH");
  char *dirs = format("%s%s/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu:/usr/lib:/lib:"
                      "/usr/local/lib",
                      env ? env : "", env && *env ? ":" : "");
  for (const char *const *lib = ocloc_libraries; *lib; lib++)
    for (const char *p = dirs;;) {
      size_t n = strcspn(p, ":");
      char *candidate = format("%.*s/%s", (int)n, p, *lib);
      bool found = n && access(candidate, R_OK) == 0;
      if (found) hash_file_identity(&h, candidate);
      free(candidate);
      if (found || !p[n]) break;
      p += n + 1;
    }
  free(dirs);
  cache_hash_string(&h, help ? help : "");
  cache_hash_final(&h, key);
}

static bool is_spirv_name(const char *a) {
  return !strcmp(a, "spirv") || !strcmp(a, "spir64") || !strcmp(a, "spirv64");
}

// ocloc's name of a canonical one: acm_g10 -> acm-g10 (malloc'd).
static char *ocloc_spelling(const char *name) {
  char *s = xstrdup(name);
  for (char *c = s; *c; c++)
    if (*c == '_') *c = '-';
  return s;
}

// Whether NAME (canonical) is an Intel GPU this tool or the installed ocloc knows.
static bool is_intel_gpu(const char *asked, const char *name, const StringList *known) {
  char *target = format("intel_gpu_%s", name), *spelled = ocloc_spelling(name);
  bool yes = !strncmp(asked, "intel_gpu_", 10) || target_aspects(target) ||
             in_list(newer_intel_gpus, name) || strlist_contains(known, spelled);
  free(target);
  free(spelled);
  return yes;
}

int aot_plan(const char *arch, const char *ocloc, const StringList *ocloc_options, AotPlan *plan) {
  *plan = (AotPlan){0};
  if (!arch || !*arch) return 0;
  StringList asked = {0};
  strlist_split_commas(&asked, arch);
  for (size_t i = 0; i < asked.count; i++)
    if (in_list(cpu_names, asked.items[i]) || !strncmp(asked.items[i], "intel_cpu_", 10))
      fatal(NULL,
            "--arch=%s: ahead-of-time compilation for CPUs runs opencl-aot, which is not "
            "installed (Debian does not package it); link without --arch for SPIR-V, "
            "which a CPU's OpenCL runtime compiles when the program runs",
            arch);

  // The installed ocloc and the devices it knows (its own names: pvc-sdv, acm-g10).
  char *program = find_program(ocloc ? ocloc : "ocloc");
  StringList known = {0}, families = {0};
  char *help = NULL;
  if (program) {
    const char *argv[] = {program, "compile", "--help", NULL};
    Buffer out;
    int status;
    if (run_tool(argv, &out, &status) == 0) {
      help = (char *)out.data;
      ocloc_devices(help, &known, &families);
    }
  }
  const char *stranger = NULL;
  bool spirv = false;
  for (size_t i = 0; i < asked.count; i++) {
    const char *a = asked.items[i];
    if (is_spirv_name(a)) {
      spirv = true;
      continue;
    }
    char *name = canonical_device(a);
    if (strlist_contains(&families, a))
      fatal(NULL, "--arch: '%s' is a family of devices for ocloc, which would compile them all "
                  "into one fat binary; name each device (%s compile --help lists them)",
            a, program);
    if (!is_intel_gpu(a, name, &known)) {
      if (!stranger) stranger = a;
      free(name);
      continue;
    }
    bool twice = false;
    for (size_t d = 0; d < plan->num_devices; d++)
      twice |= !strcmp(plan->devices[d].name, name);
    if (twice) {
      free(name);
      continue;
    }
    plan->devices = xrealloc(plan->devices, (plan->num_devices + 1) * sizeof *plan->devices);
    plan->devices[plan->num_devices++] = (AotDevice){
        .asked = xstrdup(a),
        .name = name,
        .target = format("intel_gpu_%s", name),
        .ocloc_name = ocloc_spelling(name),
    };
  }
  if (!plan->num_devices) { // "generic", "some_gpu_arch": recorded in the output, as before
    aot_plan_free(plan);
    strlist_free(&asked);
    strlist_free(&known);
    strlist_free(&families);
    free(program);
    free(help);
    return 0;
  }
  plan->spirv = spirv;
  if (stranger)
    fatal(NULL,
          "--arch: '%s' is neither an Intel GPU nor 'spirv'; with native devices the "
          "list names only Intel GPUs (pvc, acm_g10, intel_gpu_tgllp, ...) and 'spirv'",
          stranger);
  if (!program)
    fatal(ocloc, "--arch=%s asks for native code for Intel GPUs, which ocloc compiles: %s", arch,
          ocloc ? "not an executable file"
                : "ocloc is not on PATH (install intel-opencl-icd, or name it with --ocloc=PATH)");
  if (!known.count)
    fatal(program, "cannot read the devices it compiles for from '%s compile --help'", program);
  for (size_t d = 0; d < plan->num_devices; d++)
    if (!strlist_contains(&known, plan->devices[d].ocloc_name)) {
      char *list = strlist_join(&known, ", ");
      fatal(NULL,
            "--arch: device '%s' is unknown to the installed ocloc (%s), which compiles "
            "for: %s",
            plan->devices[d].asked, program, list);
    }
  plan->ocloc = program;
  for (size_t i = 0; ocloc_options && i < ocloc_options->count; i++)
    split_options(ocloc_options->items[i], &plan->options);
  ocloc_identity(program, help, plan->identity);
  free(help);
  strlist_free(&known);
  strlist_free(&families);
  strlist_free(&asked);
  return 1;
}

bool aot_device_aspects(const AotPlan *plan, StringList *aspects) {
  for (size_t d = 0; d < plan->num_devices; d++)
    if (!target_aspects(plan->devices[d].target)) return false;
  for (size_t d = 0; d < plan->num_devices; d++)
    for (const char *const *a = target_aspects(plan->devices[d].target); *a; a++)
      if (!strlist_contains(aspects, *a)) strlist_push(aspects, xstrdup(*a));
  return true;
}

// A device's aspects as one comparable text ("" when the table does not know it).
static char *aspects_text(const AotDevice *d) {
  const char *const *aspects = target_aspects(d->target);
  if (!aspects) return xstrdup("?");
  StringList l = {0};
  for (const char *const *a = aspects; *a; a++)
    strlist_push(&l, xstrdup(*a));
  char *text = strlist_join(&l, ",");
  strlist_free(&l);
  return text;
}

void aot_aspect_groups(const AotPlan *plan, StringList *groups) {
  StringList keys = {0};
  for (size_t d = 0; d < plan->num_devices; d++) {
    char *key = aspects_text(&plan->devices[d]);
    size_t g = 0;
    while (g < keys.count && strcmp(keys.items[g], key))
      g++;
    if (g == keys.count) {
      strlist_push(&keys, key);
      strlist_push(groups, xstrdup(plan->devices[d].asked));
    } else {
      free(key);
      char *joined = format("%s,%s", groups->items[g], plan->devices[d].asked);
      free(groups->items[g]);
      groups->items[g] = joined;
    }
  }
  if (plan->spirv) strlist_push(groups, xstrdup("")); // SPIR-V's own link: JIT's split
  strlist_free(&keys);
}

void aot_plan_free(AotPlan *plan) {
  for (size_t d = 0; d < plan->num_devices; d++) {
    free(plan->devices[d].asked);
    free(plan->devices[d].name);
    free(plan->devices[d].target);
    free(plan->devices[d].ocloc_name);
  }
  free(plan->devices);
  free(plan->ocloc);
  strlist_free(&plan->options);
  *plan = (AotPlan){0};
}

//
// Compiling
//

typedef struct {
  const AotPlan *plan;
  const AotOptions *opts;
  const ImageResult *results;
  AotImage *images;
  const char *dir;
} AotRun;

static void native_key(const AotPlan *plan, const AotDevice *d, const Buffer *spirv,
                       char key[CACHE_KEY_SIZE]) {
  CacheHasher h;
  cache_hash_init(&h);
  cache_hash_string(&h, plan->identity);
  cache_hash_string(&h, d->ocloc_name);
  for (size_t i = 0; i < plan->options.count; i++)
    cache_hash_string(&h, plan->options.items[i]);
  cache_hash_update(&h, spirv->data, spirv->size);
  cache_hash_final(&h, key);
}

static char *file_of(const AotRun *run, const AotImage *a, const char *suffix) {
  return format("%s/image.%zu.%s.%s", run->dir, a->image, run->plan->devices[a->device].ocloc_name,
                suffix);
}

// ocloc's command line for one image and device, after PROGRAM. -output_no_suffix as
// upstream's clang-sycl-linker; -cl-intel-allow-zebin: the zebin (an ELF file whose symbols
// name the kernels), which newer ocloc writes for every device and 22.43 only when asked.
static void ocloc_args(const AotRun *run, const AotImage *a, StringList *args) {
  strlist_push(args, xstrdup("compile"));
  strlist_push(args, xstrdup("-file"));
  strlist_push(args, file_of(run, a, "spv"));
  strlist_push(args, xstrdup("-spirv_input"));
  strlist_push(args, xstrdup("-device"));
  strlist_push(args, xstrdup(run->plan->devices[a->device].ocloc_name));
  strlist_push(args, xstrdup("-output"));
  strlist_push(args, file_of(run, a, "bin"));
  strlist_push(args, xstrdup("-output_no_suffix"));
  strlist_push(args, xstrdup("-internal_options"));
  strlist_push(args, xstrdup("-cl-intel-allow-zebin"));
  for (size_t i = 0; i < run->plan->options.count; i++)
    strlist_push(args, xstrdup(run->plan->options.items[i]));
}

static char *command_text(const StringList *args) {
  Buffer b = {0};
  for (size_t i = 0; i < args->count; i++) {
    if (i) buffer_append(&b, " ", 1);
    buffer_append(&b, args->items[i], strlen(args->items[i]));
  }
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

// Whether B is a whole ELF file: its header, program and section header tables and every
// section's bytes within it. An ocloc (or an --ocloc=PATH program) that exits 0 with a file
// cut short, or a distributor's node that copied part of one back, is not taken as an image
// (the magic alone let a 64-byte header into the output and the cache).
static bool whole_elf(const Buffer *b) {
  ElfHeader h;
  const char *why;
  if (elf_read_header(b->data, b->size, &h, &why)) return false;
  uint64_t size = b->size;
  size_t shdr = h.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
  size_t phdr = h.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
  if ((h.shnum && h.shentsize < shdr) || (h.phnum && h.phentsize < phdr)) return false;
  // Counts and entry sizes are 16-bit: no product overflows.
  if ((h.shnum && (h.shoff > size || h.shnum * h.shentsize > size - h.shoff)) ||
      (h.phnum && (h.phoff > size || h.phnum * h.phentsize > size - h.phoff)))
    return false;
  for (uint64_t i = 0; i < h.shnum; i++) {
    ElfSection s = elf_read_section(b->data, &h, i);
    if (s.type != SHT_NOBITS && s.type != SHT_NULL && (s.offset > size || s.size > size - s.offset))
      return false;
  }
  return true;
}

// The first of KERNELS that no symbol of B (a whole_elf file) names, or NULL. The zebin names
// each kernel it compiled: a native image is tied to its SPIR-V by them, so that another
// image's output (a distributor's node that returned the wrong job's file, an ocloc script
// that mixed its outputs up) is not taken for this one's.
static const char *kernel_not_named(const Buffer *b, const StringList *kernels) {
  ElfHeader h;
  const char *why;
  if (elf_read_header(b->data, b->size, &h, &why)) die("%s", why); // whole_elf read it
  size_t entry = h.is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
  bool *named = xcalloc(kernels->count + 1, sizeof *named);
  for (uint64_t i = 0; i < h.shnum; i++) {
    ElfSection symbols = elf_read_section(b->data, &h, i);
    if (symbols.type != SHT_SYMTAB || symbols.link >= h.shnum) continue;
    ElfSection strings = elf_read_section(b->data, &h, symbols.link);
    if (strings.type != SHT_STRTAB) continue;
    const char *text = (const char *)b->data + strings.offset;
    for (uint64_t at = 0; at + entry <= symbols.size; at += entry) {
      // st_name leads both layouts
      uint64_t name = elf_read_field(b->data + symbols.offset + at, 4, &h);
      if (name >= strings.size) continue;
      size_t len = strnlen(text + name, strings.size - name);
      for (size_t k = 0; k < kernels->count; k++)
        named[k] |= strlen(kernels->items[k]) == len && !memcmp(kernels->items[k], text + name, len);
    }
  }
  const char *missing = NULL;
  for (size_t k = 0; !missing && k < kernels->count; k++)
    if (!named[k]) missing = kernels->items[k];
  free(named);
  return missing;
}

// The ocloc output of A, read back; its files removed unless kept.
static void read_native(AotRun *run, AotImage *a) {
  char *bin = file_of(run, a, "bin");
  const char *missing;
  int rc = read_file(bin, &a->native);
  if (rc)
    a->error = format("ocloc wrote no native image for device %s (%s: %s)",
                      run->plan->devices[a->device].ocloc_name, bin, read_error_text(rc));
  else if (!whole_elf(&a->native))
    a->error = format("ocloc's output for device %s is not a whole ELF file (%s: %zu bytes)",
                      run->plan->devices[a->device].ocloc_name, bin, a->native.size);
  else if ((missing = kernel_not_named(&a->native, &run->results[a->image].symbols)))
    a->error = format("ocloc's output for device %s does not hold kernel %s of the image (%s): "
                      "another image's",
                      run->plan->devices[a->device].ocloc_name, missing, bin);
  if (!run->opts->keep_files) own_remove(bin);
  free(bin);
}

static int write_spirv(AotRun *run, AotImage *a) {
  char *spv = file_of(run, a, "spv");
  const Buffer *spirv = &run->results[a->image].spirv;
  int rc = write_file_atomic(spv, spirv->data, spirv->size);
  if (rc) a->error = format("cannot write %s: %s", spv, strerror(-rc));
  free(spv);
  return rc;
}

// One image for one device, on a thread of parallel_for: its own AotImage and files only.
static void compile_one(void *arg, size_t k) {
  AotRun *run = arg;
  AotImage *a = &run->images[k];
  const AotDevice *d = &run->plan->devices[a->device];
  if (a->from_cache || a->error) return;
  if (write_spirv(run, a)) return;
  StringList args = {0};
  char *bin = file_of(run, a, "bin");
  own_expect(bin); // ocloc makes it, in a folder of this run's
  free(bin);
  strlist_push(&args, xstrdup(run->plan->ocloc));
  ocloc_args(run, a, &args);
  char *shown = command_text(&args);
  note("%s", shown);
  free(shown);
  strlist_push(&args, NULL);
  Buffer out;
  int status = 0;
  int rc = run_tool((const char *const *)args.items, &out, &status);
  args.count--;
  strlist_free(&args);
  if (rc) {
    a->error = format("cannot run %s: %s", run->plan->ocloc, strerror(-rc));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    size_t n = out.size;
    while (n && (out.data[n - 1] == '\n' || out.data[n - 1] == '\r'))
      n--;
    a->error = format("ocloc failed for device %s (%s %d)%s%.*s", d->ocloc_name,
                      WIFSIGNALED(status) ? "signal" : "status",
                      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), n ? ":\n" : "",
                      (int)n, (const char *)out.data);
  } else {
    read_native(run, a);
  }
  free(out.data);
  if (!run->opts->keep_files) {
    char *spv = file_of(run, a, "spv");
    own_remove(spv);
    free(spv);
  }
}

// Images through one ocloc process (`ocloc multi LIST`, one compile command line a line): an
// ocloc process costs about 0.05 s of CPU to start (IGC's libraries) before its first compile,
// 12% of a small image's 0.43 s (issue 33: 40 images of 4 kernels took 17.0 s of CPU as 40
// processes, 14.8 s as one; bench/RESULTS.md). Each job takes the next images as it finishes, as many as
// the remaining ones over twice the jobs (at most 16): big batches first, single images at
// the end, so that no job is left with a long batch while the others wait (guided
// scheduling: 40 images, 2 jobs: 10, 8, 6, 4, 3, 2, 2, then one at a time).
typedef struct {
  AotRun *run;
  size_t count, jobs;
  _Atomic size_t next; // the first image no job has taken
} AotBatches;

// ARG as one word of a line of ocloc multi's list, which splits at blanks and takes "..." as
// one word; false for what its list cannot hold (a quote, a backslash, a line break, nothing).
static bool append_list_word(Buffer *line, const char *arg) {
  if (!*arg || strpbrk(arg, "\"\\\n\r")) return false;
  if (line->size) buffer_append(line, " ", 1);
  buffer_append(line, "\"", 1);
  buffer_append(line, arg, strlen(arg));
  buffer_append(line, "\"", 1);
  return true;
}

// One image's line of the list: its compile command line less "compile", the output named as
// a file in -out_dir (ocloc 22.43's multi writes no file for an -output holding a folder, and
// exits 0; a bare name goes into a folder named after the list, in the current folder).
static bool batch_line(const AotRun *run, const AotImage *a, Buffer *list) {
  StringList args = {0};
  ocloc_args(run, a, &args);
  Buffer line = {0};
  bool ok = true;
  for (size_t i = 1; ok && i < args.count; i++) {
    if (!strcmp(args.items[i - 1], "-output")) {
      char *slash = strrchr(args.items[i], '/');
      char *dir = slash ? xstrndup(args.items[i], (size_t)(slash - args.items[i])) : xstrdup(".");
      ok = append_list_word(&line, slash ? slash + 1 : args.items[i]) &&
           append_list_word(&line, "-out_dir") && append_list_word(&line, *dir ? dir : "/");
      free(dir);
    } else {
      ok = append_list_word(&line, args.items[i]);
    }
  }
  if (ok) {
    buffer_append(list, line.data, line.size);
    buffer_append(list, "\n", 1);
  }
  free(line.data);
  strlist_free(&args);
  return ok;
}

// Images FIRST to END through one `ocloc multi` (its list named after FIRST). ocloc stops at
// the first command that fails; then each image of the batch is compiled alone, so that each
// failure is reported with its own image and ocloc's own words.
static void compile_batch(AotRun *run, size_t first, size_t end) {
  if (end - first == 1) {
    compile_one(run, first);
    return;
  }
  char *list_file = format("%s/batch.%zu.txt", run->dir, first);
  Buffer list = {0};
  bool listed = true;
  for (size_t k = first; listed && k < end; k++)
    listed = !write_spirv(run, &run->images[k]) && batch_line(run, &run->images[k], &list);
  int rc = listed ? write_file_atomic(list_file, list.data, list.size) : 0;
  if (listed && !rc) // the command, then its list (one note: the jobs' notes do not mix)
    note("%s multi %s\n%.*s", run->plan->ocloc, list_file, (int)list.size - 1,
         (const char *)list.data);
  free(list.data);
  bool done = false;
  if (listed && !rc) {
    for (size_t k = first; k < end; k++) {
      char *bin = file_of(run, &run->images[k], "bin");
      own_expect(bin); // ocloc makes it, in a folder of this run's
      free(bin);
    }
    const char *argv[] = {run->plan->ocloc, "multi", list_file, NULL};
    Buffer out;
    int status = 0;
    done = run_tool(argv, &out, &status) == 0 && WIFEXITED(status) && !WEXITSTATUS(status);
    free(out.data);
    if (!run->opts->keep_files) own_remove(list_file);
  }
  free(list_file);
  for (size_t k = first; k < end; k++) {
    AotImage *a = &run->images[k];
    free(a->error); // a SPIR-V file not written: compile_one writes it again, or says so
    a->error = NULL;
    if (done) {
      read_native(run, a);
      if (!run->opts->keep_files) {
        char *spv = file_of(run, a, "spv");
        own_remove(spv);
        free(spv);
      }
    } else {
      char *bin = file_of(run, a, "bin");
      own_remove(bin); // what the batch wrote before it stopped: compiled again
      free(bin);
      compile_one(run, k);
    }
  }
}

// One job, on a thread of parallel_for: batches of the images no job has taken, until none
// is left.
static void compile_batches(void *arg, size_t job) {
  (void)job;
  AotBatches *b = arg;
  size_t first = atomic_load(&b->next), size;
  for (;;) {
    do {
      if (first >= b->count) return;
      size = (b->count - first + 2 * b->jobs - 1) / (2 * b->jobs);
      if (size > 16) size = 16;
    } while (!atomic_compare_exchange_weak(&b->next, &first, first + size));
    compile_batch(b->run, first, first + size);
    first = atomic_load(&b->next);
  }
}

// The images not served by the cache as DTLTO jobs: common.args is ocloc, each job's args the
// rest of its command line; the outputs come back as files (ARCHITECTURE.md fact 11).
static void run_distributed(AotRun *run, const size_t *todo, size_t count) {
  const AotOptions *o = run->opts;
  json_t *root = json_new_object(), *common = json_new_object(), *jobs = json_new_array();
  char *linker_output = format("%s", o->output);
  json_put(common, "linker_output", json_text(linker_output));
  json_t *common_args = json_new_array();
  json_push(common_args, json_text(run->plan->ocloc));
  json_put(common, "args", common_args);
  json_put(common, "inputs", json_new_array());
  json_put(root, "common", common);
  for (size_t i = 0; i < count; i++) {
    AotImage *a = &run->images[todo[i]];
    if (write_spirv(run, a)) continue;
    StringList args = {0};
    ocloc_args(run, a, &args);
    json_t *job = json_new_object(), *job_args = json_new_array();
    for (size_t j = 0; j < args.count; j++)
      json_push(job_args, json_text(args.items[j]));
    json_put(job, "args", job_args);
    json_t *inputs = json_new_array(), *outputs = json_new_array();
    char *spv = file_of(run, a, "spv"), *bin = file_of(run, a, "bin");
    json_push(inputs, json_text(spv));
    json_push(outputs, json_text(bin));
    own_expect(bin); // ocloc makes it, in a folder of this run's
    free(spv);
    free(bin);
    json_put(job, "inputs", inputs);
    json_put(job, "outputs", outputs);
    json_push(jobs, job);
    strlist_free(&args);
  }
  json_put(root, "jobs", jobs);
  char *text = json_dump_text(root);
  json_decref(root);
  char *list = format("%s/ocloc-jobs.json", run->dir);
  int rc = write_file_atomic(list, text, strlen(text));
  free(text);
  if (rc) fatal(list, "cannot write the job list: %s", strerror(-rc));
  StringList argv = {0};
  strlist_push(&argv, xstrdup(o->distributor));
  for (size_t i = 0; o->distributor_args && i < o->distributor_args->count; i++)
    strlist_push(&argv, xstrdup(o->distributor_args->items[i]));
  strlist_push(&argv, xstrdup(list));
  note("distributor: %zu ocloc job(s): %s ... %s", count, o->distributor, list);
  strlist_push(&argv, NULL);
  Buffer out;
  int status = 0;
  rc = run_tool((const char *const *)argv.items, &out, &status);
  argv.count--;
  strlist_free(&argv);
  if (rc) fatal(o->distributor, "cannot run the distributor: %s", strerror(-rc));
  if (!WIFEXITED(status) || WEXITSTATUS(status))
    fatal(o->distributor, "the distributor failed on %s (status %d):\n%s", list,
          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), (char *)out.data);
  for (size_t i = 0; i < count; i++) {
    AotImage *a = &run->images[todo[i]];
    if (a->error) continue;
    read_native(run, a);
    if (a->error) {
      char *why = a->error;
      a->error = format("%s; the distributor's output:\n%s", why, (char *)out.data);
      free(why);
    }
    if (!o->keep_files) {
      char *spv = file_of(run, a, "spv");
      own_remove(spv);
      free(spv);
    }
  }
  if (!o->keep_files) own_remove(list);
  free(list);
  free(linker_output);
  free(out.data);
}

AotImage *aot_compile(const AotPlan *plan, const AotOptions *o, const ImageResult *results,
                      size_t num_results, size_t *count) {
  AotImage *images = xcalloc(num_results * plan->num_devices + 1, sizeof *images);
  size_t n = 0;
  for (size_t i = 0; i < num_results; i++) {
    PropertySets sets;
    image_result_properties(&results[i], &sets);
    for (size_t d = 0; d < plan->num_devices; d++) {
      // What a device cannot run (an aspect it lacks, a sub-group size it has not) is not
      // compiled for it, as intel's sycl-post-link leaves it out of that target's table.
      if (!target_runs_image(plan->devices[d].target, &sets)) {
        note("image %zu is not compiled for %s: the device cannot run it", i,
             plan->devices[d].ocloc_name);
        continue;
      }
      images[n++] = (AotImage){.image = i, .device = d};
    }
    propsets_free(&sets);
  }
  *count = n;

  size_t *todo = xcalloc(n + 1, sizeof *todo), num_todo = 0, hits = 0;
  for (size_t k = 0; k < n; k++) {
    AotImage *a = &images[k];
    native_key(plan, &plan->devices[a->device], &results[a->image].spirv, a->key);
    if (o->cache && cache_get(o->cache, "native", a->key, &a->native) == 0) {
      a->from_cache = true;
      hits++;
    } else {
      todo[num_todo++] = k;
    }
  }
  if (o->cache) note("cache: %zu of %zu native image(s) reused", hits, n);

  if (num_todo) {
    // The distributor's nodes see the files beside the output (an absolute path, for
    // whatever directory a job starts in); --save-temps keeps them there, in OUT.aot-R; local
    // jobs use TMPDIR.
    char *dir;
    bool made = true;
    if (o->distributor || o->keep_files) {
      char *copy = xstrdup(o->output), *slash = strrchr(copy, '/');
      const char *name = slash ? slash + 1 : copy;
      if (slash) *slash = 0;
      char parent[PATH_MAX];
      if (!realpath(slash ? (*copy ? copy : "/") : ".", parent))
        fatal(o->output, "cannot find its directory: %s", strerror(errno));
      if (o->keep_files) {
        char *prefix = format("%s/%s.aot-", parent, name);
        int error = 0;
        if (!(dir = own_make_dir(prefix, 0777, false, &error)))
          fatal(prefix, "cannot create a directory: %s", strerror(error));
        note("--save-temps: ocloc's files in %s", dir);
        free(prefix);
        made = false;
      } else {
        char *prefix = format("%s.aot", name);
        dir = make_temp_dir(parent, prefix);
        free(prefix);
      }
      free(copy);
    } else {
      const char *tmp = getenv("TMPDIR");
      dir = make_temp_dir(tmp && *tmp ? tmp : "/tmp", "sycl-thinlto-aot");
    }
    // ocloc (or the --ocloc program, a distributor's job) works in it and may leave there
    // what it likes, FIFOs and folders too: the folder goes whole.
    if (made && own_hand_over_dir(dir)) die("%s: not a folder of this run's", dir);
    AotRun run = {.plan = plan, .opts = o, .results = results, .images = images, .dir = dir};
    if (o->distributor) {
      run_distributed(&run, todo, num_todo);
    } else {
      AotImage *sub = xcalloc(num_todo, sizeof *sub);
      // parallel_for numbers its items 0..num_todo-1: the work is the images not cached.
      for (size_t i = 0; i < num_todo; i++)
        sub[i] = images[todo[i]];
      AotRun local = run;
      local.images = sub;
      size_t jobs = o->jobs < 1 ? 1 : (size_t)o->jobs;
      if (jobs > num_todo) jobs = num_todo;
      AotBatches batches = {.run = &local, .count = num_todo, .jobs = jobs};
      atomic_init(&batches.next, 0);
      parallel_for(jobs, (int)jobs, compile_batches, &batches);
      for (size_t i = 0; i < num_todo; i++)
        images[todo[i]] = sub[i];
      free(sub);
    }
    if (made) remove_temp_dir(dir);
    free(dir);
  }
  for (size_t t = 0; t < num_todo; t++) {
    AotImage *a = &images[todo[t]];
    if (a->error) {
      error(o->output, "image %zu: %s", a->image, a->error);
      free(a->error);
      a->error = NULL;
    } else if (o->cache) {
      cache_store(o->cache, "native", a->key, &a->native);
    }
  }
  free(todo);
  exit_on_errors();
  return images;
}
