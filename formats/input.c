// Reads the input files and collects every SYCL SPIR-V device image in them: bare bitcode,
// OffloadBinary files, fat ELF objects and archives of these. It does not parse the images.
#include "formats/formats.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Object.h>

static const char offloading_section_name[] = ".llvm.offloading";

bool is_spirv_triple(const char *triple) {
  return !strncmp(triple, "spir64", 6) || !strncmp(triple, "spirv64", 7);
}

const char *canonical_triple(const char *triple) {
  return is_spirv_triple(triple) ? SPIRV_TRIPLE : triple;
}

static bool is_bitcode(const uint8_t *data, size_t size) {
  static const uint8_t raw[4] = {'B', 'C', 0xC0, 0xDE};
  static const uint8_t wrapper[4] = {0xDE, 0xC0, 0x17, 0x0B}; // 0x0B17C0DE, little-endian
  return size >= 4 && (!memcmp(data, raw, 4) || !memcmp(data, wrapper, 4));
}

static bool is_elf(const uint8_t *data, size_t size) {
  return size >= 4 && !memcmp(data, "\177ELF", 4);
}

const char *offload_kind_name(uint16_t kind) {
  return kind == OFK_OPENMP ? "openmp"
         : kind == OFK_CUDA ? "cuda"
         : kind == OFK_HIP  ? "hip"
         : kind == OFK_SYCL ? "sycl"
                            : "unknown";
}

//
// ELF objects
//

uint64_t elf_read_field(const uint8_t *p, int width, const ElfHeader *h) {
  uint64_t v = 0;
  for (int i = 0; i < width; i++)
    v |= (uint64_t)p[h->big_endian ? width - 1 - i : i] << (8 * i);
  return v;
}

int elf_read_header(const uint8_t *data, size_t size, ElfHeader *h, const char **why) {
  *h = (ElfHeader){.is64 = size > 5 && data[4] == 2, .big_endian = size > 5 && data[5] == 2};
  if (!is_elf(data, size)) {
    *why = "not an ELF file";
    return -1;
  }
  if (size < (h->is64 ? 64u : 52u)) {
    *why = "truncated header";
    return -1;
  }
  if ((data[4] != 1 && data[4] != 2) || (data[5] != 1 && data[5] != 2)) {
    *why = "unknown class or byte order";
    return -1;
  }
  int word = h->is64 ? 8 : 4;
  h->phoff = elf_read_field(data + (h->is64 ? 0x20 : 0x1C), word, h);
  h->shoff = elf_read_field(data + (h->is64 ? 0x28 : 0x20), word, h);
  h->phentsize = elf_read_field(data + (h->is64 ? 0x36 : 0x2A), 2, h);
  h->phnum = elf_read_field(data + (h->is64 ? 0x38 : 0x2C), 2, h);
  h->shentsize = elf_read_field(data + (h->is64 ? 0x3A : 0x2E), 2, h);
  h->shnum = elf_read_field(data + (h->is64 ? 0x3C : 0x30), 2, h);
  h->shstrndx = elf_read_field(data + (h->is64 ? 0x3E : 0x32), 2, h);
  return 0;
}

ElfSection elf_read_section(const uint8_t *data, const ElfHeader *h, uint64_t i) {
  const uint8_t *sh = data + h->shoff + i * h->shentsize;
  int word = h->is64 ? 8 : 4;
  return (ElfSection){
      .name = elf_read_field(sh, 4, h),
      .type = elf_read_field(sh + 4, 4, h),
      .offset = elf_read_field(sh + (h->is64 ? 24 : 16), word, h),
      .size = elf_read_field(sh + (h->is64 ? 32 : 20), word, h),
      .link = elf_read_field(sh + (h->is64 ? 40 : 24), 4, h),
  };
}

enum { SECTION_STRTAB = 3, SECTION_NOBITS = 8 }; // sh_type values

// llvm-c's section accessors end the process on a malformed section (report_fatal_error),
// so the section table is checked here first: a bad input must be an error, not an abort.
static int check_elf_sections(const uint8_t *data, size_t size, char **errmsg) {
  ElfHeader h;
  const char *why;
  *errmsg = NULL;
  if (elf_read_header(data, size, &h, &why)) {
    *errmsg = format("malformed ELF object: %s", why);
    return -1;
  }
  size_t entry_size = h.is64 ? 64 : 40;
  if (h.shoff == 0) return 0; // no section table: LLVM finds no sections
  if (h.shentsize != entry_size) {
    *errmsg =
        format("malformed ELF object: section header size %llu", (unsigned long long)h.shentsize);
    return -1;
  }
  // Extended numbering: a count of 0 or a name-table index of SHN_XINDEX (0xffff) means
  // the real one is section 0's sh_size or sh_link (LLVM reads them there too).
  if ((h.shnum == 0 || h.shstrndx == 0xffff) && h.shoff <= size && entry_size <= size - h.shoff) {
    ElfSection first = elf_read_section(data, &h, 0);
    if (h.shnum == 0) h.shnum = first.size;
    if (h.shstrndx == 0xffff) h.shstrndx = first.link;
  }
  if (h.shnum == 0) return 0;
  if (h.shoff > size || h.shnum > (size - h.shoff) / entry_size) {
    *errmsg = format("malformed ELF object: section header table out of range");
    return -1;
  }
  if (h.shstrndx == 0 || h.shstrndx >= h.shnum) {
    *errmsg = format("malformed ELF object: section name table index %llu out of range",
                     (unsigned long long)h.shstrndx);
    return -1;
  }

  ElfSection *sections = xcalloc(h.shnum, sizeof *sections);
  for (uint64_t i = 0; i < h.shnum; i++)
    sections[i] = elf_read_section(data, &h, i);
  const ElfSection *names = &sections[h.shstrndx];
  for (uint64_t i = 0; i < h.shnum && !*errmsg; i++) {
    const ElfSection *s = &sections[i];
    // LLVM reads the contents of any section but a NOBITS one, an SHT_NULL one too.
    bool has_contents = s->type != SECTION_NOBITS;
    if (has_contents && (s->offset > size || s->size > size - s->offset))
      *errmsg = format("malformed ELF object: section %llu out of range", (unsigned long long)i);
  }
  if (!*errmsg && (names->type != SECTION_STRTAB || names->size == 0 ||
                   data[names->offset + names->size - 1] != 0))
    *errmsg = format("malformed ELF object: bad section name table");
  for (uint64_t i = 0; i < h.shnum && !*errmsg; i++)
    if (sections[i].name >= names->size)
      *errmsg =
          format("malformed ELF object: section %llu name out of range", (unsigned long long)i);
  free(sections);
  return *errmsg ? -1 : 0;
}

int elf_offloading_sections(const uint8_t *data, size_t size, SectionBytes **sections,
                            size_t *count, char **errmsg) {
  *sections = NULL;
  *count = 0;
  if (!is_elf(data, size)) {
    *errmsg = format("not an ELF object");
    return -1;
  }
  if (check_elf_sections(data, size, errmsg)) return -1;

  LLVMMemoryBufferRef buffer =
      LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size, "", false);
  char *message = NULL;
  LLVMBinaryRef binary = LLVMCreateBinary(buffer, NULL, &message);
  if (!binary) {
    *errmsg = format("invalid object file: %s", message ? message : "unknown error");
    LLVMDisposeMessage(message);
    LLVMDisposeMemoryBuffer(buffer);
    return -1;
  }
  LLVMBinaryType type = LLVMBinaryGetType(binary);
  int result = 0;
  if (type != LLVMBinaryTypeELF32L && type != LLVMBinaryTypeELF32B &&
      type != LLVMBinaryTypeELF64L && type != LLVMBinaryTypeELF64B) {
    *errmsg = format("not an ELF object");
    result = -1;
    goto done;
  }
  LLVMSectionIteratorRef it = LLVMObjectFileCopySectionIterator(binary);
  size_t cap = 0;
  for (; it && !LLVMObjectFileIsSectionIteratorAtEnd(binary, it) && !result;
       LLVMMoveToNextSection(it)) {
    const char *name = LLVMGetSectionName(it); // NULL for an empty name
    if (!name || strcmp(name, offloading_section_name)) continue;
    const uint8_t *contents = (const uint8_t *)LLVMGetSectionContents(it);
    uint64_t length = LLVMGetSectionSize(it);
    // The buffer was not copied: the contents must lie inside the caller's bytes.
    if (!contents || contents < data || contents > data + size ||
        length > (uint64_t)(data + size - contents)) {
      *errmsg = format("section %s out of range", offloading_section_name);
      result = -1;
    } else if (!length) {
      *errmsg = format("section %s is empty", offloading_section_name);
      result = -1;
    } else {
      if (*count == cap) {
        cap = cap ? cap * 2 : 2;
        *sections = xrealloc(*sections, cap * sizeof **sections);
      }
      (*sections)[(*count)++] = (SectionBytes){contents, (size_t)length};
    }
  }
  if (it) LLVMDisposeSectionIterator(it);
  if (result) {
    free(*sections);
    *sections = NULL;
    *count = 0;
  }
done:
  LLVMDisposeBinary(binary);
  LLVMDisposeMemoryBuffer(buffer);
  return result;
}

//
// Bitcode
//

// A little-endian bit stream, as LLVM's bitstream format reads it.
typedef struct {
  const uint8_t *data;
  uint64_t size_bits, at;
} BitReader;

static bool read_bits(BitReader *r, unsigned width, uint64_t *value) {
  if (r->size_bits - r->at < width) return false;
  *value = 0;
  for (unsigned i = 0; i < width; i++, r->at++)
    *value |= (uint64_t)(r->data[r->at / 8] >> (r->at % 8) & 1) << i;
  return true;
}

static bool read_vbr(BitReader *r, unsigned width, uint64_t *value) {
  uint64_t chunk;
  *value = 0;
  for (unsigned shift = 0; shift < 64; shift += width - 1) {
    if (!read_bits(r, width, &chunk)) return false;
    *value |= (chunk & ((1u << (width - 1)) - 1)) << shift;
    if (!(chunk >> (width - 1))) return true;
  }
  return false;
}

// LLVM reports a truncated module as e.g. "can't skip to bit N from M"; the top-level blocks
// carry their lengths, so a cut-off file is recognized here and said to be one.
static int check_bitcode_length(const uint8_t *data, size_t size, char **errmsg) {
  if (data[0] == 0xDE) { // the wrapper: magic, version, offset, size, cputype
    if (size < 20) {
      *errmsg = format("truncated bitcode wrapper header");
      return -1;
    }
    uint64_t offset = data[8] | data[9] << 8 | data[10] << 16 | (uint64_t)data[11] << 24;
    uint64_t length = data[12] | data[13] << 8 | data[14] << 16 | (uint64_t)data[15] << 24;
    if (offset > size || length > size - offset) {
      *errmsg = format("truncated bitcode: the wrapper says %llu bytes at offset %llu, the file "
                       "has %zu",
                       (unsigned long long)length, (unsigned long long)offset, size);
      return -1;
    }
    if (length < 4 || memcmp(data + offset, "BC\xC0\xDE", 4)) return 0; // LLVM will say
    data += offset;
    size = length;
  }
  if (size % 4) {
    *errmsg = format("truncated bitcode: size %zu is not a multiple of 4", size);
    return -1;
  }
  enum { ENTER_SUBBLOCK = 1 };
  BitReader r = {.data = data, .size_bits = (uint64_t)size * 8, .at = 32};
  if (r.at >= r.size_bits) {
    *errmsg = format("truncated bitcode: nothing after the magic number");
    return -1;
  }
  while (r.at < r.size_bits) {
    uint64_t block_at = r.at / 8, abbrev, block_id, abbrev_width, words;
    if (!read_bits(&r, 2, &abbrev) || abbrev != ENTER_SUBBLOCK) return 0; // LLVM will say
    bool header_read = read_vbr(&r, 8, &block_id) && read_vbr(&r, 4, &abbrev_width);
    r.at = (r.at + 31) / 32 * 32;
    if (!header_read || r.at > r.size_bits || !read_bits(&r, 32, &words)) {
      *errmsg = format("truncated bitcode: the block at byte %llu has no complete header",
                       (unsigned long long)block_at);
      return -1;
    }
    if (words > (r.size_bits - r.at) / 32) {
      *errmsg = format("truncated bitcode: block %llu at byte %llu needs %llu bytes, %llu are "
                       "left",
                       (unsigned long long)block_id, (unsigned long long)block_at,
                       (unsigned long long)words * 4, (unsigned long long)(r.size_bits - r.at) / 8);
      return -1;
    }
    r.at += words * 32;
  }
  return 0;
}

static void record_diagnostic(LLVMDiagnosticInfoRef info, void *context) {
  char **message = context;
  if (*message || LLVMGetDiagInfoSeverity(info) != LLVMDSError) return;
  char *description = LLVMGetDiagInfoDescription(info);
  *message = xstrdup(description);
  LLVMDisposeMessage(description);
}

// The target triple of a bitcode module, read lazily (function bodies are not loaded).
// 0 with *triple malloc'd, or -1 with *errmsg.
static int bitcode_triple(const uint8_t *data, size_t size, char **triple, char **errmsg) {
  if (check_bitcode_length(data, size, errmsg)) return -1;
  LLVMContextRef context = LLVMContextCreate();
  char *message = NULL;
  // Without a handler LLVM prints the error and exits; we want to name the file.
  LLVMContextSetDiagnosticHandler(context, record_diagnostic, &message);
  LLVMMemoryBufferRef buffer =
      LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size, "", false);
  LLVMModuleRef module = NULL;
  int result = 0;
  if (LLVMGetBitcodeModuleInContext2(context, buffer, &module)) {
    // On failure the buffer was not taken over by a module.
    LLVMDisposeMemoryBuffer(buffer);
    *errmsg = format("invalid bitcode: %s", message ? message : "unknown error");
    result = -1;
  } else {
    *triple = xstrdup(LLVMGetTarget(module));
    LLVMDisposeModule(module); // also disposes the buffer it owns
  }
  free(message);
  LLVMContextDispose(context);
  return result;
}

//
// Collecting images
//

// The device a SPIR-V triple compiles for: its architecture, where spir64 and spirv64 (with
// or without a SPIR-V version) are the one generic target, and spir64_gen, spir64_x86_64 or
// spir64_fpga (ahead-of-time targets) are others. Malloc'd.
static char *spirv_target(const char *triple) {
  size_t n = strcspn(triple, "-");
  bool generic = (n == 6 && !strncmp(triple, "spir64", 6)) ||
                 (n >= 7 && !strncmp(triple, "spirv64", 7) && (n == 7 || triple[7] == 'v'));
  return generic ? xstrdup("spirv64") : xstrndup(triple, n);
}

// A link's user images must all be for one target: device code for two devices cannot be
// linked into one image. Device libraries are generic code linked into any target.
// TARGET (malloc'd) is taken: spirv_target(TRIPLE), or a relink record's.
static void check_target_of(InputSet *set, const char *origin, const char *triple, char *target,
                            bool is_library) {
  if (!set->for_link || is_library) {
    free(target);
    return;
  }
  if (!set->target) {
    set->target = target;
    set->target_origin = xstrdup(origin);
    return;
  }
  if (strcmp(target, set->target)) {
    bool preferred = set->prefer_target && (!strcmp(target, set->prefer_target) ||
                                            !strcmp(set->target, set->prefer_target));
    if (!preferred || (set->mixed && strcmp(target, "spirv64") && strcmp(target, "spir64_gen")))
      fatal(origin, "device code for '%s' cannot be linked with device code for '%s' (%s)",
            triple, set->target, set->target_origin);
    set->mixed = true;
  }
  free(target);
}

static void check_target(InputSet *set, const char *origin, const char *triple, bool is_library) {
  check_target_of(set, origin, triple, spirv_target(triple), is_library);
}

void input_set_keep_target(InputSet *set, const char *target) {
  size_t kept = 0;
  for (size_t i = 0; i < set->count; i++) {
    InputImage *image = &set->items[i];
    bool keep = image->is_library || !image->target || !strcmp(image->target, target);
    if (keep) {
      set->items[kept++] = *image;
      continue;
    }
    note("%s: device code for another target than '%s'; not in this link", image->origin, target);
    input_image_free(image);
  }
  set->count = kept;
  free(set->target);
  set->target = xstrdup(target);
}

static void add_image(InputSet *set, InputImage image) {
  if (set->count == set->cap) {
    set->cap = set->cap ? set->cap * 2 : 16;
    set->items = xrealloc(set->items, set->cap * sizeof *set->items);
  }
  set->items[set->count++] = image;
}

void input_set_add_recorded(InputSet *set, InputImage image) {
  check_target_of(set, image.origin, image.triple, xstrdup(image.target), image.is_library);
  add_image(set, image);
}

// Keeps the SYCL SPIR-V entries; the others are skipped with a note. Takes the entries.
static void add_offload_entries(InputSet *set, const char *origin, OffloadEntry *entries,
                                size_t count, bool is_library) {
  for (size_t i = 0; i < count; i++) {
    OffloadEntry *e = &entries[i];
    char *name = count > 1 ? format("%s[%zu]", origin, i) : xstrdup(origin);
    const char *triple = offload_entry_get(e, "triple");
    const char *arch = offload_entry_get(e, "arch");
    if (e->offload_kind != OFK_SYCL) {
      note("%s: skipping %s image of offload kind %s (%u): only SYCL images are linked", name,
           image_kind_name(e->image_kind), offload_kind_name(e->offload_kind), e->offload_kind);
    } else if (!triple || !*triple) {
      // A SYCL image that says no target may be the only copy of its kernels: a link that
      // went on without it would drop them silently.
      if (set->for_link)
        fatal(name, "%s image without a triple: the device it is for is unknown",
              image_kind_name(e->image_kind));
      note("%s: skipping %s image without a triple", name, image_kind_name(e->image_kind));
    } else if (e->image_kind > IMG_SPIRV && set->for_link) {
      fatal(name, "image of unknown kind %u (for '%s'): only LLVM bitcode is linked",
            e->image_kind, triple);
    } else if (!is_spirv_triple(triple)) {
      note("%s: skipping %s image for '%s': only spir64/spirv64 images are linked", name,
           image_kind_name(e->image_kind), triple);
    } else {
      check_target(set, name, triple, is_library);
      add_image(set, (InputImage){
                         .origin = name,
                         .image_kind = e->image_kind,
                         .offload_kind = e->offload_kind,
                         .triple = xstrdup(canonical_triple(triple)),
                         .target = spirv_target(triple),
                         .arch = xstrdup(arch ? arch : ""),
                         .keys = e->strings,
                         .num_keys = e->num_strings,
                         .data = e->image,
                         .size = e->image_size,
                         .is_library = is_library,
                     });
      continue;
    }
    free(name);
    free(e->strings);
  }
  free(entries);
}

static void read_offload_binaries(InputSet *set, const char *origin, const char *where,
                                  const uint8_t *data, size_t size, bool is_library) {
  OffloadEntry *entries;
  size_t count;
  char *errmsg;
  if (offload_binary_parse(data, size, &entries, &count, &errmsg))
    fatal(origin, "%s%s", where, errmsg);
  add_offload_entries(set, origin, entries, count, is_library);
}

static void read_bare_bitcode(InputSet *set, const char *origin, const uint8_t *data, size_t size,
                              bool is_library, bool is_member) {
  char *triple, *errmsg;
  reading_input_begin(origin, "bitcode"); // LLVM's reader crashes on some malformed modules
  int unreadable = bitcode_triple(data, size, &triple, &errmsg);
  reading_input_end();
  if (unreadable) fatal(origin, "%s", errmsg);
  // A file given to a link is meant to be linked; an archive may mix in host bitcode.
  if (!is_spirv_triple(triple) && set->for_link && !is_member) {
    if (*triple)
      fatal(origin, "bitcode for '%s': only spir64/spirv64 device code is linked", triple);
    fatal(origin, "bitcode without a target triple: only spir64/spirv64 device code is linked");
  }
  if (!is_spirv_triple(triple)) {
    if (*triple)
      note("%s: skipping bitcode for '%s': only spir64/spirv64 modules are linked", origin, triple);
    else
      note("%s: skipping bitcode without a target triple: only spir64/spirv64 modules are linked",
           origin);
    free(triple);
    return;
  }
  check_target(set, origin, triple, is_library);
  add_image(set, (InputImage){
                     .origin = xstrdup(origin),
                     .image_kind = IMG_BITCODE,
                     .offload_kind = OFK_SYCL,
                     .triple = xstrdup(canonical_triple(triple)),
                     .target = spirv_target(triple),
                     .arch = xstrdup(""),
                     .data = data,
                     .size = size,
                     .is_library = is_library,
                 });
  free(triple);
}

static void read_contents(InputSet *set, const char *origin, const uint8_t *data, size_t size,
                          bool is_library, int depth);

// Archives inside archives are read (a build may pack libraries into one), this deep at
// most: each level is a frame of this recursion and a longer member name, and 50,000 of
// them overflowed the stack.
enum { MAX_ARCHIVE_DEPTH = 16 };

// DEPTH: how many archives ORIGIN is inside of.
static void read_archive(InputSet *set, const char *origin, const uint8_t *data, size_t size,
                         bool is_library, int depth) {
  if (depth >= MAX_ARCHIVE_DEPTH)
    fatal(origin, "an archive inside %d archives: nesting deeper than %d is not read", depth,
          MAX_ARCHIVE_DEPTH);
  ArchiveMember *members;
  size_t count;
  char *errmsg;
  if (archive_parse(data, size, &members, &count, &errmsg)) fatal(origin, "%s", errmsg);
  for (size_t i = 0; i < count; i++) {
    char *member_origin = format("%s(%s)", origin, members[i].name);
    read_contents(set, member_origin, members[i].data, members[i].size, is_library, depth + 1);
    free(member_origin);
    free(members[i].name);
  }
  free(members);
}

// Every .llvm.offloading section's images, numbered across sections when there are several.
static void read_object(InputSet *set, const char *origin, const uint8_t *data, size_t size,
                        bool is_library) {
  SectionBytes *sections;
  size_t count;
  char *errmsg;
  reading_input_begin(origin, "object");
  int unreadable = elf_offloading_sections(data, size, &sections, &count, &errmsg);
  reading_input_end();
  if (unreadable) fatal(origin, "%s", errmsg);
  if (!count) {
    note("%s: no %s section: no device code", origin, offloading_section_name);
    return;
  }
  OffloadEntry *all = NULL;
  size_t total = 0;
  for (size_t s = 0; s < count; s++) {
    OffloadEntry *entries;
    size_t n;
    if (offload_binary_parse(sections[s].data, sections[s].size, &entries, &n, &errmsg)) {
      if (count > 1)
        fatal(origin, "%s (section %zu of %zu): %s", offloading_section_name, s + 1, count,
              errmsg);
      fatal(origin, "%s: %s", offloading_section_name, errmsg);
    }
    all = xrealloc(all, (total + n ? total + n : 1) * sizeof *all);
    memcpy(all + total, entries, n * sizeof *entries);
    total += n;
    free(entries);
  }
  free(sections);
  add_offload_entries(set, origin, all, total, is_library);
}

// Archive members that are none of the forms (host data, text) are skipped, not errors.
// DEPTH: how many archives ORIGIN is a member of (0: a file given to the command).
static void read_contents(InputSet *set, const char *origin, const uint8_t *data, size_t size,
                          bool is_library, int depth) {
  bool is_member = depth > 0;
  if (is_archive(data, size))
    read_archive(set, origin, data, size, is_library, depth);
  else if (is_syclbin(data, size))
    fatal(origin, "a SYCLBIN file: %s", SYCLBIN_LINK_REFUSED);
  else if (is_offload_binary(data, size))
    read_offload_binaries(set, origin, "", data, size, is_library);
  else if (is_bitcode(data, size))
    read_bare_bitcode(set, origin, data, size, is_library, is_member);
  else if (is_elf(data, size))
    read_object(set, origin, data, size, is_library);
  else if (is_member)
    note("%s: not bitcode, an ELF object or an OffloadBinary: skipped", origin);
  else if (!size && is_library) // as an empty archive: it defines nothing (intel's wrapper
    note("%s: an empty library: nothing in it to link", origin); // takes one too)
  else if (!size)
    fatal(origin, "empty file");
  else
    fatal(origin, "not a bitcode file, ELF object, archive or OffloadBinary");
}

void read_input_bytes(InputSet *set, const char *origin, const uint8_t *data, size_t size,
                      bool is_library) {
  read_contents(set, origin, data, size, is_library, 0);
}

// FILE's bytes (read from PATH, or RC < 0) join the set with their images.
static void add_file(InputSet *set, const char *path, Buffer file, int rc, bool is_library) {
  if (rc < 0) fatal(path, "%s", read_error_text(rc));
  // The images point into these bytes, so they stay until the set is done with.
  set->files = xrealloc(set->files, (set->num_files + 1) * sizeof *set->files);
  set->files[set->num_files++] = file;
  read_contents(set, path, file.data, file.size, is_library, 0);
}

void read_input_file(InputSet *set, const char *path, bool is_library) {
  Buffer file = {0};
  int rc = read_file(path, &file);
  add_file(set, path, file, rc, is_library);
}

typedef struct {
  const StringList *paths;
  Buffer *files;
  int *rc;
  const bool *want;
  char (*keys)[CACHE_KEY_SIZE];
  const bool *skip;
} ReadJob;

// Runs on a worker thread: reads file I into files[i] (and its key into keys[i]) only.
static void read_one(void *arg, size_t i) {
  ReadJob *job = arg;
  if (job->skip && job->skip[i]) return;
  job->rc[i] = read_file(job->paths->items[i], &job->files[i]);
  if (job->rc[i] >= 0 && job->keys && job->want[i])
    cache_content_key(job->files[i].data, job->files[i].size, job->keys[i]);
}

void read_input_files(InputSet *set, const StringList *paths, size_t first_library, int jobs,
                      const bool *want, char (*keys)[CACHE_KEY_SIZE], const InputReplay *replay) {
  size_t n = paths->count ? paths->count : 1;
  ReadJob job = {paths, xcalloc(n, sizeof(Buffer)), xcalloc(n, sizeof(int)), want, keys,
                 replay ? replay->skip : NULL};
  parallel_for(paths->count, jobs, read_one, &job);
  // In order, as one file after the other: the first file in error is the one reported.
  for (size_t i = 0; i < paths->count; i++) {
    if (job.skip && job.skip[i]) { // an empty buffer keeps the files in the order of PATHS
      set->files = xrealloc(set->files, (set->num_files + 1) * sizeof *set->files);
      set->files[set->num_files++] = (Buffer){0};
      replay->add(set, i, replay->ctx);
      continue;
    }
    if (job.rc[i] < 0) { // the files after it are not the set's: freed before the error
      for (size_t k = i + 1; k < paths->count; k++)
        free(job.files[k].data);
    }
    add_file(set, paths->items[i], job.files[i], job.rc[i], i >= first_library);
  }
  free(job.files);
  free(job.rc);
}

// An image's string keys point into its file's bytes (or its input's): they are copied, once,
// before those go.
static void copy_keys(InputImage *in) {
  if (in->keys_copied) return;
  in->keys_copied = true;
  OffloadString *keys = xcalloc(in->num_keys ? in->num_keys : 1, sizeof(OffloadString));
  for (size_t k = 0; k < in->num_keys; k++)
    keys[k] = (OffloadString){xstrdup(in->keys[k].key), xstrdup(in->keys[k].value)};
  free(in->keys);
  in->keys = keys;
}

InputImage input_image_derive(const InputImage *in) {
  InputImage out = *in;
  out.origin = xstrdup(in->origin);
  out.triple = xstrdup(in->triple);
  out.arch = xstrdup(in->arch);
  out.target = in->target ? xstrdup(in->target) : NULL;
  out.keys = NULL;
  out.num_keys = 0;
  out.keys_copied = true;
  out.facts = NULL; // the derived image's bytes are other bytes
  out.facts_size = 0;
  out.symbols = NULL;
  out.symbols_size = 0;
  return out;
}

void input_image_free(InputImage *in) {
  free(in->origin);
  free(in->triple);
  free(in->arch);
  free(in->target);
  if (in->keys_copied)
    offload_strings_free(in->keys, in->num_keys);
  else
    free(in->keys);
  *in = (InputImage){0};
}

void input_set_free(InputSet *set) {
  for (size_t i = 0; i < set->count; i++)
    input_image_free(&set->items[i]);
  free(set->items);
  for (size_t i = 0; i < set->num_files; i++)
    free(set->files[i].data);
  free(set->files);
  free(set->target);
  free(set->target_origin);
  *set = (InputSet){0};
}

static int span_order(const void *a, const void *b) {
  const FileSpan *x = a, *y = b;
  return x->data < y->data ? -1 : x->data > y->data;
}

FileSpans file_spans(const InputSet *set, size_t num_files, bool in_memory) {
  FileSpans s = {xcalloc(num_files + 1, sizeof(FileSpan)), 0};
  for (size_t f = 0; f < num_files; f++) {
    const Buffer *b = &set->files[f];
    if (b->data && b->size && !(in_memory && b->mapped))
      s.spans[s.count++] = (FileSpan){b->data, b->size, f};
  }
  qsort(s.spans, s.count, sizeof(FileSpan), span_order);
  return s;
}

size_t file_holding(const FileSpans *s, const uint8_t *data, size_t size) {
  size_t lo = 0, hi = s->count; // the first span beginning after DATA
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->spans[mid].data <= data)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (!lo || !data) return SIZE_MAX;
  const FileSpan *span = &s->spans[lo - 1];
  return data + size <= span->data + span->size ? span->file : SIZE_MAX;
}

void release_file_bytes(InputSet *set, size_t num_files) {
  size_t kept = set->num_files - num_files;
  Buffer *files = xcalloc(kept + set->count + 1, sizeof(Buffer));
  memcpy(files, set->files + num_files, kept * sizeof(Buffer));
  FileSpans spans = file_spans(set, num_files, false);
  for (size_t i = 0; i < set->count; i++) {
    InputImage *in = &set->items[i];
    copy_keys(in);
    size_t f = file_holding(&spans, in->data, in->size);
    if (f == SIZE_MAX) continue; // bytes of its own already (a split's output)
    Buffer *file = &set->files[f];
    if (in->data == file->data && in->size == file->size) {
      files[kept++] = *file; // a whole-file image (bare bitcode) keeps the file's buffer
      *file = (Buffer){0};
      continue;
    }
    Buffer copy = {.data = xmalloc(in->size ? in->size : 1), .size = in->size};
    memcpy(copy.data, in->data, in->size);
    in->data = copy.data;
    files[kept++] = copy;
  }
  free(spans.spans);
  for (size_t f = 0; f < num_files; f++)
    free(set->files[f].data);
  free(set->files);
  set->files = files;
  set->num_files = kept;
}

void release_input_bytes(InputSet *set) {
  for (size_t i = 0; i < set->count; i++)
    copy_keys(&set->items[i]);
  for (size_t i = 0; i < set->num_files; i++) {
    free(set->files[i].data);
    set->files[i] = (Buffer){0};
  }
  for (size_t i = 0; i < set->count; i++) {
    set->items[i].data = NULL;
    set->items[i].size = 0;
  }
}

bool is_dummy_image(const InputImage *input, LLVMModuleRef m) {
  for (size_t i = 0; input && i < input->num_keys; i++)
    if (!strcmp(input->keys[i].key, SPLIT_DUMMY_KEY) && !strcmp(input->keys[i].value, "1"))
      return true;
  return m && LLVMGetNamedMetadata(m, SPLIT_DUMMY_METADATA, strlen(SPLIT_DUMMY_METADATA));
}
