// `sycl-post-link` (also `sycl-thinlto post-link`): intel's sycl-post-link command line and
// files (OUT.table, OUT_N.bc/.ll, OUT_N.prop, OUT_N.sym) over split_module and
// compute_properties. It groups nothing and computes no property itself; it emits no SPIR-V.
#include "tool/tool.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/IRReader.h>


static const char post_link_usage[] =
    "USAGE: sycl-post-link [options] <input bitcode or IR file, or - for stdin>\n"
    "\n"
    "intel's sycl-post-link command line over sycl-thinlto's split and properties: the input\n"
    "module is split into modules OUT_0, OUT_1, ... (numbered as sycl-post-link numbers them),\n"
    "listed in the file table OUT.table as [Code|Properties|Symbols].\n"
    "\n"
    "OPTIONS:\n"
    "  -o <file>                            the file table (default: <input stem>.files), or\n"
    "                                       the one module with -ir-output-only\n"
    "  -split=kernel|source|auto|none       how entry points are grouped (default: none; auto\n"
    "                                       is per source)\n"
    "  -symbols                             write OUT_N.sym: the entry points, one a line\n"
    "  -properties                          write OUT_N.prop: the SYCL property sets\n"
    "  -S                                   modules as LLVM assembly (OUT_N.ll)\n"
    "  -ir-output-only                      write the single module to -o, no table\n"
    "  -emit-only-kernels-as-entry-points   SYCL_EXTERNAL functions are not entry points\n"
    "  -emit-exported-symbols               SYCL/exported symbols in the properties\n"
    "  -emit-imported-symbols               SYCL/imported symbols: bfloat16 devicelib\n"
    "                                       functions, others with image dependencies\n"
    "  -allow-device-image-dependencies     images may import SYCL_EXTERNAL functions from\n"
    "                                       each other (also: -support-dynamic-linking)\n"
    "  -device-globals                      SYCL/device globals in the properties\n"
    "  -O0, -O1, -O2, -O3, -Os, -Oz         accepted (they steer only ESIMD in sycl-post-link)\n"
    "  -split-esimd, -lower-esimd           accepted for a module without ESIMD code (nothing\n"
    "                                       to do); an error otherwise\n"
    "  -lower-esimd-force-stateless-mem[=B] accepted (a switch of ESIMD lowering; DPC++'s\n"
    "                                       driver passes =false with\n"
    "                                       -fno-sycl-esimd-force-stateless-mem)\n"
    "  --help\n"
    "\n"
    "Options start with - or --. Any other option is an error; ESIMD code is refused (no\n"
    "ESIMD support).\n";

// One -o: intel's [TARGET,]FILE. A table with a target lists only the modules that can run
// there (target_runs_image), and their .prop files are PREFIX_TARGET_N.prop with
// compile_target.
typedef struct {
  char *target; // "" for none
  char *file;
} OutputTable;

typedef struct {
  const char *input, *output; // output: the first -o's file
  OutputTable *tables;
  size_t num_tables;
  const char *out_dir; // -out-dir: where the modules go (else the first -o's directory)
  SplitMode mode;
  bool symbols, properties, assembly, ir_output_only;
  bool only_kernels, emit_exported, emit_imported, allow_dependencies, device_globals;
  bool emit_param_info, emit_program_metadata, emit_kernel_names, default_spec_consts;
  bool ignored_switch; // -reduce-memory-usage, -lower-esimd-force-stateless-mem, -f: accepted
  SpecConstMode spec_const;
  bool split_given;         // -split=X (an action, as for sycl-post-link)
  const char *esimd_option; // -split-esimd or -lower-esimd (an action), as spelled
  char *prefix;             // dir/stem of the output: modules are PREFIX_N.ext
} PostLink;

// The boolean switches, by their name without dashes.
static bool *switch_named(PostLink *p, const char *name) {
  static const char *const names[] = {"symbols",
                                      "properties",
                                      "S",
                                      "ir-output-only",
                                      "emit-only-kernels-as-entry-points",
                                      "emit-exported-symbols",
                                      "emit-imported-symbols",
                                      "allow-device-image-dependencies",
                                      "support-dynamic-linking",
                                      "device-globals",
                                      "emit-param-info",
                                      "emit-program-metadata",
                                      "emit-kernel-names",
                                      "generate-device-image-default-spec-consts",
                                      "reduce-memory-usage",
                                      "lower-esimd-force-stateless-mem",
                                      "f"};
  bool *flags[] = {&p->symbols,         &p->properties,         &p->assembly,
                   &p->ir_output_only,  &p->only_kernels,       &p->emit_exported,
                   &p->emit_imported,   &p->allow_dependencies, &p->allow_dependencies,
                   &p->device_globals,  &p->emit_param_info,    &p->emit_program_metadata,
                   &p->emit_kernel_names, &p->default_spec_consts, &p->ignored_switch,
                   &p->ignored_switch,  &p->ignored_switch};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(name, names[i])) return flags[i];
  return NULL;
}

// A boolean switch as LLVM's cl::opt<bool> takes it: -name, or -name=true|false|1|0.
static bool parse_switch(const char *arg, const char *name, const char *value) {
  if (!value) return true;
  static const char *const yes[] = {"true", "TRUE", "True", "1"};
  static const char *const no[] = {"false", "FALSE", "False", "0"};
  for (size_t i = 0; i < 4; i++) {
    if (!strcmp(value, yes[i])) return true;
    if (!strcmp(value, no[i])) return false;
  }
  fatal(NULL, "%s: '%s' is invalid value for boolean argument '%s'! Try 0 or 1", arg, value,
        name);
}

static void add_output(PostLink *p, const char *value) {
  // intel's TargetFilenamePair: split at the first comma; without one, all of it is the file.
  const char *comma = strchr(value, ',');
  OutputTable t = {.target = xstrdup(""), .file = xstrdup(value)}; // both owned
  if (comma && comma[1]) {
    free(t.target);
    free(t.file);
    t = (OutputTable){.target = xstrndup(value, (size_t)(comma - value)),
                      .file = xstrdup(comma + 1)};
  } else if (comma) {
    free(t.file);
    t.file = xstrndup(value, (size_t)(comma - value));
  }
  p->tables = xrealloc(p->tables, (p->num_tables + 1) * sizeof *p->tables);
  p->tables[p->num_tables++] = t;
}

static void parse_post_link(int argc, char **argv, PostLink *p) {
  *p = (PostLink){.mode = SPLIT_NONE}; // sycl-post-link's default: no split
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (a[0] != '-' || !strcmp(a, "-")) {
      if (p->input) fatal(a, "only one input module is processed at a time");
      p->input = a;
      continue;
    }
    const char *name = a + (a[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    char *bare = eq ? xstrndup(name, (size_t)(eq - name)) : xstrdup(name);
    bool *flag = switch_named(p, bare);
    if (flag) {
      *flag = parse_switch(a, bare, eq ? eq + 1 : NULL);
    } else if (!strcmp(name, "help") || !strcmp(name, "h")) {
      exit(print_help(post_link_usage));
    } else if (!strcmp(a, "-o")) {
      if (++i >= argc) fatal(NULL, "option '-o' needs a value");
      add_output(p, argv[i]);
    } else if (!strncmp(a, "-o=", 3)) {
      add_output(p, a + 3);
    } else if ((v = option_value(argc, argv, &i, a, "split"))) {
      if (split_mode_parse(v, &p->mode))
        fatal(NULL, "-split: expected kernel, source, auto or none, not '%s'", v);
      p->split_given = true;
    } else if ((v = option_value(argc, argv, &i, a, "spec-const"))) {
      if (!strcmp(v, "native"))
        p->spec_const = SPEC_CONST_NATIVE;
      else if (!strcmp(v, "emulation"))
        p->spec_const = SPEC_CONST_EMULATION;
      else
        fatal(NULL, "-spec-const: expected native or emulation, not '%s'", v);
    } else if ((v = option_value(argc, argv, &i, a, "out-dir"))) {
      p->out_dir = v;
    } else if (!strcmp(name, "split-esimd") || !strcmp(name, "lower-esimd")) {
      // Without ESIMD code both do nothing in sycl-post-link; with it, the front refuses.
      p->esimd_option = a;
    } else if (name[0] == 'O' && name[1] && strchr("0123sz", name[1]) && !name[2]) {
      // sycl-post-link's -O levels steer only its ESIMD passes.
    } else {
      fatal(NULL, "unsupported option '%s'", a);
    }
    free(bare);
  }
  if (!p->input) p->input = "-";
  if (p->num_tables) p->output = p->tables[0].file;
  static const struct {
    size_t offset;
    const char *name;
  } not_with_ir_only[] = {
      {offsetof(PostLink, symbols), "symbols"},
      {offsetof(PostLink, properties), "properties"},
      {offsetof(PostLink, emit_param_info), "emit-param-info"},
      {offsetof(PostLink, emit_program_metadata), "emit-program-metadata"},
      {offsetof(PostLink, emit_exported), "emit-exported-symbols"},
      {offsetof(PostLink, emit_imported), "emit-imported-symbols"},
      {offsetof(PostLink, default_spec_consts), "generate-device-image-default-spec-consts"},
  };
  if (p->ir_output_only && (p->mode == SPLIT_KERNEL || p->mode == SPLIT_SOURCE))
    fatal(NULL, "-split=%s can't be used with -ir-output-only", split_mode_name(p->mode));
  if (p->ir_output_only && p->esimd_option && strstr(p->esimd_option, "split-esimd"))
    fatal(NULL, "-split-esimd can't be used with -ir-output-only");
  for (size_t k = 0; k < sizeof not_with_ir_only / sizeof *not_with_ir_only; k++)
    if (p->ir_output_only && *(bool *)((char *)p + not_with_ir_only[k].offset))
      fatal(NULL, "-%s can't be used with -ir-output-only", not_with_ir_only[k].name);
  if (!p->split_given && !p->esimd_option && !p->symbols && !p->properties && !p->emit_exported &&
      !p->emit_imported && !p->device_globals && !p->spec_const && !p->emit_param_info &&
      !p->emit_program_metadata)
    fatal(NULL, "no actions specified; try --help for usage info");
}

// sys::path::stem: the file name without its last extension ("." and ".." stay).
static char *path_stem(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  const char *dot = strrchr(name, '.');
  if (!dot || !strcmp(name, ".") || !strcmp(name, "..")) return xstrdup(name);
  return xstrndup(name, (size_t)(dot - name));
}

// What the modules' names begin with: the output's directory and stem.
static char *output_prefix(const char *output) {
  const char *slash = strrchr(output, '/');
  char *stem = path_stem(output);
  char *prefix = slash ? format("%.*s/%s", (int)(slash - output), output, stem) : xstrdup(stem);
  if (slash == output) {
    free(prefix);
    prefix = format("/%s", stem);
  }
  free(stem);
  return prefix;
}

static void read_input(const char *path, Buffer *out) {
  if (strcmp(path, "-")) {
    int rc = read_file(path, out);
    if (rc < 0) fatal(path, "%s", read_error_text(rc));
    return;
  }
  *out = (Buffer){0};
  char chunk[65536];
  for (;;) {
    ssize_t n = read(0, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fatal("<stdin>", "%s", strerror(errno));
    if (n == 0) break;
    buffer_append(out, chunk, (size_t)n);
    if (out->size > input_size_limit()) fatal("<stdin>", "%s", read_error_text(-EFBIG));
  }
}

// Bitcode or LLVM assembly, as sycl-post-link's parseIRFile reads either.
static LLVMModuleRef parse_input(LLVMContextRef ctx, const char *name, const Buffer *in) {
  LLVMModuleRef m;
  char *why = NULL;
  // Bitcode is verified between reading its bodies and the reader's own checks; assembly
  // between parsing and LLVM's debug-info upgrade (which would end the process on it).
  if (is_llvm_bitcode(in->data, in->size)) {
    reading_input_begin(name, "bitcode");
    int unreadable = module_parse_verified(ctx, in->data, in->size, name, &m, &why);
    reading_input_end();
    if (unreadable) fatal(name, "%s", why);
    return m;
  }
  reading_input_begin(name, "IR");
  int unreadable = bridge_parse_assembly_verified(ctx, in->data, in->size, name, &m, &why) ||
                   module_verify(m, &why); // the kernels' names
  reading_input_end();
  if (unreadable) fatal(name, "%s", why);
  return m;
}

static bool has_attribute(LLVMValueRef f, const char *name) {
  return LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, name, strlen(name));
}

// ESIMD functions carry !sycl_explicit_simd; without any, -split-esimd and -lower-esimd have
// nothing to do. The first ESIMD kernel, else the first ESIMD function, or NULL.
static LLVMValueRef esimd_function(LLVMModuleRef m) {
  LLVMValueRef first = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (global_metadata_node(f, "sycl_explicit_simd")) {
      if (is_kernel(f)) return f;
      if (!first) first = f;
    }
  return first;
}

// intel's error for a kernel that asks for both a register allocation mode (the older
// attribute) and a GRF size: the two are one request, made twice.
static void check_register_allocation(const char *name, LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (has_attribute(f, "sycl-register-alloc-mode") && has_attribute(f, "sycl-grf-size"))
      fatal(name, "%s: Unsupported use of both register_alloc_mode and grf_size",
            LLVMGetValueName2(f, &(size_t){0}));
}

//
// Before the split, as sycl-post-link's pre-split pipeline: llvm.used (which names every
// kernel, and would put each in every image) goes, and llvm.compiler.used keeps no
// device_global (the SPIR-V translator would keep them alive); a device_global nothing else
// uses is deleted.
//

static bool is_device_global(LLVMValueRef gv) {
  const char *v;
  size_t len;
  return LLVMIsAGlobalVariable(gv) &&
         bridge_global_attribute(gv, "sycl-device-global-size", &v, &len);
}

static LLVMValueRef strip_casts(LLVMValueRef v) {
  while (v && LLVMIsAConstantExpr(v) &&
         (LLVMGetConstOpcode(v) == LLVMBitCast || LLVMGetConstOpcode(v) == LLVMAddrSpaceCast))
    v = LLVMGetOperand(v, 0);
  return v;
}

// Whether V has a user other than constants nothing uses (such as the elements of a
// deleted llvm.compiler.used): intel's Constant::isConstantUsed.
static bool is_constant_used(LLVMValueRef v) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAConstant(user) || LLVMIsAGlobalValue(user) || is_constant_used(user)) return true;
  }
  return false;
}

static void presplit_cleanup(LLVMModuleRef m) {
  LLVMValueRef used = LLVMGetNamedGlobal(m, "llvm.used");
  if (used) LLVMDeleteGlobal(used);
  LLVMValueRef compiler_used = LLVMGetNamedGlobal(m, "llvm.compiler.used");
  LLVMValueRef init = compiler_used ? LLVMGetInitializer(compiler_used) : NULL;
  if (!init || !LLVMIsAConstantArray(init)) return;
  int n = LLVMGetNumOperands(init);
  LLVMValueRef *keep = xcalloc((size_t)n + 1, sizeof(LLVMValueRef));
  LLVMValueRef *dropped = xcalloc((size_t)n + 1, sizeof(LLVMValueRef));
  size_t kept = 0, num_dropped = 0;
  for (int i = 0; i < n; i++) {
    LLVMValueRef op = LLVMGetOperand(init, i);
    if (!is_device_global(strip_casts(op)))
      keep[kept++] = op;
    else
      dropped[num_dropped++] = strip_casts(op);
  }
  if (kept < (size_t)n) {
    LLVMTypeRef element = LLVMGetElementType(LLVMGlobalGetValueType(compiler_used));
    LLVMDeleteGlobal(compiler_used);
    if (kept) {
      LLVMValueRef array = LLVMConstArray2(element, keep, kept);
      LLVMValueRef gv = LLVMAddGlobal(m, LLVMTypeOf(array), "llvm.compiler.used");
      LLVMSetInitializer(gv, array);
      LLVMSetLinkage(gv, LLVMAppendingLinkage);
      LLVMSetSection(gv, "llvm.metadata");
    }
  }
  // A device_global only llvm.compiler.used kept alive goes too (it would be in every module).
  for (size_t i = 0; i < num_dropped; i++) {
    LLVMValueRef dg = dropped[i];
    bool seen = false;
    for (size_t k = 0; k < i; k++)
      seen |= dropped[k] == dg;
    if (seen || is_constant_used(dg)) continue;
    LLVMReplaceAllUsesWith(dg, LLVMGetPoison(LLVMTypeOf(dg))); // the dead constants' uses
    LLVMDeleteGlobal(dg);
  }
  free(dropped);
  free(keep);
}

//
// After the split, each module as sycl-post-link's ModuleDesc::cleanup leaves it.
//

// What intel's Internalize keeps visible. With image dependencies: kernels and what another
// image could import (a SYCL_EXTERNAL definition, not a builtin, not "__" by intel's rule).
// Without: the image's entry points, and virtual and "referenced-indirectly" functions.
static bool must_preserve(LLVMValueRef f, const StrMap *entries, bool allow_dependencies) {
  const char *name = LLVMGetValueName2(f, &(size_t){0});
  if (allow_dependencies)
    return is_kernel(f) ||
           (has_attribute(f, "sycl-module-id") && !LLVMGetIntrinsicID(f) &&
            !is_builtin_name(name) && !is_implementation_name(name));
  return strmap_get(entries, name) || has_attribute(f, "indirectly-callable") ||
         has_attribute(f, "referenced-indirectly");
}

static int cleanup_module(LLVMModuleRef m, const SplitImage *image, bool allow_dependencies,
                          char **errmsg) {
  StrMap entries = {0};
  bool defines_set = false; // a virtual-functions image keeps the set's bodies
  for (size_t i = 0; i < image->entries.count; i++) {
    strmap_put(&entries, image->entries.items[i], (void *)1);
    LLVMValueRef f = LLVMGetNamedFunction(m, image->entries.items[i]);
    defines_set |= f && has_attribute(f, "indirectly-callable");
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!has_attribute(f, "indirectly-callable")) continue;
    if (!defines_set && !LLVMIsDeclaration(f)) {
      bridge_make_declaration(f);
      LLVMSetComdat(f, NULL);
    } else if (defines_set) {
      LLVMSetLinkage(f, LLVMExternalLinkage);
    }
  }
  // As LLVM's InternalizePass, which leaves an available_externally body (a declaration with
  // a body) as it is.
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_internalizable(f) && LLVMGetLinkage(f) != LLVMAvailableExternallyLinkage &&
        !must_preserve(f, &entries, allow_dependencies))
      make_internal(f);
  strmap_free(&entries);
  char *why = run_passes(m, "globaldce,strip-dead-debug-info,strip-dead-prototypes");
  if (why) {
    *errmsg = format("cannot clean the module up: %s", why);
    free(why);
    return -1;
  }
  return 0;
}

//
// The output files
//

typedef struct {
  PostLink *p;
  SplitMode mode;   // the split actually done
  size_t count;     // modules written
  Buffer *tables;   // the rows of each -o table
  StringList files; // everything written, kept only if all goes well
} Outputs;

// "-" is standard output, as for sycl-post-link (LLVM's raw_fd_ostream).
static int write_stdout(const void *data, size_t size) {
  if (fwrite(data, 1, size, stdout) != size || fflush(stdout)) return -(errno ? errno : EIO);
  return 0;
}

static int write_output(Outputs *o, const char *path, const void *data, size_t size,
                        char **errmsg) {
  if (!strcmp(path, "-")) {
    int rc = write_stdout(data, size);
    if (rc < 0) *errmsg = format("<stdout>: cannot write: %s", strerror(-rc));
    return rc;
  }
  strlist_push(&o->files, xstrdup(path));
  int rc = write_output_atomic(path, data, size);
  if (rc < 0) {
    *errmsg = format("%s: cannot write: %s", path, strerror(-rc));
    return -1;
  }
  return 0;
}

static int write_module(Outputs *o, LLVMModuleRef m, const char *path, char **errmsg) {
  if (o->p->assembly) {
    char *text = LLVMPrintModuleToString(m);
    int rc = write_output(o, path, text, strlen(text), errmsg);
    LLVMDisposeMessage(text);
    return rc;
  }
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  int rc = write_output(o, path, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc), errmsg);
  LLVMDisposeMemoryBuffer(bc);
  return rc;
}

// optLevel, as intel: the "sycl-optlevel" of the first entry point that has one.
static int entry_opt_level(LLVMModuleRef m, const StringList *entries) {
  for (size_t i = 0; i < entries->count; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, entries->items[i]);
    LLVMAttributeRef a =
        f ? LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "sycl-optlevel", 13)
          : NULL;
    if (!a) continue;
    unsigned len;
    const char *v = LLVMGetStringAttributeValue(a, &len);
    char *text = xstrndup(v, len), *end;
    long level = strtol(text, &end, 10);
    bool ok = len && !*end;
    free(text);
    if (ok) return (int)level;
  }
  return -1;
}

// How the front marks a module it made (ModuleKind), for its properties.
typedef enum { MODULE_PLAIN, MODULE_DUMMY, MODULE_SPEC_DEFAULTS } ModuleKind;

static void module_properties(Outputs *o, LLVMModuleRef m, const SplitImage *image,
                              ModuleKind kind, const char *target, PropertySets *sets) {
  PostLink *p = o->p;
  PropertyInputs in = {.kernels = &image->kernels,
                       .exported = &image->exported,
                       .allow_dependencies = p->allow_dependencies,
                       .opt_level = entry_opt_level(m, &image->entries),
                       .post_link = true,
                       .emit_exported = p->emit_exported,
                       .emit_imported = p->emit_imported,
                       .emit_device_globals = p->device_globals,
                       .emit_param_info = p->emit_param_info,
                       .emit_program_metadata = p->emit_program_metadata,
                       .emit_kernel_names = p->emit_kernel_names,
                       .entry_points = &image->entries};
  compute_properties(m, &in, sets);
  // Without a split the image may hold kernels of several sizes: intel promises none.
  if (o->mode == SPLIT_NONE)
    propsets_remove(sets, "SYCL/device requirements", "reqd_work_group_size_uint64_t");
  if (*target)
    propsets_add_bytes(sets, "SYCL/device requirements", "compile_target", target,
                       strlen(target));
  if (kind == MODULE_DUMMY) propsets_add_u32(sets, "SYCL/virtual functions", "dummy-image", 1);
  if (kind == MODULE_SPEC_DEFAULTS)
    propsets_add_u32(sets, "SYCL/misc properties", "specConstsReplacedWithDefault", 1);
  propsets_order_as_intel(sets);
}

// NULL, with *errmsg, for a name intel's .prop reader could not read back.
static char *properties_text(Outputs *o, LLVMModuleRef m, const SplitImage *image,
                             ModuleKind kind, const char *target, char **errmsg) {
  PropertySets sets;
  module_properties(o, m, image, kind, target, &sets);
  char *text = propsets_to_prop(&sets, errmsg);
  propsets_free(&sets);
  return text;
}

// sycl-post-link's test for a dummy image, on the cleaned-up module: some function (a
// definition or a declaration) is "indirectly-callable" and some function carries
// !sycl_used_aspects. A kernel's module holding a vtable's declarations passes it too.
static bool wants_dummy(LLVMModuleRef m) {
  bool virtual_function = false, aspects = false;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    virtual_function |= has_attribute(f, "indirectly-callable");
    aspects |= global_metadata_node(f, "sycl_used_aspects") != NULL;
  }
  return virtual_function && aspects;
}

// One row per table: M written as module N, its properties computed on PROPS_FROM (M itself,
// or for a dummy the module it copies, as sycl-post-link computes a dummy's properties before
// emptying its functions), plus "dummy-image" for a dummy and "specConstsReplacedWithDefault"
// for a module whose specialization constants were replaced by their defaults.
static int write_row(Outputs *o, LLVMModuleRef m, LLVMModuleRef props_from,
                     const SplitImage *image, ModuleKind kind, char **errmsg) {
  PostLink *p = o->p;
  size_t n = o->count++;
  char *code = format("%s_%zu.%s", p->prefix, n, p->assembly ? "ll" : "bc");
  char *sym = p->symbols ? format("%s_%zu.sym", p->prefix, n) : NULL;
  int rc = write_module(o, m, code, errmsg);
  if (rc == 0 && sym) {
    Buffer b = {0};
    for (size_t i = 0; i < image->entries.count; i++) {
      buffer_append(&b, image->entries.items[i], strlen(image->entries.items[i]));
      buffer_append(&b, "\n", 1);
    }
    rc = write_output(o, sym, b.data ? (const char *)b.data : "", b.size, errmsg);
    free(b.data);
  }
  // A table with a target lists the module only if the target can run it (intel's device
  // configuration: the aspects and sub-group size of the module's device requirements).
  PropertySets requirements = {0};
  bool have_requirements = false;
  for (size_t t = 0; rc == 0 && t < p->num_tables; t++) {
    const char *target = p->tables[t].target;
    if (*target && !have_requirements) {
      module_properties(o, props_from, image, kind, "", &requirements);
      have_requirements = true;
    }
    if (*target && !target_runs_image(target, &requirements)) continue;
    char *prop = NULL;
    if (p->properties) {
      prop = *target ? format("%s_%s_%zu.prop", p->prefix, target, n)
                     : format("%s_%zu.prop", p->prefix, n);
      char *text = properties_text(o, props_from, image, kind, target, errmsg);
      rc = text ? write_output(o, prop, text, strlen(text), errmsg) : -1;
      free(text);
    }
    char *row = format("%s%s%s%s%s\n", code, prop ? "|" : "", prop ? prop : "", sym ? "|" : "",
                       sym ? sym : "");
    buffer_append(&o->tables[t], row, strlen(row));
    free(row);
    free(prop);
  }
  if (have_requirements) propsets_free(&requirements);
  free(code);
  free(sym);
  return rc;
}

// SplitEmit: called by split_module for each module in sycl-post-link's order. A module that
// wants a dummy is followed by it: a copy in which every "indirectly-callable" function,
// defined or declared, has a body that only returns.
// intel's tool words the device_image_scope error without a file name, and its tests read it
// so; the entry points that reach the global follow as a note naming the input.
__attribute__((noreturn)) static void report_split_error(const char *name, char *why) {
  static const char scope_error[] = "device_global variable '";
  static const char reached[] = " Reached from: ";
  char *users = strstr(why, reached);
  if (strncmp(why, scope_error, strlen(scope_error)) || !users) fatal(name, "%s", why);
  *users = '\0';
  error(NULL, "%s", why);
  inform(name, "reached from: %s", users + strlen(reached));
  exit_on_errors(); // exits: an error is counted
  __builtin_unreachable();
}

static int emit_module(void *arg, LLVMModuleRef m, const SplitImage *image, char **errmsg) {
  Outputs *o = arg;
  PostLink *p = o->p;
  // As sycl-post-link: the specialization constants of each split module, before its
  // cleanup; with -generate-device-image-default-spec-consts first a copy of a module that
  // has some, with every one replaced by its default, written right after it.
  LLVMModuleRef defaults = NULL;
  bool changed;
  if (p->default_spec_consts && module_uses_spec_constants(m)) {
    defaults = LLVMCloneModule(m);
    if (lower_spec_constants(defaults, SPEC_CONST_DEFAULTS, false, &changed, errmsg) ||
        cleanup_module(defaults, image, p->allow_dependencies, errmsg)) {
      LLVMDisposeModule(defaults);
      return -1;
    }
  }
  if ((p->spec_const && lower_spec_constants(m, p->spec_const, false, &changed, errmsg)) ||
      cleanup_module(m, image, p->allow_dependencies, errmsg)) {
    if (defaults) LLVMDisposeModule(defaults);
    return -1;
  }
  if (defaults && !p->ir_output_only) {
    int rc = write_row(o, m, m, image, MODULE_PLAIN, errmsg);
    if (!rc) rc = write_row(o, defaults, defaults, image, MODULE_SPEC_DEFAULTS, errmsg);
    LLVMDisposeModule(defaults);
    return rc;
  }
  if (defaults) LLVMDisposeModule(defaults);
  if (p->ir_output_only) {
    if (o->count++) {
      *errmsg = xstrdup("some modules had to be split, '-ir-output-only' can't be used");
      return -1;
    }
    return write_module(o, m, p->output, errmsg);
  }
  if (write_row(o, m, m, image, MODULE_PLAIN, errmsg)) return -1;
  if (!wants_dummy(m)) return 0;
  LLVMModuleRef dummy = LLVMCloneModule(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(dummy); f; f = LLVMGetNextFunction(f))
    if (has_attribute(f, "indirectly-callable")) empty_function_body(f);
  int rc = write_row(o, dummy, m, image, MODULE_DUMMY, errmsg);
  LLVMDisposeModule(dummy);
  return rc;
}

// Writes one file table to its -o file ("-": standard output).
static void write_table(const char *path, const Buffer *table) {
  if (!strcmp(path, "-")) {
    int rc = write_stdout(table->data, table->size);
    if (rc < 0) fatal("<stdout>", "cannot write: %s", strerror(-rc));
    return;
  }
  int rc = write_output_atomic(path, table->data, table->size);
  if (rc < 0) fatal(path, "cannot write: %s", strerror(-rc));
}

// The names the modules and their files take after the prefix: _N.bc, _N.ll, _N.sym,
// _N.prop, and _TARGET_N.prop for a table with a target.
static bool is_module_file(const char *rest, const void *arg) {
  const PostLink *p = arg;
  if (is_numbered_name(rest, "_")) return true;
  for (size_t t = 0; t < p->num_tables; t++) {
    if (!*p->tables[t].target) continue;
    char *separator = format("_%s_", p->tables[t].target);
    bool yes = is_numbered_name(rest, separator);
    free(separator);
    if (yes) return true;
  }
  return false;
}

// Every path the command writes, under the one rule for outputs (base/outputs.c), before
// the input is read: the tables (or the one module), and the modules' files that already
// stand where this run would write its own.
static void check_post_link_outputs(const PostLink *p) {
  if (strcmp(p->input, "-")) output_rule_input(p->input);
  for (size_t t = 0; t < p->num_tables; t++)
    if (strcmp(p->tables[t].file, "-"))
      check_output_path(p->tables[t].file, "-o");
    else
      require_standard_output(); // the table (or the one module) is written there
  if (p->ir_output_only) return;
  // The modules and their files are named after the table, beside it: for the null device
  // that is /dev/null_0.bc and the like, files in /dev (intel's tool writes them there).
  for (size_t t = 0; t < p->num_tables; t++)
    if (output_is_null_device(p->tables[t].file))
      fatal(p->tables[t].file, "-o names the null device, but the modules are written beside "
                               "the table as %s_N.bc; name a file in a folder to write them in",
            p->prefix);
  char *option = format("-o %s (a module's file)", p->output);
  check_derived_outputs(p->prefix, is_module_file, p, option);
  free(option);
}

int post_link_main(int argc, char **argv) {
  // intel's messages, word for word, name symbols as intel's tool does: mangled.
  demangle_names = false;
  PostLink p;
  parse_post_link(argc, argv, &p);
  // sycl-post-link's default output: the input's stem with .files (.out for one module).
  char *default_output = NULL;
  if (!p.output) {
    char *stem = path_stem(p.input);
    // (sycl-post-link's names, "out.bc" without its dot included)
    p.output = default_output = format(
        "%s%s", stem, !p.ir_output_only ? ".files" : p.assembly ? ".out.ll" : "out.bc");
    free(stem);
    add_output(&p, p.output);
  }
  if (p.out_dir) {
    char *stem = path_stem(p.output);
    size_t len = strlen(p.out_dir);
    p.prefix = format("%s%s%s", p.out_dir, len && p.out_dir[len - 1] == '/' ? "" : "/", stem);
    free(stem);
  } else {
    p.prefix = output_prefix(p.output);
  }
  const char *name = strcmp(p.input, "-") ? p.input : "<stdin>";
  check_post_link_outputs(&p);

  Buffer input;
  read_input(p.input, &input);
  LLVMContextRef ctx = context_create();
  read_memory_ceiling_begin(input.size);
  LLVMModuleRef m = parse_input(ctx, name, &input);
  read_memory_ceiling_end();
  free(input.data);
  LLVMValueRef esimd = p.esimd_option ? esimd_function(m) : NULL;
  if (esimd)
    fatal(name, "%s '%s' is ESIMD code (!sycl_explicit_simd), which this tool does not support "
                "(%s)",
          is_kernel(esimd) ? "kernel" : "function", LLVMGetValueName2(esimd, &(size_t){0}),
          p.esimd_option);
  check_register_allocation(name, m);
  presplit_cleanup(m);
  bridge_fix_sanitizer_table(m);

  // sycl-post-link's auto is per source, or no split where one module must come out.
  SplitMode mode = p.mode;
  if (mode == SPLIT_AUTO) mode = p.ir_output_only ? SPLIT_NONE : SPLIT_SOURCE;
  Outputs out = {.p = &p, .mode = mode, .tables = xcalloc(p.num_tables, sizeof(Buffer))};
  const char *header = p.properties
                           ? (p.symbols ? "[Code|Properties|Symbols]\n" : "[Code|Properties]\n")
                           : (p.symbols ? "[Code|Symbols]\n" : "[Code]\n");
  for (size_t t = 0; t < p.num_tables; t++)
    buffer_append(&out.tables[t], header, strlen(header));
  SplitOptions o = {.mode = mode,
                    .allow_dependencies = p.allow_dependencies,
                    .only_kernels = p.only_kernels,
                    .post_link = true,
                    .virtual_by_category = true,
                    .emit = emit_module,
                    .emit_arg = &out};
  SplitResult result;
  char *why;
  if (split_module(m, &o, &result, &why)) report_split_error(name, why); // consumes M
  split_result_free(&result);
  context_dispose(ctx);

  for (size_t t = 0; t < p.num_tables && !p.ir_output_only; t++)
    write_table(p.tables[t].file, &out.tables[t]);
  for (size_t t = 0; t < p.num_tables && !p.ir_output_only; t++)
    if (strcmp(p.tables[t].file, "-")) keep_on_success(p.tables[t].file);
  for (size_t i = 0; i < out.files.count; i++)
    keep_on_success(out.files.items[i]);
  strlist_free(&out.files);
  for (size_t t = 0; t < p.num_tables; t++)
    free(out.tables[t].data);
  free(out.tables);
  for (size_t t = 0; t < p.num_tables; t++) {
    free(p.tables[t].target);
    free(p.tables[t].file);
  }
  free(p.tables);
  free(p.prefix);
  free(default_output);
  return 0;
}
