// The test runtime: keeps every image the wrapper objects register, resolves the image set
// of a kernel, builds it for OpenCL (pocl) once and runs it. Not a SYCL runtime; tests only.
#include "sycl_test_runtime.h"
#include "properties/properties.h"
#include "spirv/spirv.h"

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "device_global_access.h"
#include "spec_constants.h"
#include "sycl_image_layout.h"

static const char runtime_name[] = "sycl-test-runtime";

static void runtime_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: error: ", runtime_name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static bool runtime_verbose(void) {
  const char *v = getenv("SYCL_TEST_VERBOSE");
  return v && *v && strcmp(v, "0");
}

//
// Registration: every image of every loaded module
//

typedef struct {
  const struct sycl_bin_desc *owner;
  const struct sycl_device_image *image;
  char *name; // "<module>[<index>]": messages and the resolver's cache key
  StringList symbols;
  PropertySets properties;
  // The image's bytes and format: as registered, or for a compressed image (format 4, what
  // --compress writes) its decompressed bytes (owned) and the format they show.
  const uint8_t *start, *end;
  uint8_t format;
  uint8_t *decompressed;
} RegisteredImage;

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static RegisteredImage *registry;
static size_t registry_count, registry_cap;
// kernel + "\n" + aspects -> CachedProgram*: skips resolution for a kernel seen before.
static StrMap kernel_cache;
// resolver cache key (the image set) -> CachedProgram*: one build per image set.
static StrMap program_cache;
static int programs_built;

typedef struct {
  cl_program program;
  char *images; // what sycl_test_image_set reports
  StrMap spec_sets; // kernel -> PropertySets*: its image's specialization-constant sets
} CachedProgram;

// Specialization-constant values the host set: unique ID -> Buffer* (sycl_test_set_...).
static SpecValues spec_values;

static void forget_kernel_cache(void) {
  for (size_t i = 0; i < kernel_cache.cap; i++)
    free(kernel_cache.keys[i]);
  free(kernel_cache.keys);
  free(kernel_cache.values);
  kernel_cache = (StrMap){0};
}

// Back from the DPC++ layout into the PropertySets the resolver reads.
static void read_property_sets(const struct sycl_device_image *img, PropertySets *out) {
  for (const struct sycl_property_set *s = img->properties_begin; s && s != img->properties_end;
       s++) {
    for (const struct sycl_property *p = s->begin; p != s->end; p++) {
      if (p->type == PROP_UINT32)
        propsets_add_u32(out, s->name, p->name, (uint32_t)p->size);
      else if (p->size >= 8)
        propsets_add_bytes(out, s->name, p->name, p->value + 8, p->size - 8);
      else
        propsets_add_bytes(out, s->name, p->name, "", 0);
    }
  }
}

// intel's runtime takes format 4 (SYCL_DEVICE_BINARY_TYPE_COMPRESSED_NONE) for one zstd
// frame whose header gives the size it decompresses to, and finds the format again from the
// bytes; this one decompresses when the image is registered, not on its first build.
// Format 0 (intel's SYCL_DEVICE_BINARY_TYPE_NONE, what --sycl-image-layout=intel writes): found
// from the bytes too.
enum {
  FORMAT_NONE = 0,
  FORMAT_COMPRESSED = 4,
  FORMAT_SPIRV = 6 /* IMG_SPIRV, the Format our wrapper writes */
};

static uint8_t format_of(const uint8_t *start, const uint8_t *end) {
  static const uint8_t spirv_magic[4] = {0x03, 0x02, 0x23, 0x07};
  return end - start >= 4 && !memcmp(start, spirv_magic, 4) ? FORMAT_SPIRV : FORMAT_NONE;
}

static int decompress_image(RegisteredImage *r) {
  const uint8_t *data = r->image->start;
  size_t size = (size_t)(r->image->end - r->image->start);
  unsigned long long content = ZSTD_getFrameContentSize(data, size);
  if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR) {
    runtime_error("%s: compressed image: error determining size of uncompressed data", r->name);
    return -1;
  }
  r->decompressed = xmalloc(content ? content : 1);
  size_t n = ZSTD_decompress(r->decompressed, content, data, size);
  if (ZSTD_isError(n) || n != content) {
    runtime_error("%s: compressed image: %s", r->name,
                  ZSTD_isError(n) ? ZSTD_getErrorName(n) : "shorter than its frame says");
    free(r->decompressed);
    r->decompressed = NULL;
    return -1;
  }
  r->start = r->decompressed;
  r->end = r->decompressed + n;
  r->format = format_of(r->start, r->end);
  return 0;
}

static const char *module_name_of(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname || !*info.dli_fname) return "module";
  const char *slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

void __sycl_register_lib(struct sycl_bin_desc *desc) {
  pthread_mutex_lock(&runtime_lock);
  const char *module = module_name_of(desc);
  for (unsigned i = 0; i < desc->num_images; i++) {
    if (registry_count == registry_cap) {
      registry_cap = registry_cap ? registry_cap * 2 : 16;
      registry = xrealloc(registry, registry_cap * sizeof *registry);
    }
    RegisteredImage *r = &registry[registry_count++];
    const struct sycl_device_image *img = &desc->images[i];
    *r = (RegisteredImage){
        .owner = desc, .image = img, .start = img->start, .end = img->end, .format = img->format};
    r->name = format("%s[%u]", module, i);
    if (img->format == FORMAT_NONE) r->format = format_of(r->start, r->end);
    if (img->format == FORMAT_COMPRESSED && decompress_image(r)) {
      free(r->name); // an image no kernel can use: not registered
      registry_count--;
      continue;
    }
    for (const struct sycl_offload_entry *e = r->image->entries_begin;
         e && e != r->image->entries_end; e++)
      strlist_push(&r->symbols, xstrdup(e->name));
    read_property_sets(r->image, &r->properties);
    if (runtime_verbose())
      fprintf(stderr, "%s: registered %s: %zu kernel(s), %zu property set(s)%s\n", runtime_name,
              r->name, r->symbols.count, r->properties.count,
              r->decompressed ? ", compressed" : "");
  }
  forget_kernel_cache();
  pthread_mutex_unlock(&runtime_lock);
}

// Built programs stay in program_cache: their key names images by module, and a module
// loaded again registers the same images under the same names.
void __sycl_unregister_lib(struct sycl_bin_desc *desc) {
  pthread_mutex_lock(&runtime_lock);
  size_t kept = 0;
  for (size_t i = 0; i < registry_count; i++) {
    RegisteredImage *r = &registry[i];
    if (r->owner != desc) {
      registry[kept++] = *r;
      continue;
    }
    free(r->name);
    free(r->decompressed);
    for (size_t s = 0; s < r->symbols.count; s++)
      free(r->symbols.items[s]);
    free(r->symbols.items);
    propsets_free(&r->properties);
  }
  registry_count = kept;
  forget_kernel_cache();
  pthread_mutex_unlock(&runtime_lock);
}

//
// Host objects (seed 004): address -> unique ID and kind, from the host registration pass
//

typedef struct {
  const void *address;
  char *id, *kind;
} HostObject;

static HostObject *host_objects;
static size_t host_object_count, host_object_cap;

static HostObject *find_host_object(const void *address) {
  for (size_t i = 0; i < host_object_count; i++)
    if (host_objects[i].address == address) return &host_objects[i];
  return NULL;
}

// Runs from constructors, before main. The same address again (a linkonce variable defined
// in several modules registers once per module) keeps the last ID and kind.
void __register_uniquely_identifiable_object(void *address, const char *unique_id,
                                             const char *kind) {
  pthread_mutex_lock(&runtime_lock);
  HostObject *o = find_host_object(address);
  if (!o) {
    if (host_object_count == host_object_cap) {
      host_object_cap = host_object_cap ? host_object_cap * 2 : 16;
      host_objects = xrealloc(host_objects, host_object_cap * sizeof *host_objects);
    }
    o = &host_objects[host_object_count++];
    *o = (HostObject){.address = address};
  }
  free(o->id);
  free(o->kind);
  o->id = xstrdup(unique_id ? unique_id : "");
  o->kind = xstrdup(kind ? kind : "");
  if (runtime_verbose())
    fprintf(stderr, "%s: host object %p: %s (%s)\n", runtime_name, address, o->id, o->kind);
  pthread_mutex_unlock(&runtime_lock);
}

static uint32_t read_u32_le(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

// The image lookup happens now, not at registration: the host modules' constructors may run
// before or after the wrapper objects' (__sycl_register_lib).
int sycl_test_lookup_host_object(const void *address, const char **unique_id, const char **kind,
                                 size_t *size, uint32_t *flags) {
  pthread_mutex_lock(&runtime_lock);
  const HostObject *o = find_host_object(address);
  int rc = o ? 1 : -1;
  size_t value_size = 0;
  uint32_t value_flags = 0;
  for (size_t i = 0; o && rc == 1 && i < registry_count; i++) {
    const Property *p = propsets_find(&registry[i].properties, "SYCL/device globals", o->id);
    if (!p || p->type != PROP_BYTES || p->bytes.size < 8) continue;
    value_size = read_u32_le(p->bytes.data);
    value_flags = read_u32_le(p->bytes.data + 4);
    rc = 0;
  }
  if (unique_id) *unique_id = o ? o->id : NULL;
  if (kind) *kind = o ? o->kind : NULL;
  if (size) *size = value_size;
  if (flags) *flags = value_flags;
  pthread_mutex_unlock(&runtime_lock);
  return rc;
}

int sycl_test_set_specialization_constant(const void *address, const void *value, size_t size) {
  pthread_mutex_lock(&runtime_lock);
  int rc = -1;
  const HostObject *o = find_host_object(address);
  size_t extent = 0;
  for (size_t i = 0; o && i < registry_count && !extent; i++)
    extent = spec_constant_extent(&registry[i].properties, o->id);
  if (!o)
    runtime_error("%p is not a registered host variable", address);
  else if (strcmp(o->kind, "specialization_id"))
    runtime_error("%s is a %s, not a specialization_id", o->id, o->kind);
  else if (size < extent)
    runtime_error("specialization constant %s: %zu bytes given, its value has %zu", o->id, size,
                  extent);
  else
    rc = 0;
  if (!rc) {
    Buffer *v = strmap_get(&spec_values, o->id);
    if (!v) {
      v = xcalloc(1, sizeof *v);
      strmap_put(&spec_values, o->id, v);
    }
    v->size = 0;
    buffer_append(v, value, size);
    forget_kernel_cache(); // the next launch finds the program built with the new value
    if (runtime_verbose())
      fprintf(stderr, "%s: specialization constant %s set (%zu bytes)\n", runtime_name, o->id,
              size);
  }
  pthread_mutex_unlock(&runtime_lock);
  return rc;
}

int sycl_test_registered_images(void) {
  return (int)registry_count;
}

int sycl_test_programs_built(void) {
  return programs_built;
}

//
// The OpenCL device, opened on first use
//

static struct {
  bool ready;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  bool fine_grain;      // CL_DEVICE_SVM_FINE_GRAIN_BUFFER
  char *device_aspects; // what the device reports, comma separated
} ocl;

static char *override_aspects; // sycl_test_set_device_aspects

// SVM allocations live until freed; every kernel may use any of them.
static void **svm_pointers;
static size_t svm_count, svm_cap;

static bool device_has_extension(const char *name) {
  size_t size = 0;
  if (clGetDeviceInfo(ocl.device, CL_DEVICE_EXTENSIONS, 0, NULL, &size)) return false;
  char *text = xcalloc(size + 1, 1);
  clGetDeviceInfo(ocl.device, CL_DEVICE_EXTENSIONS, size, text, NULL);
  bool found = false;
  for (char *w = strtok(text, " "); w && !found; w = strtok(NULL, " "))
    found = !strcmp(w, name);
  free(text);
  return found;
}

static bool open_device(void) {
  if (ocl.ready) return true;
  cl_platform_id platforms[8];
  cl_uint num_platforms = 0;
  if (clGetPlatformIDs(8, platforms, &num_platforms) || !num_platforms) {
    runtime_error("no OpenCL platform (is pocl-opencl-icd installed?)");
    return false;
  }
  cl_uint found = 0;
  for (cl_uint p = 0; p < num_platforms && !found; p++)
    clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &ocl.device, &found);
  if (!found) {
    runtime_error("no OpenCL device on any platform");
    return false;
  }
  cl_int err;
  ocl.context = clCreateContext(NULL, 1, &ocl.device, NULL, NULL, &err);
  if (err) {
    runtime_error("clCreateContext failed (%d)", err);
    return false;
  }
  ocl.queue = clCreateCommandQueueWithProperties(ocl.context, ocl.device, NULL, &err);
  if (err) {
    runtime_error("clCreateCommandQueueWithProperties failed (%d)", err);
    return false;
  }
  cl_device_svm_capabilities svm = 0;
  clGetDeviceInfo(ocl.device, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
  ocl.fine_grain = svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER;
  ocl.device_aspects = xstrdup(device_has_extension("cl_khr_fp64")   ? "fp64"
                               : device_has_extension("cl_khr_fp16") ? "fp16"
                                                                     : "");
  ocl.ready = true;
  return true;
}

static void remember_svm(void *p) {
  if (svm_count == svm_cap) {
    svm_cap = svm_cap ? svm_cap * 2 : 16;
    svm_pointers = xrealloc(svm_pointers, svm_cap * sizeof *svm_pointers);
  }
  svm_pointers[svm_count++] = p;
}

void *sycl_test_malloc(size_t size) {
  pthread_mutex_lock(&runtime_lock);
  void *p = NULL;
  if (open_device()) {
    cl_svm_mem_flags flags =
        CL_MEM_READ_WRITE | (ocl.fine_grain ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0);
    p = clSVMAlloc(ocl.context, flags, size ? size : 1, 0);
    if (!p) runtime_error("clSVMAlloc of %zu bytes failed", size);
  }
  if (p) remember_svm(p);
  pthread_mutex_unlock(&runtime_lock);
  return p;
}

void sycl_test_free(void *p) {
  if (!p) return;
  pthread_mutex_lock(&runtime_lock);
  for (size_t i = 0; i < svm_count; i++)
    if (svm_pointers[i] == p) {
      svm_pointers[i] = svm_pointers[--svm_count];
      clSVMFree(ocl.context, p);
      break;
    }
  pthread_mutex_unlock(&runtime_lock);
}

void sycl_test_set_device_aspects(const char *comma_separated) {
  pthread_mutex_lock(&runtime_lock);
  free(override_aspects);
  override_aspects = comma_separated ? xstrdup(comma_separated) : NULL;
  pthread_mutex_unlock(&runtime_lock);
}

static const char *current_aspects(void) {
  if (override_aspects) return override_aspects;
  const char *env = getenv("SYCL_TEST_DEVICE_ASPECTS");
  return env ? env : ocl.device_aspects;
}

//
// SPIR-V image set -> OpenCL program (ARCHITECTURE.md fact 7)
//

// Runs ARGV with stdout and stderr into LOG; 0 when it exits 0, else -1 with *errmsg.
static int run_command(char *const argv[], const char *log, char **errmsg) {
  fflush(NULL); // the child must not write out what this process has buffered
  pid_t pid = fork();
  if (pid < 0) {
    *errmsg = format("cannot start %s: %s", argv[0], strerror(errno));
    return -1;
  }
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  Buffer text = {0};
  read_file(log, &text);
  buffer_append(&text, "", 1);
  *errmsg = format("%s failed (status %d):\n%s", argv[0], status, (char *)text.data);
  free(text.data);
  return -1;
}

// Removes DIR with the image files and what the tools wrote there.
// legacy_spirv.c: what llvm-spirv-15 cannot read in our SPIR-V, rewritten. 0, or -1.
int legacy_spirv_prepare(Buffer *spirv, char **errmsg);
// pocl_callgraph.c: kernels call what they reach through function pointers, behind
// `if (false)`, so that pocl 3.1 builds it into their binaries. 0, or -1.
int pocl_call_function_pointer_targets(Buffer *spirv, char **errmsg);

static void remove_work_directory(const char *dir, char **inputs, size_t count) {
  static const char *const outputs[] = {"linked.spv", "program.bc", "tool.log"};
  for (size_t i = 0; i < count; i++)
    unlink(inputs[i]);
  for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) {
    char *path = format("%s/%s", dir, outputs[i]);
    unlink(path);
    free(path);
  }
  rmdir(dir);
}

// Several images are linked at SPIR-V level first (spirv-link); the result is read back
// into LLVM 15 bitcode (llvm-spirv-15 -r), which pocl builds as SPIR 1.2.
// Device global ID -> DeviceGlobalMemory*: the one block of SVM that is the device global in
// every program (device_global_access.c says why), allocated when first needed, zeroed.
typedef struct {
  void *data;
  size_t size;
} DeviceGlobalMemory;
static StrMap device_global_memory;

static DeviceGlobalMemory *device_global_block(const char *id, size_t size) {
  DeviceGlobalMemory *m = strmap_get(&device_global_memory, id);
  if (m) return m;
  cl_svm_mem_flags flags = CL_MEM_READ_WRITE | (ocl.fine_grain ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0);
  void *data = clSVMAlloc(ocl.context, flags, size, 0);
  static const uint8_t zero = 0;
  if (!data || clEnqueueSVMMemFill(ocl.queue, data, &zero, 1, size, 0, NULL, NULL) ||
      clFinish(ocl.queue)) {
    runtime_error("device global %s: cannot allocate its %zu bytes", id, size);
    return NULL;
  }
  remember_svm(data); // every kernel may use it
  m = xcalloc(1, sizeof *m);
  *m = (DeviceGlobalMemory){data, size};
  strmap_put(&device_global_memory, id, m);
  return m;
}

// The HostAccessINTEL decorations come out of IMAGE's SPIR-V (no tool after us knows
// SPV_INTEL_global_variable_host_access); each device global the image describes in
// SYCL/device globals becomes its block of SVM.
static int bind_image_device_globals(Buffer *spirv, const RegisteredImage *image, char **errmsg) {
  HostAccessVariable *vars = NULL;
  size_t num_vars = 0;
  if (spirv_strip_host_access(spirv, &vars, &num_vars, errmsg)) return -1;
  DeviceGlobalBinding *bindings = xcalloc(num_vars ? num_vars : 1, sizeof *bindings);
  size_t count = 0;
  int rc = 0;
  for (size_t k = 0; k < num_vars && !rc; k++) {
    const Property *p = propsets_find(&image->properties, "SYCL/device globals", vars[k].name);
    if (!p || p->type != PROP_BYTES || p->bytes.size < 4) continue;
    // At least 8 bytes: the variable's storage, which the property does not give, is taken
    // to be its value.
    size_t size = read_u32_le(p->bytes.data);
    DeviceGlobalMemory *m = device_global_block(vars[k].name, size < 8 ? 8 : size);
    if (!m) {
      *errmsg = format("device global %s: no memory for it", vars[k].name);
      rc = -1;
    } else {
      bindings[count++] = (DeviceGlobalBinding){.variable = vars[k].variable, .address = m->data};
    }
  }
  if (!rc) rc = bind_device_globals(spirv, bindings, count, errmsg);
  for (size_t k = 0; k < count && !rc && runtime_verbose(); k++)
    if (!bindings[k].bound)
      fprintf(stderr, "%s: a device global of %s has an initializer: not bound\n", runtime_name,
              image->name);
  for (size_t k = 0; k < num_vars; k++)
    free(vars[k].name);
  free(vars);
  free(bindings);
  return rc;
}

static cl_program build_image_set(RegisteredImage **images, size_t count, char **errmsg) {
  char dir[] = "/tmp/sycl-test-runtime-XXXXXX";
  if (!mkdtemp(dir)) {
    *errmsg = format("cannot create a temporary directory: %s", strerror(errno));
    return NULL;
  }
  char *inputs[count];
  cl_program program = NULL;
  Buffer spec_const = {0}; // llvm-spirv's --spec-const=: the values set (native)
  uint32_t shift = 0;
  for (size_t i = 0; i < count; i++) {
    inputs[i] = format("%s/image%zu.spv", dir, i);
    Buffer spirv = {0};
    buffer_append(&spirv, images[i]->start, (size_t)(images[i]->end - images[i]->start));
    if (bind_image_device_globals(&spirv, images[i], errmsg) ||
        legacy_spirv_prepare(&spirv, errmsg) ||
        pocl_call_function_pointer_targets(&spirv, errmsg) ||
        spec_constants_native(&spirv, &images[i]->properties, &spec_values, shift, &shift,
                              &spec_const, errmsg)) {
      free(spirv.data);
      goto done;
    }
    int rc = write_file_atomic(inputs[i], spirv.data, spirv.size);
    free(spirv.data);
    if (rc) {
      *errmsg = format("cannot write %s", inputs[i]);
      goto done;
    }
  }
  char *spirv = format("%s/linked.spv", dir), *bitcode = format("%s/program.bc", dir);
  char *log = format("%s/tool.log", dir);
  const char *spirv_link = getenv("SYCL_TEST_SPIRV_LINK");
  const char *llvm_spirv = getenv("SYCL_TEST_LLVM_SPIRV");
  int rc = 0;
  if (count > 1) {
    char *argv[count + 5];
    size_t n = 0;
    argv[n++] = (char *)(spirv_link ? spirv_link : "spirv-link");
    for (size_t i = 0; i < count; i++)
      argv[n++] = inputs[i];
    argv[n++] = "-o";
    argv[n++] = spirv;
    argv[n] = NULL;
    rc = run_command(argv, log, errmsg);
    // Each image brought its own builtin variables: merged again after the link.
    Buffer linked = {0};
    if (!rc && (read_file(spirv, &linked) || legacy_spirv_prepare(&linked, errmsg) ||
                write_file_atomic(spirv, linked.data, linked.size))) {
      if (!*errmsg) *errmsg = format("cannot rewrite %s", spirv);
      rc = -1;
    }
    free(linked.data);
  } else {
    free(spirv);
    spirv = xstrdup(inputs[0]);
  }
  if (!rc) {
    // Native specialization constants take their values here (ARCHITECTURE.md fact 12).
    char *values = NULL;
    if (spec_const.size) {
      spec_const.data[spec_const.size - 1] = 0; // the last entry's space
      values = format("--spec-const=%s", (char *)spec_const.data);
      if (runtime_verbose()) fprintf(stderr, "%s: %s\n", runtime_name, values);
    }
    char *argv[] = {(char *)(llvm_spirv ? llvm_spirv : "llvm-spirv-15"),
                    "-r",
                    spirv,
                    "-o",
                    bitcode,
                    values,
                    NULL};
    rc = run_command(argv, log, errmsg);
    free(values);
  }
  Buffer binary = {0};
  if (!rc && read_file(bitcode, &binary)) {
    *errmsg = format("cannot read %s", bitcode);
    rc = -1;
  }
  if (!rc) {
    const unsigned char *bytes = binary.data;
    cl_int err, status;
    program =
        clCreateProgramWithBinary(ocl.context, 1, &ocl.device, &binary.size, &bytes, &status, &err);
    if (err) {
      *errmsg = format("clCreateProgramWithBinary failed (%d)", err);
    } else if ((err =
                    clBuildProgram(program, 1, &ocl.device, "-x spir -spir-std=1.2", NULL, NULL))) {
      size_t size = 0;
      clGetProgramBuildInfo(program, ocl.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
      char *build_log = xcalloc(size + 1, 1);
      clGetProgramBuildInfo(program, ocl.device, CL_PROGRAM_BUILD_LOG, size, build_log, NULL);
      *errmsg = format("clBuildProgram failed (%d):\n%s", err, build_log);
      free(build_log);
      clReleaseProgram(program);
      program = NULL;
    }
  }
  free(binary.data);
  free(spirv);
  free(bitcode);
  free(log);
done:
  free(spec_const.data);
  if (!getenv("SYCL_TEST_KEEP_TEMPS"))
    remove_work_directory(dir, inputs, count);
  else
    fprintf(stderr, "%s: temporary files kept in %s\n", runtime_name, dir);
  for (size_t i = 0; i < count; i++)
    free(inputs[i]);
  return program;
}

// "app[3] app[0]:set_default app[2]:set_fp64:dummy": each image, with the virtual-functions
// set it holds (seed 002) and whether it is the set's dummy.
static char *describe_image_set(const size_t *chosen, size_t count) {
  Buffer b = {0};
  for (size_t i = 0; i < count; i++) {
    const RegisteredImage *img = &registry[chosen[i]];
    const Property *set =
        propsets_find(&img->properties, "SYCL/virtual functions", "virtual-functions-set");
    const Property *dummy =
        propsets_find(&img->properties, "SYCL/virtual functions", "dummy-image");
    if (i) buffer_append(&b, " ", 1);
    buffer_append(&b, img->name, strlen(img->name));
    if (set && set->type == PROP_BYTES) {
      buffer_append(&b, ":", 1);
      buffer_append(&b, set->bytes.data, set->bytes.size);
    }
    if (dummy && dummy->type == PROP_UINT32 && dummy->u32) buffer_append(&b, ":dummy", 6);
  }
  buffer_append(&b, "", 1);
  return (char *)b.data;
}

//
// Device globals: copies between the host and their memory
//

// The device global of the host variable at ADDRESS, checked for [OFFSET, OFFSET + SIZE).
static const char *device_global_of(const void *address, size_t size, size_t offset,
                                    size_t *value_size) {
  const HostObject *o = find_host_object(address);
  if (!o) {
    runtime_error("%p is not a registered host variable", address);
    return NULL;
  }
  *value_size = 0;
  for (size_t i = 0; i < registry_count && !*value_size; i++) {
    const Property *p = propsets_find(&registry[i].properties, "SYCL/device globals", o->id);
    if (p && p->type == PROP_BYTES && p->bytes.size >= 4) *value_size = read_u32_le(p->bytes.data);
  }
  if (!*value_size) {
    runtime_error("device global %s: no registered image defines it", o->id);
    return NULL;
  }
  if (offset > *value_size || size > *value_size - offset) {
    runtime_error("device global %s: bytes [%zu, %zu) are outside its %zu bytes", o->id, offset,
                  offset + size, *value_size);
    return NULL;
  }
  return o->id;
}

// Copies between HOST and the device global's memory, whatever programs exist yet.
static int copy_device_global(const void *address, void *host, size_t size, size_t offset,
                              bool to_device) {
  pthread_mutex_lock(&runtime_lock);
  int rc = -1;
  size_t value_size;
  const char *id = device_global_of(address, size, offset, &value_size);
  DeviceGlobalMemory *m =
      id && open_device() ? device_global_block(id, value_size < 8 ? 8 : value_size) : NULL;
  if (m) {
    uint8_t *device = (uint8_t *)m->data + offset;
    cl_int err = clEnqueueSVMMemcpy(ocl.queue, CL_TRUE, to_device ? device : host,
                                    to_device ? host : device, size, 0, NULL, NULL);
    if (err)
      runtime_error("device global %s: clEnqueueSVMMemcpy failed (%d)", id, err);
    else
      rc = 0;
  }
  pthread_mutex_unlock(&runtime_lock);
  return rc;
}

int sycl_test_copy_to_device_global(const void *address, const void *src, size_t size,
                                    size_t offset) {
  return copy_device_global(address, (void *)src, size, offset, true);
}

int sycl_test_copy_from_device_global(const void *address, void *dst, size_t size, size_t offset) {
  return copy_device_global(address, dst, size, offset, false);
}

// The program holding KERNEL's image set: from the caches, or resolved and built now.
static CachedProgram *program_for_kernel(const char *kernel) {
  const char *aspects = current_aspects();
  char *kernel_key = format("%s\n%s", kernel, aspects);
  CachedProgram *cached = strmap_get(&kernel_cache, kernel_key);
  if (cached) {
    free(kernel_key);
    return cached;
  }

  ResolverImage *candidates = xcalloc(registry_count ? registry_count : 1, sizeof *candidates);
  for (size_t i = 0; i < registry_count; i++)
    candidates[i] = (ResolverImage){.name = registry[i].name,
                                    .image_kind = registry[i].format,
                                    .symbols = &registry[i].symbols,
                                    .properties = &registry[i].properties};
  StringList aspect_list = {0};
  for (const char *p = aspects; *p;) {
    size_t n = strcspn(p, ",");
    if (n) strlist_push(&aspect_list, xstrndup(p, n));
    p += n + (p[n] == ',');
  }
  size_t *chosen = NULL, num_chosen = 0;
  char *set_key = NULL, *errmsg = NULL;
  // Names as the SYCL runtime gives them: mangled (no demangler in the runtime).
  if (resolve_kernel_images(candidates, registry_count, kernel, &aspect_list, NULL, &chosen,
                            &num_chosen, &set_key, &errmsg)) {
    runtime_error("%s", errmsg); // it names the kernel and every missing symbol
    free(errmsg);
    goto done;
  }
  // A program is built with the specialization-constant values of its images.
  Buffer key = {0};
  buffer_append(&key, set_key, strlen(set_key));
  for (size_t i = 0; i < num_chosen; i++)
    spec_constants_key(&registry[chosen[i]].properties, registry[chosen[i]].start,
                       (size_t)(registry[chosen[i]].end - registry[chosen[i]].start), &spec_values,
                       &key);
  buffer_append(&key, "", 1);
  free(set_key);
  set_key = (char *)key.data;
  cached = strmap_get(&program_cache, set_key);
  if (!cached) {
    RegisteredImage *images[num_chosen ? num_chosen : 1];
    for (size_t i = 0; i < num_chosen; i++)
      images[i] = &registry[chosen[i]];
    cl_program program = build_image_set(images, num_chosen, &errmsg);
    if (!program) {
      runtime_error("kernel %s: building image set %s: %s", kernel, set_key, errmsg);
      free(errmsg);
      goto done;
    }
    programs_built++;
    if (runtime_verbose()) fprintf(stderr, "%s: built %s\n", runtime_name, set_key);
    cached = xcalloc(1, sizeof *cached);
    cached->program = program;
    cached->images = describe_image_set(chosen, num_chosen);
    for (size_t i = 0; i < num_chosen; i++) { // emulation: what each kernel's buffer holds
      const RegisteredImage *img = &registry[chosen[i]];
      PropertySets *sets = xcalloc(1, sizeof *sets);
      static const char *const names[] = {SPEC_CONSTANTS_SET, SPEC_DEFAULTS_SET};
      for (size_t n = 0; n < 2; n++) {
        const PropertySet *set = propsets_find_set(&img->properties, names[n]);
        for (size_t k = 0; set && k < set->count; k++)
          if (set->props[k].type == PROP_BYTES)
            propsets_add_bytes(sets, names[n], set->props[k].name, set->props[k].bytes.data,
                               set->props[k].bytes.size);
      }
      for (size_t k = 0; k < img->symbols.count && sets->count; k++)
        strmap_put(&cached->spec_sets, img->symbols.items[k], sets);
      if (!sets->count) free(sets);
    }
    strmap_put(&program_cache, set_key, cached);
  }
  strmap_put(&kernel_cache, kernel_key, cached);
done:
  for (size_t i = 0; i < aspect_list.count; i++)
    free(aspect_list.items[i]);
  free(aspect_list.items);
  free(candidates);
  free(chosen);
  free(set_key);
  free(kernel_key);
  return cached;
}

const char *sycl_test_image_set(const char *kernel) {
  pthread_mutex_lock(&runtime_lock);
  const CachedProgram *cached = NULL;
  if (ocl.ready) { // what the device reports is known once it is open
    char *key = format("%s\n%s", kernel, current_aspects());
    cached = strmap_get(&kernel_cache, key);
    free(key);
  }
  pthread_mutex_unlock(&runtime_lock);
  return cached ? cached->images : NULL;
}

int sycl_test_build_kernel(const char *kernel) {
  pthread_mutex_lock(&runtime_lock);
  int rc = -1;
  if (open_device()) {
    CachedProgram *cached = program_for_kernel(kernel);
    cl_int err;
    cl_kernel k = cached ? clCreateKernel(cached->program, kernel, &err) : NULL;
    if (cached && err)
      runtime_error("kernel %s: clCreateKernel failed (%d)", kernel, err);
    else if (k)
      rc = 0;
    if (k) clReleaseKernel(k);
  }
  pthread_mutex_unlock(&runtime_lock);
  return rc;
}

int sycl_test_open_device(void) {
  pthread_mutex_lock(&runtime_lock);
  int rc = open_device() ? 0 : -1;
  pthread_mutex_unlock(&runtime_lock);
  return rc;
}

int sycl_test_launch(const char *kernel, size_t n, const void *captures, size_t size) {
  pthread_mutex_lock(&runtime_lock);
  int rc = -1;
  cl_kernel k = NULL;
  cl_mem spec_buffer = NULL;
  if (!open_device()) goto done;
  CachedProgram *cached = program_for_kernel(kernel);
  if (!cached) goto done;
  cl_int err;
  k = clCreateKernel(cached->program, kernel, &err);
  if (err) {
    runtime_error("kernel %s: clCreateKernel failed (%d)", kernel, err);
    goto done;
  }
  cl_uint num_args = 0;
  clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof num_args, &num_args, NULL);
  // A [=] lambda kernel takes its captures as one byval struct: the host lambda's bytes.
  if (num_args > 0 && (err = clSetKernelArg(k, 0, size, captures))) {
    runtime_error("kernel %s: clSetKernelArg of %zu bytes failed (%d)", kernel, size, err);
    goto done;
  }
  // Its second argument, if any, is the specialization-constants buffer (as DPC++'s
  // kernel_handler argument where constants are emulated): the image's blob, or null.
  const PropertySets *spec_sets = num_args > 1 ? strmap_get(&cached->spec_sets, kernel) : NULL;
  Buffer blob = {0};
  if (spec_sets) spec_constants_blob(spec_sets, &spec_values, &blob);
  if (blob.size && !(spec_buffer = clCreateBuffer(ocl.context,
                                                  CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                                  blob.size, blob.data, &err)))
    runtime_error("kernel %s: clCreateBuffer of %zu bytes failed (%d)", kernel, blob.size, err);
  free(blob.data);
  if (blob.size && !spec_buffer) goto done;
  if (num_args > 1 && (err = clSetKernelArg(k, 1, sizeof spec_buffer, &spec_buffer))) {
    runtime_error("kernel %s: the specialization-constants buffer: clSetKernelArg failed (%d)",
                  kernel, err);
    goto done;
  }
  if (svm_count && (err = clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                              svm_count * sizeof(void *), svm_pointers))) {
    runtime_error("kernel %s: clSetKernelExecInfo failed (%d)", kernel, err);
    goto done;
  }
  if (n && (err = clEnqueueNDRangeKernel(ocl.queue, k, 1, NULL, &n, NULL, 0, NULL, NULL))) {
    runtime_error("kernel %s: clEnqueueNDRangeKernel failed (%d)", kernel, err);
    goto done;
  }
  if ((err = clFinish(ocl.queue))) {
    runtime_error("kernel %s: clFinish failed (%d)", kernel, err);
    goto done;
  }
  rc = 0;
done:
  if (spec_buffer) clReleaseMemObject(spec_buffer);
  if (k) clReleaseKernel(k);
  pthread_mutex_unlock(&runtime_lock);
  return rc;
}
