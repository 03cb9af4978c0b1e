// Inside tool/ only: what the linker-wrapper mode's three files share. Its options
// (linker_wrapper_options.c), ld's command line as the wrapper reads it (linker_wrapper_ld.c:
// libraries, search paths, link modes, scripts, thin archives, which inputs hold device code),
// and the steps it runs (linker_wrapper.c), which carry one run's state from one to the next.
#ifndef SYCL_THINLTO_TOOL_LINKER_WRAPPER_INTERNAL_H
#define SYCL_THINLTO_TOOL_LINKER_WRAPPER_INTERNAL_H

#include "tool/tool.h"

typedef struct {
  const char *host_triple;
  const char *linker_path;
  const char *output; // the host linker's -o (its last, as ld takes it), NULL if none
  size_t output_at;   // where in linker_args the host link's -o goes (its last spelling)
  bool print_commands;
  bool dry_run;
  bool save_temps;
  bool print_wrapped_module;
  bool compress;              // --compress, --offload-compress
  int compression_level;      // --compression-level=, --offload-compression-level=
  long compression_threshold; // --offload-compression-threshold=; 0: intel's default
  bool use_post_link_tool, no_use_post_link_tool;
  bool device_link_only; // --sycl-device-link (-fsycl-link): -o is the wrapper object
  bool separate_units;   // --no-sycl-rdc: each input's device code linked on its own
  // --syclbin=input|object|executable: -o is a SYCLBIN file of that bundle state (formats/
  // syclbin.c), no wrapping, no host link; syclbin_state is SYCLBIN_INPUT... when set.
  const char *syclbin;
  uint32_t syclbin_state;
  const char *module_split_mode; // --sycl-module-split-mode, checked after all options
  int jobs;
  StringList device_link_args;
  StringList linker_args;
  const char *temp_prefix; // where the steps' temporaries go: a directory of ours/, or OUT.sycl.
  // AOT (issue 33): --triple=spir64_gen, the devices of --gpu-tool-arg's -device, its other
  // arguments, and -sycl-backend-compile-options.
  bool aot_triple, jit_triple; // --triple=spir64_gen, and a JIT one too (spir64,intel_gpu_pvc)
  StringList aot_devices, ocloc_args;
  const char *backend_compile_options;
  // The wrapped images' fields for intel's runtime or upstream's (wrap.h): --sycl-image-layout=
  // (NULL if not given); by default intel's when DPC++'s driver runs the wrapper, which it
  // tells by --sycl-post-link-options= (DPC++'s driver passes it on every SYCL link, upstream
  // clang never).
  const char *image_layout;
  bool dpcpp_driver;
  bool intel_layout; // what the two decide, after all options
} WrapperOptions;

// One run of the wrapper: its options and what the steps leave for the ones after them.
typedef struct {
  WrapperOptions o;
  StringList temps;   // files written for the steps (host bitcode copies, embedded device
                      // code): removed after the link
  int embedded_count; // <temp_prefix>member<N>.offload files written so far
  // A temporary the device link reads -> the name the user knows ("libh.a(x.o)", "h.bc"),
  // so that the device link's messages name that instead of a file gone when they are read.
  StrMap shown_names;
  StringList shown_paths;           // shown_names' keys, in the order they came
  StrMap host_bitcode_device_code;  // a rewritten host bitcode input -> its device code's file
} WrapperRun;

//
// tool/linker_wrapper_options.c — the wrapper's options
//

// clang-linker-wrapper's options, intel's SYCL ones and the host linker's arguments (the
// rest), into O; bad ones end the run with fatal(); --help prints the usage and exits.
void parse_wrapper_options(int argc, char **argv, WrapperOptions *o);

//
// tool/linker_wrapper_ld.c — ld's command line, as far as the device code is concerned
//

// Host linker options whose value is the next argument (GNU ld, lld).
bool takes_separate_value(const char *a);
// Every file the host link reads (its inputs, the static libraries -l finds), for the rule
// that the output never replaces one of them (output_rule_input).
void record_host_inputs(const StringList *args);
// The inputs of the host link that carry device code, in order: objects, archives (thin ones
// are checked, not read), -l static libraries as ld finds them, linker scripts' inputs, and
// the device code host bitcode embeds. Damaged inputs are error()s.
void collect_device_inputs(WrapperRun *run, StringList *device_inputs);
// A FIFO or socket: its bytes can be read only once, and the host linker needs them.
bool input_is_stream(const char *path);
// Whether PATH starts with a bitcode magic number (read no further: inputs can be large).
bool file_is_bitcode(const char *path);
// PATH, a temporary, is shown in messages as NAME.
void show_as(WrapperRun *run, const char *path, const char *name);
// TEXT with every temporary of the run's replaced by the name it stands for.
void show_names(const WrapperRun *run, Buffer *text);

#endif
