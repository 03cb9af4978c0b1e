// formats/ — reading and writing files: OffloadBinary, archives, fat objects and bitcode
// found in the inputs, and the linked output. Nothing here links or changes a module.
#ifndef SYCL_THINLTO_FORMATS_H
#define SYCL_THINLTO_FORMATS_H

#include "properties/properties.h"

#ifdef __cplusplus
extern "C" {
#endif

//
// formats/split marks
//

// How split images are marked (split/ writes them; the link, the hooks and properties read
// them).
// OffloadBinary string keys of every split image:
#define SPLIT_KEY "sycl-split" // the mode: kernel, source, auto or none
// ...of an image holding one outlined virtual-function set, and of its dummy copy:
#define SPLIT_VF_SET_KEY "sycl-virtual-functions-set" // the set's name
#define SPLIT_DUMMY_KEY "sycl-dummy-image"            // "1" on the dummy image only
// The same marks in the module, for bitcode that lost its keys (clang-linker-wrapper):
// named metadata !sycl-split = !{!{!"<mode>"}} on every split module, and
// !sycl-dummy-image = !{!{!"<set>"}} on a dummy image. The outlined set's functions keep
// their "indirectly-callable"="<set>" attribute; other images only declare them.
#define SPLIT_MODE_METADATA "sycl-split"
#define SPLIT_DUMMY_METADATA "sycl-dummy-image"

//
// formats/offload_binary.c — OffloadBinary v1 (llvm/Object/OffloadBinary.h) and v2
//

// IMG_SYCLBIN is intel's (its OffloadBinary.h puts it after IMG_SPIRV): every entry of a
// SYCLBIN file has it.
enum { IMG_NONE = 0, IMG_OBJECT, IMG_BITCODE, IMG_CUBIN, IMG_FATBINARY, IMG_PTX, IMG_SPIRV,
       IMG_SYCLBIN };
enum { OFK_OPENMP = 1, OFK_CUDA = 2, OFK_HIP = 4, OFK_SYCL = 8 };

typedef struct {
  const char *key, *value;
} OffloadString;

typedef struct {
  uint16_t image_kind, offload_kind;
  uint32_t flags;
  OffloadString *strings; // array owned by the entry; texts point into the parsed bytes
  size_t num_strings;
  const uint8_t *image; // points into the parsed bytes
  size_t image_size;
} OffloadEntry;

// DATA begins with an OffloadBinary's magic.
bool is_offload_binary(const uint8_t *data, size_t size);
// Parses one or more concatenated blobs. 0, or -1 with *errmsg (malloc'd) saying
// what is wrong and at which byte offset. *entries is malloc'd.
int offload_binary_parse(const uint8_t *data, size_t size, OffloadEntry **entries, size_t *count,
                         char **errmsg);
// Appends one v1 blob for E to OUT; strings are written in the order given.
void offload_binary_append(Buffer *out, const OffloadEntry *e);
// The same blob without its image: appends to OUT the bytes before E's image (header, entry,
// strings, at the image's aligned offset) and returns how many zero bytes follow the image to
// end the blob. E->image is not read; E->image_size is. For a writer that writes the image
// from where it is.
size_t offload_binary_append_head(Buffer *out, const OffloadEntry *e);
const char *offload_entry_get(const OffloadEntry *e, const char *key);
// The texts and the array.
void offload_strings_free(OffloadString *strings, size_t count);
const char *image_kind_name(uint16_t kind); // "spirv", "bitcode", ...
// Version 2 (LLVM 23; LLVM 22 and the link read version 1 only): one binary holding several
// entries, each string value with its size. The version of the binary DATA begins with (0: not
// an OffloadBinary).
uint32_t offload_binary_version(const uint8_t *data, size_t size);
// Appends one v2 binary holding ENTRIES (strings in the order given) to OUT.
void offload_binary_write_v2(Buffer *out, const OffloadEntry *entries, size_t count);
// Parses the one v2 binary DATA begins with. Unlike v1's, the entries' texts are copies
// (offload_strings_free); the images point into DATA. 0, or -1 with *errmsg (malloc'd).
int offload_binary_parse_v2(const uint8_t *data, size_t size, OffloadEntry **entries,
                            size_t *count, char **errmsg);
const char *offload_kind_name(uint16_t kind); // "openmp", "cuda", "hip", "sycl", "unknown"

//
// formats/syclbin.c — intel's SYCLBIN files, layout v2 (sycl/doc/design/SYCLBINDesign.md)
//
// One OffloadBinary v2 whose every entry is IMG_SYCLBIN, OFK_SYCL, with a "role" key: one
// global_metadata entry ([SYCLBIN/global metadata] state), and per abstract module (am_index)
// one am_metadata entry (its property sets, .prop text) and its ir entries (ir_type, triple;
// SPIR-V) or native ones (arch, triple; AOT), whose images are [u64 LE metadata size]
// [.prop text of SYCLBIN/ir module metadata or .../native device code image metadata][bytes].

// The bundle states (sycl::bundle_state), as [SYCLBIN/global metadata] state holds them.
enum { SYCLBIN_INPUT = 0, SYCLBIN_OBJECT = 1, SYCLBIN_EXECUTABLE = 2 };
enum { SYCLBIN_IR_SPIRV = 0 }; // ir_type: 0 SPIR-V, 1 PTX, 2 AMDGCN
const char *syclbin_state_name(uint32_t state); // "input", "object", "executable"; NULL
// An OffloadBinary (v1 or v2) whose first entry is IMG_SYCLBIN: a SYCLBIN file of either layout.
bool is_syclbin(const uint8_t *data, size_t size);
// What is said of a SYCLBIN file given to a link, in the design document's words.
#define SYCLBIN_LINK_REFUSED                                                                   \
  "linking SYCLBIN files is not supported: intel's SYCLBIN design document "                  \
  "(sycl/doc/design/SYCLBINDesign.md) does not define it (\"TODO: Describe the details of "    \
  "linking SYCLBIN files.\")"

// One image to write, an abstract module of its own (intel's writer makes one per image too).
typedef struct {
  const PropertySets *properties; // the module's metadata: the image's property sets
  bool native;                    // an AOT image (role native, ARCH); else SPIR-V (role ir)
  const char *triple, *arch;
  const uint8_t *image;
  size_t size;
} SyclbinImage;
// Appends the SYCLBIN file of IMAGES in bundle state STATE to OUT. 0, or -1 with *errmsg (a
// property set or name intel's .prop reader cannot read).
int syclbin_write(Buffer *out, uint32_t state, const SyclbinImage *images, size_t count,
                  char **errmsg);

// A SYCLBIN file as read (inspect): the texts point into ENTRIES, the bytes into the file's.
typedef struct {
  size_t entry; // its OffloadBinary entry
  bool native;
  uint32_t ir_type; // ir
  const char *triple, *arch;
  PropertySets metadata; // SYCLBIN/ir module metadata or SYCLBIN/native ... metadata
  const uint8_t *bytes;
  size_t size;
} SyclbinReadImage;
typedef struct {
  size_t entry;          // its am_metadata entry
  PropertySets metadata; // its property sets
  SyclbinReadImage *images;
  size_t num_images;
} SyclbinModule;
typedef struct {
  uint32_t state;
  PropertySets global;
  size_t global_entry;
  SyclbinModule *modules; // by am_index
  size_t num_modules;
  OffloadEntry *entries;
  size_t num_entries;
} Syclbin;
// Reads a layout v2 file as intel's reader checks it (one global_metadata entry, one
// am_metadata entry per am_index, indices 0 to N-1, every entry IMG_SYCLBIN and OFK_SYCL).
// 0, or -1 with *errmsg naming the entry.
int syclbin_read(const uint8_t *data, size_t size, Syclbin *out, char **errmsg);
void syclbin_free(Syclbin *s);

//
// formats/archive.c — static archives (ar, GNU long-name table)
//

typedef struct {
  char *name;          // malloc'd
  const uint8_t *data; // points into the archive bytes
  size_t size;
} ArchiveMember;

// DATA begins with an ar archive's magic ("!<arch>\n").
bool is_archive(const uint8_t *data, size_t size);
// Regular members only (symbol tables and the long-name table are skipped).
int archive_parse(const uint8_t *data, size_t size, ArchiveMember **members, size_t *count,
                  char **errmsg);
// A thin archive's (`ar rcsT`) member names, pushed to NAMES in order: the paths of the files
// holding them, relative to the archive's directory unless absolute. 0, or -1 with *errmsg.
int thin_archive_members(const uint8_t *data, size_t size, StringList *names, char **errmsg);

//
// formats/input.c — every device image found in the inputs
//

typedef struct {
  char *origin;          // for messages: "a.o", "libx.a(m.o)", "blob.bin[1]"
  uint16_t image_kind;   // IMG_BITCODE for bitcode found bare or in an ELF
  uint16_t offload_kind; // OFK_SYCL when found bare
  char *triple, *arch;   // canonical triple
  char *target;          // the device its triple as read names: "spirv64", "spir64_gen" (or NULL)
  OffloadString *keys;
  size_t num_keys;     // every string key the image came with
  bool keys_copied;    // the keys are the image's own copies, not pointers into input bytes
  const uint8_t *data; // the image bytes; they live as long as the input buffers
  size_t size;
  bool is_library; // --device-libs: supplies definitions, never emitted
  // What split/program.c reads of the image, when the link's split wrote it (else NULL):
  // serialized facts, living as long as the image's bytes.
  const uint8_t *facts;
  size_t facts_size;
  // What the link's resolution reads of the image (lto/symbols.c), when the link's split
  // wrote it with a cache (else NULL), living as long as the image's bytes.
  const uint8_t *symbols;
  size_t symbols_size;
  // Written by the link's split (split/stage.c): the canonical triple and data layout, and a
  // ThinLTO summary with the module hash. Prepare passes such an image on unchanged when it
  // has nothing to drop or mark (formats/prepare.c).
  bool link_ready;
  // Read whole and verified (LLVM's verifier) by an earlier stage of this link, or by the
  // link that wrote a cache entry for the same bytes: the facts stage need not verify again.
  bool verified;
} InputImage;

typedef struct {
  InputImage *items;
  size_t count, cap;
  Buffer *files; // the input files' bytes, kept until the link no longer needs them
  size_t num_files;
  // Set by a link before reading: a bitcode file named on the command line for another
  // target, and user images for two different SPIR-V targets (spir64_gen and spirv64), are
  // errors there; inspect lists what it finds and only notes what it skips.
  bool for_link;
  char *target, *target_origin; // for_link: the first user image's target, and where from
  // AOT with SPIR-V beside it (issue 33; intel's -fsycl-targets=spir64,intel_gpu_pvc gives
  // objects with images of both): user images of this target and of one other are read
  // without error, `mixed` set; input_set_keep_target then keeps one target's.
  const char *prefer_target; // "spirv64" or "spir64_gen", or NULL: two targets are an error
  bool mixed;
} InputSet;

// Adds the images of one file (any supported form). Errors are fatal.
void read_input_file(InputSet *set, const char *path, bool is_library);
// Files a relink takes from its record (tool/relink.c): those whose SKIP is set are not read;
// ADD puts the file's recorded images in the set (input_set_add_recorded) where the file's
// would be, and the set's file of that index is empty.
typedef struct {
  const bool *skip;
  void (*add)(InputSet *set, size_t file, void *ctx);
  void *ctx;
} InputReplay;
// The same for every file of PATHS, in order, those from FIRST_LIBRARY on as --device-libs;
// the files are read JOBS at a time (a relink reads a thousand unchanged files), their
// images found in order, so the first file in error is the one a serial read reports. KEYS
// (or NULL): for each path whose WANT is set, the content key (cache_content_key) of the
// bytes read. REPLAY (or NULL): the files taken from a relink record.
void read_input_files(InputSet *set, const StringList *paths, size_t first_library, int jobs,
                      const bool *want, char (*keys)[CACHE_KEY_SIZE], const InputReplay *replay);
// An image recorded by a relink (no bytes: data NULL), checked for the link's target as a
// read one is; IMAGE's strings are taken.
void input_set_add_recorded(InputSet *set, InputImage image);
// The same for a file's bytes, named ORIGIN in messages; the images point into DATA.
void read_input_bytes(InputSet *set, const char *origin, const uint8_t *data, size_t size,
                      bool is_library);
// Frees the first NUM_FILES files read, once the images are found (and split): every image
// keeps its own bytes and keys, the rest (host code, what a split replaced) goes.
void release_file_bytes(InputSet *set, size_t num_files);
// The first NUM_FILES files of SET by where their bytes begin (IN_MEMORY: only those read into
// memory, not mapped), to find which holds an image's bytes by a search, not a walk of every
// file (a relink's images are in few of them).
typedef struct {
  const uint8_t *data;
  size_t size, file;
} FileSpan;
typedef struct {
  FileSpan *spans; // free() it
  size_t count;
} FileSpans;
FileSpans file_spans(const InputSet *set, size_t num_files, bool in_memory);
// The file whose bytes hold the SIZE bytes at DATA, or SIZE_MAX.
size_t file_holding(const FileSpans *spans, const uint8_t *data, size_t size);
// Frees the bytes of every file and image once the modules are prepared (origins and keys
// stay): the thin link works on the prepared copies.
void release_input_bytes(InputSet *set);
// An image owns its origin, triple, arch and key array, and the keys' texts once
// keys_copied. derive: a copy of IN's own strings, no keys and keys_copied set (an image made
// from IN: the keys that split_image_keys makes are its own). free: what it owns, not its bytes.
InputImage input_image_derive(const InputImage *in);
void input_image_free(InputImage *in);
// Every image, the files' bytes and the set's own strings.
// Drops the user images that are not for TARGET ("spirv64", "spir64_gen"), with a note.
void input_set_keep_target(InputSet *set, const char *target);
void input_set_free(InputSet *set);
// Triples linked here: spirv64*, spir64* (canonicalized to SPIRV_TRIPLE).
bool is_spirv_triple(const char *triple);
const char *canonical_triple(const char *triple);
// Every .llvm.offloading section of an ELF object, in section-table order, through llvm-c's
// object API: an object made by `ld -r --unique=.llvm.offloading` (or llvm-objcopy
// --add-section) holds several, and clang-linker-wrapper reads them all.
// 0 with *sections (malloc'd, pointing into DATA; NULL when *count is 0) and *count; -1 with
// *errmsg if not an object, or a section is out of range or empty.
typedef struct {
  const uint8_t *data;
  size_t size;
} SectionBytes;
int elf_offloading_sections(const uint8_t *data, size_t size, SectionBytes **sections,
                            size_t *count, char **errmsg);
// An ELF file's header, either class and either byte order: where its section and program
// header tables are, as the header says (extended numbering is the caller's). 0 with *H; -1
// with *WHY (as "truncated header") when DATA has no such header.
typedef struct {
  bool is64, big_endian;
  uint64_t shoff, shentsize, shnum, shstrndx;
  uint64_t phoff, phentsize, phnum;
} ElfHeader;
int elf_read_header(const uint8_t *data, size_t size, ElfHeader *h, const char **why);
// Section I's header; the caller has checked that H's section table lies within DATA.
typedef struct {
  uint64_t name, type, offset, size, link;
} ElfSection;
ElfSection elf_read_section(const uint8_t *data, const ElfHeader *h, uint64_t i);
// The WIDTH-byte field at P, in H's byte order.
uint64_t elf_read_field(const uint8_t *p, int width, const ElfHeader *h);

// A set's dummy image: SPLIT_DUMMY_KEY "1" on the input, or SPLIT_DUMMY_METADATA in M.
bool is_dummy_image(const InputImage *input, LLVMModuleRef m);

//
// formats/linked.c — the images a linked executable or shared library registers
//

// One __sycl.tgt_device_image (v3) as the runtime would receive it.
typedef struct {
  uint8_t offload_kind, format; // format: the ImageKind (IMG_SPIRV), or 4: zstd-compressed
  char *target, *compile_options, *link_options;
  const uint8_t *image; // points into the file's bytes (compressed as stored)
  size_t image_size;
  Buffer decompressed;     // format 4: the image the runtime decompresses; else empty
  StringList entries;      // the offload entries' names: the image's kernels
  PropertySets properties; // empty when the wrapper registered none (clang's)
} LinkedImage;
// An ELF executable or shared library (ET_EXEC, ET_DYN), 64-bit little-endian.
bool is_linked_elf(const uint8_t *data, size_t size);
// The images of every __sycl.tgt_bin_desc (v1) in DATA's data sections, as our wrapper
// (wrap/wrap.c) and clang's write them (x86-64 and AArch64; another machine has none): 0 with
// *images (none: *count 0), or -1 with *errmsg. The images point into DATA.
int linked_images(const uint8_t *data, size_t size, LinkedImage **images, size_t *count,
                  char **errmsg);
void linked_images_free(LinkedImage *images, size_t count);

//
// formats/output.c — the linked images as OffloadBinary blobs
//

// One image to write: pointers into whoever holds the image (the hooks' results). Writing it
// frees its SPIR-V, the bulk of it.
typedef struct {
  Buffer *spirv;
  const StringList *symbols;        // kernel names
  char *const *properties;          // the "properties" key's JSON
  // A native image (ahead-of-time, issue 33): its kind (IMG_OBJECT), triple and arch; zero
  // and NULL for a SPIR-V image, which takes IMG_SPIRV, SPIRV_TRIPLE and the writer's arch.
  uint16_t kind;
  const char *triple, *arch;
} OutputImage;

// Opened before the hooks, which call output_ready as each image is done; output_commit
// writes what is left and renames the file into place (fatal on error). A failed link
// exits without committing, and the temporary is removed.
typedef struct OutputWriter {
  AtomicFile file;
  const char *arch;
  OutputImage *images;
  size_t count, next; // images [0, next) are written, their SPIR-V freed
  bool *ready;        // handed over (output_ready)
  bool streaming;     // a regular file: images go out as soon as their turn comes
  int jobs;           // threads that make the blobs of many images ready at once
  struct OutputThread *thread; // streaming, once an image is handed over: the writer's thread
} OutputWriter;
// IMAGES (COUNT of them) must live until output_commit.
void output_open(OutputWriter *w, const char *path, const char *arch, OutputImage *images,
                 size_t count, int jobs);
// Images IMAGES (N of them) are done: written by the writer's thread (a regular file), which
// takes over their SPIR-V; their other parts are read there until output_commit. Many at
// once (a relink's unchanged images) are one hand-over, their blobs made on -j threads. The
// caller's thread only.
void output_ready(OutputWriter *w, const size_t *images, size_t n);
void output_commit(OutputWriter *w);

#ifdef __cplusplus
}
#endif

#endif
