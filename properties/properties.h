// properties/ — SYCL runtime metadata: property sets and their two encodings, the
// properties of one finalized image, the devicelib mask, the kernel-image resolver, the
// device targets intel knows. Uses base/.
#ifndef SYCL_THINLTO_PROPERTIES_H
#define SYCL_THINLTO_PROPERTIES_H

#include "base/base.h"

#ifdef __cplusplus
extern "C" {
#endif

// SYCL property sets (intel's PropertySetIO model). Every image carries them from
// the hooks to the output.
typedef enum { PROP_UINT32 = 1, PROP_BYTES = 2 } PropertyType;

typedef struct {
  char *name;
  PropertyType type;
  uint32_t u32; // PROP_UINT32
  Buffer bytes; // PROP_BYTES: the raw bytes (no bit-count header; encoders add it)
  uint64_t bits; // PROP_BYTES: the bit count the header says, when not 8 * bytes.size (a bit
                 // vector: SYCL/kernel param opt); 0 otherwise. JSON cannot carry it.
} Property;

typedef struct {
  char *name; // "SYCL/devicelib req mask", ...
  Property *props;
  size_t count, cap;
  StrMap index; // property name -> its index + 1: adding N properties is linear, not N^2
} PropertySet;

typedef struct {
  PropertySet *sets;
  size_t count, cap;
  StrMap index; // set name -> its index + 1
} PropertySets;


// properties/propset.c: building, and the two encodings (both round-trip).
void propsets_add_u32(PropertySets *p, const char *set, const char *name, uint32_t value);
void propsets_add_bytes(PropertySets *p, const char *set, const char *name, const void *data,
                        size_t size);
// A bit vector of BITS bits (bit i in byte i / 8, least significant first).
void propsets_add_bits(PropertySets *p, const char *set, const char *name, const void *data,
                       uint64_t bits);
// The set, empty if it is new (intel writes some sets' headers with no property under them).
void propsets_add_set(PropertySets *p, const char *set);
// The bit count a byte array's header carries (PROP_BYTES only).
uint64_t property_bit_count(const Property *prop);
const Property *propsets_find(const PropertySets *p, const char *set, const char *name);
const PropertySet *propsets_find_set(const PropertySets *p, const char *set);
void propsets_remove(PropertySets *p, const char *set, const char *name); // if it is there
void propsets_free(PropertySets *p);
// Upstream JSON: {"Set": {"Name": 1 | "<standard base64>"}}; malloc'd text (jansson; a
// byte of a name that begins no valid UTF-8 sequence is written as U+FFFD).
char *propsets_to_json(const PropertySets *p);
// The same document as a jansson value, to embed in another (inspect --json). Caller decrefs.
json_t *propsets_to_json_value(const PropertySets *p);
int propsets_from_json(const char *json, PropertySets *out, char **errmsg);
// intel's .prop text: "[Set]" then "Name=1|42" or "Name=2|<intel base64 of bitcount+bytes>".
char *propsets_to_prop(const PropertySets *p, char **errmsg); // NULL (and why) for a name
                                                             // intel's reader cannot read
// Puts the sets in the order sycl-post-link writes them (JSON has them sorted), for diffs.
void propsets_order_as_intel(PropertySets *p);
int propsets_from_prop(const char *text, PropertySets *out, char **errmsg);
// Base64: standard (RFC 4648, '=' padded; the JSON values) and intel's variant (bits
// least-significant first, unpadded: 0x40 is "AB"; the .prop values). Decoders: 0 or -EINVAL.
char *base64_encode(const void *data, size_t size);
int base64_decode(const char *text, size_t len, Buffer *out);
char *base64_encode_intel(const void *data, size_t size);
int base64_decode_intel(const char *text, size_t len, Buffer *out);

// properties/resolver.c: the images the runtime links for a kernel (seeds 000 and 002).
typedef struct {
  const char *name;               // for messages and the cache key
  uint16_t image_kind;            // only images of the kernel's image's kind are candidates
  const StringList *symbols;      // kernels it defines
  const PropertySets *properties; // exported/imported symbols, virtual functions, ...
} ResolverImage;
// How a message names a symbol (KERNEL: the kernel resolved); malloc'd. NULL: as it is.
typedef char *ResolverNaming(const char *symbol, bool kernel);
// Fills *chosen with indices into IMAGES in a deterministic order and *cache_key with a
// stable key for that set. 0, or -1 with *errmsg naming every unresolved symbol, each as
// NAMING gives it.
int resolve_kernel_images(const ResolverImage *images, size_t count, const char *kernel,
                          const StringList *device_aspects, ResolverNaming *naming,
                          size_t **chosen, size_t *num_chosen, char **cache_key, char **errmsg);
// SYCL aspect numbers: "fp64" -> 6, ...; a decimal number stands for itself. 0, or -1.
int aspect_value(const char *name, uint32_t *value);
const char *aspect_name(uint32_t value); // NULL when unnamed

// properties/targets.c: whether TARGET (sycl-post-link's -o TARGET,FILE) can run an image
// whose property sets are SETS, as intel's isTargetCompatibleWithModule decides from its
// device configuration file: each aspect of SYCL/device requirements is one the target has,
// and its reqd_sub_group_size one the target supports. "" and a target the table does not
// hold (only intel's Intel GPU targets are) accept every image.
bool target_runs_image(const char *target, const PropertySets *sets);
// The aspects (names, NULL-terminated) of a device target of that table, or NULL if unknown.
const char *const *target_aspects(const char *target);

// properties/compute.c: every property set of one finalized image (hooks/hook.c calls it in
// complete_work, on the job's own module). Sets, in intel's order: devicelib req mask, device
// requirements, specialization constants and their default values (from the metadata the
// lowering wrote, hooks/spec_constants.c), kernel param opt, exported symbols, kernel names,
// imported symbols (allow_dependencies only), program metadata, misc properties (register
// allocation, GRF size, optLevel), device globals, host pipes, virtual functions, assert used.
typedef struct {
  const StringList *kernels;  // the image's kernels
  const StringList *exported; // its SYCL_EXTERNAL entry points (external only if allowed)
  bool allow_dependencies;    // --allow-device-image-dependencies: symbol tables are written
  bool dummy_image;           // SPLIT_DUMMY_KEY / SPLIT_DUMMY_METADATA: a set's dummy image
  int opt_level;              // optLevel: the input module's own level, else -O; -1: none
  // sycl-post-link's rules (tool/post_link.c; false for the link): symbol tables and device
  // globals only where asked for, the exported symbols are ENTRY_POINTS' spir_func functions
  // in their order, imports need no sycl-module-id, no creates-virtual-functions-set, aspects
  // from !sycl_used_aspects only (none inferred from double/half).
  bool post_link;
  bool emit_exported, emit_imported, emit_device_globals;
  const StringList *entry_points; // the image's entry points, in module order
  // intel's optional sets: SYCL/kernel param opt (-emit-param-info; the front writes the
  // set's header even when no kernel has sycl_kernel_omit_args), SYCL/program metadata
  // (-emit-program-metadata), SYCL/kernel names (-emit-kernel-names).
  bool emit_param_info, emit_program_metadata, emit_kernel_names;
} PropertyInputs;
void compute_properties(LLVMModuleRef m, const PropertyInputs *in, PropertySets *out);
// The level a module's code was compiled at, for optLevel: "sycl-optlevel" (a kernel's first,
// then any definition's); else 0 when every kernel is optnone (clang -O0; a module without
// kernels: every definition); else -1. Read from the input: ThinLTO and finalization change
// the module after (symbols.c keeps it in LinkModule.opt_level).
int module_opt_level(LLVMModuleRef m);
// A declaration the runtime must find in another image: not an intrinsic, not
// "indirectly-callable", not __-prefixed before or after demangling (__spirv_*, __sycl_*:
// intel's rule, for this property only) and, with MODULE_IDS (DPC++ IR), one that carries
// sycl-module-id.
bool is_importable_declaration(LLVMValueRef f, bool module_ids);
// intel's "__" rule alone: NAME begins with "__" before or after Itanium demangling.
bool is_implementation_name(const char *name);
// properties/devicelib.c: the mask bit of the fallback library providing NAME, or 0.
uint32_t devicelib_bit(const char *name);
size_t devicelib_table_size(void);
// The DPC++ device library (a --device-libs file, "libsycl-cmath.bc") whose C wrapper defines
// the libm-style NAME ("sqrtf") on top of __devicelib_NAME; NULL for any other name.
const char *devicelib_wrapper_library(const char *name);

#ifdef __cplusplus
}
#endif

#endif
