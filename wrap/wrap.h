// wrap/ — the host side: the wrapper object registering the linked images with the runtime,
// and seed 004's host registration pass. Runs no linker.
#ifndef SYCL_THINLTO_WRAP_H
#define SYCL_THINLTO_WRAP_H

#include "formats/formats.h"

#ifdef __cplusplus
extern "C" {
#endif

//
// wrap/ — the host side: the wrapper object and the clang-linker-wrapper personality
//

// wrap/wrap.c: one __sycl.tgt_device_image (v3) per image with its offload entries and
// its property sets in the DPC++ layout, a __sycl.tgt_bin_desc (v1), and the ctor/dtor
// calling __sycl_register_lib / __sycl_unregister_lib, emitted as a host object.
// With COMPRESS, as intel's offload wrappers (--compress / --offload-compress): an image of
// at least compression_threshold bytes is registered as one zstd frame that records its
// content size, compressed at compression_level, with the Format byte
// WRAP_FORMAT_COMPRESSED (intel's SYCL_DEVICE_BINARY_TYPE_COMPRESSED_NONE); the runtime finds
// the real format from the decompressed bytes. Smaller images and the property sets stay as
// they are.
// With INTEL_LAYOUT, the fields intel's SYCL runtime (DPC++'s libsycl) reads differently from
// upstream's: the image's offload kind is intel's SYCL_DEVICE_BINARY_OFFLOAD_KIND_SYCL (4,
// not LLVM's OFK_SYCL 8), its Format SYCL_DEVICE_BINARY_TYPE_NONE (0: the runtime finds the
// format from the bytes; 4 when compressed) instead of LLVM's ImageKind, and its target
// intel's device target name (the triple's architecture, "spir64", "spir64_gen"; SPIR-V's
// spirv64 is intel's spir64) instead of the whole triple. The structures are the same.
enum {
  WRAP_FORMAT_COMPRESSED = 4,
  WRAP_COMPRESSION_THRESHOLD = 512,
  WRAP_COMPRESSION_LEVEL = 10,
  WRAP_INTEL_OFFLOAD_KIND_SYCL = 4,
  WRAP_INTEL_FORMAT_NONE = 0
};
typedef struct {
  const char *host_triple; // NULL: LLVM's default triple (x86-64 only)
  const char *compile_options, *link_options;
  bool print_module; // --print-wrapped-module: the wrapper's LLVM IR on stderr
  bool compress;
  int compression_level;        // zstd's level (it clamps); intel's default is 10
  size_t compression_threshold; // smaller images stay uncompressed; 0: intel's 512
  bool report_compression; // each compressed image's sizes and level on stderr, in intel's
                           // words ("[Compression] Original image size: N", ...)
  bool intel_layout; // intel's runtime's kind, format and target fields (above)
} WrapOptions;
// "llvm" or "intel" (--image-layout=, --sycl-image-layout=) into *INTEL: 0, or -1 if neither.
int parse_image_layout(const char *text, bool *intel);
// Whether TRIPLE is a host the wrapper is made for (x86-64 Linux, ELF): 0, or -1 with
// *errmsg. write_wrapper_object checks it too; commands check it with their options.
int check_host_triple(const char *triple, char **errmsg);
// PROPERTIES[i] belongs to IMAGES[i]. 0, or -1 with *errmsg.
int write_wrapper_object(const char *path, const OffloadEntry *images,
                         const PropertySets *properties, size_t count, const WrapOptions *o,
                         char **errmsg);
// The SYCL images of OffloadBinary FILES, properties decoded from their `properties` key.
// Entry texts point into (*bytes)[file]. 0, or -1 after error() naming the file.
int read_images_to_wrap(const StringList *files, OffloadEntry **images, PropertySets **properties,
                        size_t *count, Buffer **bytes);
// What read_images_to_wrap gave (COUNT images read from FILES files), freed.
void images_to_wrap_free(OffloadEntry *images, PropertySets *properties, size_t count,
                         Buffer *bytes, size_t files);

// wrap/register_host.c: seed 004's "custom host compiler" pass. Every global variable
// DEFINED in M with "sycl-unique-id" and "sycl-uid-kind" is registered by one internal
// constructor, first in llvm.global_ctors at priority HOST_REGISTRATION_PRIORITY (or lower, to
// stay first): __register_uniquely_identifiable_object(&var, "<id>", "<kind>"). A registered
// variable gets HOST_REGISTERED_METADATA, so a second run (or a module linked from processed
// ones) registers nothing twice. *registered: how many calls it added. 0, or -1 with *errmsg.
#define HOST_REGISTRATION_FUNCTION "__register_uniquely_identifiable_object"
#define HOST_REGISTRATION_CTOR "sycl.register_uniquely_identifiable_objects"
#define HOST_REGISTERED_METADATA "sycl.uid.registered"
enum { HOST_REGISTRATION_PRIORITY = 1 };
int register_host_objects(LLVMModuleRef m, size_t *registered, char **errmsg);
// The pass on bitcode DATA (NAME for messages) into *out, in the LTO form it came in (a
// ThinLTO module keeps a summary). Nothing to register: *out is a copy of DATA, byte for byte.
// Its own context; thread-safe. 0, or -1 with *errmsg.
int register_host_bitcode(const uint8_t *data, size_t size, const char *name, Buffer *out,
                          size_t *registered, char **errmsg);
// The device code a host-LTO bitcode module embeds (clang -fsycl -flto: the initializer of its
// global in section .llvm.offloading), appended to *out. 0 (*out untouched when there is
// none), or -1 with *errmsg.
int host_bitcode_offloading(const uint8_t *data, size_t size, const char *name, Buffer *out,
                            char **errmsg);

#ifdef __cplusplus
}
#endif

#endif
