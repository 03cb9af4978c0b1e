// The device images a linked ELF executable or shared library registers with the SYCL runtime:
// the __sycl.tgt_bin_desc our wrapper (wrap/wrap.c) and clang's (LLVM's OffloadWrapper.cpp)
// emit, found in the file's data and read back with its images, kernels and property sets.
// It runs nothing and maps nothing: pointers are followed through the section table, with
// the dynamic RELATIVE relocations a position-independent file carries (x86-64, AArch64).
#include "formats/formats.h"

#include <stdlib.h>
#include <string.h>

#include <zstd.h>

// The descriptor and the image as both wrappers lay them out (x86-64): bin_desc {u16 version
// 1, u16 count, ptr images, ptr entries begin, ptr entries end}; device image v3 {u16
// version, u8 offload kind, u8 format, ptr target, compile options, link options, image
// begin, image end, entries begin, entries end, property sets begin, end}; __tgt_offload_entry
// {u64, u16, u16, u32, ptr addr, ptr name, u64 size, u64 data, ptr aux}; property set {ptr
// name, ptr begin, ptr end}; property {ptr name, ptr value, u32 type, u64 size}.
enum {
  DESC_SIZE = 32,
  IMAGE_SIZE = 80,
  ENTRY_SIZE = 56,
  ENTRY_NAME = 24,
  SET_SIZE = 24,
  PROPERTY_SIZE = 32,
  IMAGE_VERSION = 3,
  FORMAT_COMPRESSED = 4, // intel's SYCL_DEVICE_BINARY_TYPE_COMPRESSED_NONE (wrap.h's)
  ET_EXEC = 2,
  ET_DYN = 3,
  EM_X86_64 = 62,
  EM_AARCH64 = 183,
  SHT_RELA = 4,
  SHT_NOBITS = 8,
  SHF_ALLOC = 2,
  SHF_EXECINSTR = 4,
  R_X86_64_RELATIVE = 8,
  R_AARCH64_RELATIVE = 1027,
  MAX_STRING = 1 << 20,
};

typedef struct {
  uint64_t addr, offset, size;
  bool data; // allocated, has file bytes, not code: where a descriptor may be
} Section;

typedef struct {
  uint64_t where, addend;
} Relative;

typedef struct {
  const uint8_t *bytes;
  size_t size;
  Section *sections;
  size_t num_sections;
  Relative *relatives; // sorted by where
  size_t num_relatives;
  uint32_t relative_type; // the machine's R_*_RELATIVE
} Elf;

static uint64_t le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n; i-- > 0;)
    v = v << 8 | p[i];
  return v;
}

bool is_linked_elf(const uint8_t *data, size_t size) {
  return size >= 64 && !memcmp(data, "\177ELF", 4) && data[4] == 2 && data[5] == 1 &&
         (le(data + 0x10, 2) == ET_EXEC || le(data + 0x10, 2) == ET_DYN);
}

// The file offset of N bytes at virtual address ADDR, or NULL when they are not all in one
// section with file bytes.
static const uint8_t *at(const Elf *e, uint64_t addr, uint64_t n) {
  for (size_t i = 0; i < e->num_sections; i++) {
    const Section *s = &e->sections[i];
    if (addr >= s->addr && addr - s->addr <= s->size && n <= s->size - (addr - s->addr))
      return e->bytes + s->offset + (addr - s->addr);
  }
  return NULL;
}

static int compare_relatives(const void *a, const void *b) {
  uint64_t x = ((const Relative *)a)->where, y = ((const Relative *)b)->where;
  return x < y ? -1 : x > y;
}

// The pointer stored at ADDR once the loader relocated it: a RELATIVE relocation's addend
// (load address 0), else the bytes there. *ok false when ADDR is not in the file.
static uint64_t pointer_at(const Elf *e, uint64_t addr, bool *ok) {
  Relative key = {addr, 0};
  const Relative *r = e->num_relatives ? bsearch(&key, e->relatives, e->num_relatives,
                                                 sizeof key, compare_relatives)
                                        : NULL;
  if (r) return r->addend;
  const uint8_t *p = at(e, addr, 8);
  if (!p) {
    *ok = false;
    return 0;
  }
  return le(p, 8);
}

// The NUL-terminated string at ADDR (a copy), or NULL. ADDR 0 is "".
static char *string_at(const Elf *e, uint64_t addr) {
  if (!addr) return xstrdup("");
  const uint8_t *p = at(e, addr, 1);
  if (!p) return NULL;
  size_t left = (size_t)(e->bytes + e->size - p);
  const uint8_t *end = memchr(p, 0, left < MAX_STRING ? left : MAX_STRING);
  return end ? xstrndup((const char *)p, (size_t)(end - p)) : NULL;
}

static int read_sections(Elf *e, char **errmsg) {
  const uint8_t *d = e->bytes;
  uint64_t shoff = le(d + 0x28, 8), shentsize = le(d + 0x3A, 2), shnum = le(d + 0x3C, 2);
  if (shentsize != 64 || shoff > e->size || shnum > (e->size - shoff) / 64) {
    *errmsg = xstrdup("malformed ELF file: section header table out of range");
    return -1;
  }
  e->sections = xcalloc(shnum + 1, sizeof *e->sections);
  for (uint64_t i = 0; i < shnum; i++) {
    const uint8_t *sh = d + shoff + i * 64;
    uint64_t type = le(sh + 4, 4), flags = le(sh + 8, 8), addr = le(sh + 0x10, 8);
    uint64_t offset = le(sh + 0x18, 8), size = le(sh + 0x20, 8);
    if (type == SHT_NOBITS || !(flags & SHF_ALLOC)) continue;
    if (offset > e->size || size > e->size - offset) {
      *errmsg = format("malformed ELF file: section %llu out of range", (unsigned long long)i);
      return -1;
    }
    if (type == SHT_RELA) {
      for (uint64_t k = 0; k + 24 <= size; k += 24) {
        const uint8_t *r = d + offset + k;
        if ((le(r + 8, 8) & 0xffffffff) != e->relative_type) continue;
        e->relatives = xrealloc(e->relatives, (e->num_relatives + 1) * sizeof *e->relatives);
        e->relatives[e->num_relatives++] = (Relative){le(r, 8), le(r + 16, 8)};
      }
      continue;
    }
    e->sections[e->num_sections++] =
        (Section){.addr = addr, .offset = offset, .size = size, .data = !(flags & SHF_EXECINSTR)};
  }
  if (e->num_relatives)
    qsort(e->relatives, e->num_relatives, sizeof *e->relatives, compare_relatives);
  return 0;
}

static void free_image(LinkedImage *img) {
  free(img->target);
  free(img->compile_options);
  free(img->link_options);
  free(img->decompressed.data);
  strlist_free(&img->entries);
  propsets_free(&img->properties);
  *img = (LinkedImage){0};
}

static bool read_properties(const Elf *e, uint64_t begin, uint64_t end, PropertySets *out) {
  bool ok = true;
  if (!begin && !end) return true;
  if (end < begin || (end - begin) % SET_SIZE || !at(e, begin, end - begin)) return false;
  for (uint64_t s = begin; ok && s < end; s += SET_SIZE) {
    char *set = string_at(e, pointer_at(e, s, &ok));
    uint64_t pb = pointer_at(e, s + 8, &ok), pe = pointer_at(e, s + 16, &ok);
    if (!set || pe < pb || (pe - pb) % PROPERTY_SIZE || (pb && !at(e, pb, pe - pb))) {
      free(set);
      return false;
    }
    propsets_add_set(out, set);
    for (uint64_t p = pb; ok && p < pe; p += PROPERTY_SIZE) {
      char *name = string_at(e, pointer_at(e, p, &ok));
      uint64_t value = pointer_at(e, p + 8, &ok);
      const uint8_t *fields = at(e, p + 16, 16);
      if (!name || !fields) {
        free(name);
        ok = false;
        break;
      }
      uint32_t type = (uint32_t)le(fields, 4);
      uint64_t size = le(fields + 8, 8);
      const uint8_t *bytes = type == PROP_BYTES && size >= 8 ? at(e, value, size) : NULL;
      if (type == PROP_UINT32) {
        propsets_add_u32(out, set, name, (uint32_t)size);
      } else if (bytes) {
        uint64_t bits = le(bytes, 8);
        if (bits / 8 + (bits % 8 != 0) > size - 8) ok = false;
        else propsets_add_bits(out, set, name, bytes + 8, bits);
      } else {
        ok = false;
      }
      free(name);
    }
    free(set);
  }
  return ok;
}

// The image struct at ADDR, or false if what is there is not one.
static bool read_image(const Elf *e, uint64_t addr, LinkedImage *img) {
  const uint8_t *p = at(e, addr, IMAGE_SIZE);
  if (!p || le(p, 2) != IMAGE_VERSION) return false;
  bool ok = true;
  *img = (LinkedImage){.offload_kind = p[2], .format = p[3]};
  img->target = string_at(e, pointer_at(e, addr + 8, &ok));
  img->compile_options = string_at(e, pointer_at(e, addr + 16, &ok));
  img->link_options = string_at(e, pointer_at(e, addr + 24, &ok));
  uint64_t begin = pointer_at(e, addr + 32, &ok), end = pointer_at(e, addr + 40, &ok);
  uint64_t eb = pointer_at(e, addr + 48, &ok), ee = pointer_at(e, addr + 56, &ok);
  uint64_t pb = pointer_at(e, addr + 64, &ok), pe = pointer_at(e, addr + 72, &ok);
  if (!ok || !img->target || !img->compile_options || !img->link_options || end < begin ||
      !(img->image = at(e, begin, end - begin)) || ee < eb || (ee - eb) % ENTRY_SIZE ||
      (eb && !at(e, eb, ee - eb)))
    goto fail;
  img->image_size = (size_t)(end - begin);
  for (uint64_t en = eb; en < ee; en += ENTRY_SIZE) {
    char *name = string_at(e, pointer_at(e, en + ENTRY_NAME, &ok));
    if (!name) goto fail;
    strlist_push(&img->entries, name);
  }
  if (!read_properties(e, pb, pe, &img->properties)) goto fail;
  return true;
fail:
  free_image(img);
  return false;
}

// The descriptor at ADDR with its images, or false if what is there is not one.
static bool read_descriptor(const Elf *e, uint64_t addr, LinkedImage **images, size_t *count) {
  const uint8_t *p = at(e, addr, DESC_SIZE);
  if (!p || le(p, 2) != 1 || !le(p + 2, 2) || le(p + 4, 4)) return false;
  bool ok = true;
  size_t n = (size_t)le(p + 2, 2);
  uint64_t array = pointer_at(e, addr + 8, &ok);
  if (!ok || !at(e, array, (uint64_t)n * IMAGE_SIZE)) return false;
  LinkedImage *found = xcalloc(n, sizeof *found);
  for (size_t i = 0; i < n; i++)
    if (!read_image(e, array + i * IMAGE_SIZE, &found[i])) {
      linked_images_free(found, i);
      return false;
    }
  *images = xrealloc(*images, (*count + n) * sizeof **images);
  memcpy(*images + *count, found, n * sizeof *found);
  *count += n;
  free(found);
  return true;
}

// A compressed image (wrap --compress) as the runtime sees it after decompressing.
static int decompress(LinkedImage *img, char **errmsg) {
  unsigned long long n = ZSTD_getFrameContentSize(img->image, img->image_size);
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > SIZE_MAX / 2) {
    *errmsg = xstrdup("a compressed device image is not one zstd frame with its content size");
    return -1;
  }
  Buffer *out = &img->decompressed;
  out->data = xmalloc(n ? n : 1);
  size_t got = ZSTD_decompress(out->data, n, img->image, img->image_size);
  if (ZSTD_isError(got) || got != n) {
    *errmsg = format("a compressed device image does not decompress: %s",
                     ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
    return -1;
  }
  out->size = n;
  return 0;
}

int linked_images(const uint8_t *data, size_t size, LinkedImage **images, size_t *count,
                  char **errmsg) {
  *images = NULL;
  *count = 0;
  Elf e = {.bytes = data, .size = size};
  if (!is_linked_elf(data, size)) {
    *errmsg = xstrdup("not a 64-bit little-endian ELF executable or shared library");
    return -1;
  }
  // The layouts above are those of LP64 targets; the loader's relocations are the machine's.
  uint64_t machine = le(data + 0x12, 2);
  if (machine != EM_X86_64 && machine != EM_AARCH64) return 0; // none we know how to read
  e.relative_type = machine == EM_X86_64 ? R_X86_64_RELATIVE : R_AARCH64_RELATIVE;
  int rc = read_sections(&e, errmsg);
  // Every 8-byte aligned place in the data sections that holds a valid descriptor whose
  // images are all valid: nothing else passes all of those checks.
  for (size_t s = 0; !rc && s < e.num_sections; s++) {
    const Section *sec = &e.sections[s];
    if (!sec->data) continue;
    for (uint64_t a = (sec->addr + 7) & ~7ull; a + DESC_SIZE <= sec->addr + sec->size; a += 8) {
      const uint8_t *p = data + sec->offset + (a - sec->addr);
      if (p[0] != 1 || p[1] || (!p[2] && !p[3])) continue; // version 1, some images
      read_descriptor(&e, a, images, count);
    }
  }
  for (size_t i = 0; !rc && i < *count; i++)
    if ((*images)[i].format == FORMAT_COMPRESSED) rc = decompress(&(*images)[i], errmsg);
  free(e.sections);
  free(e.relatives);
  if (rc) {
    linked_images_free(*images, *count);
    *images = NULL;
    *count = 0;
  }
  return rc;
}

void linked_images_free(LinkedImage *images, size_t count) {
  for (size_t i = 0; i < count; i++)
    free_image(&images[i]);
  free(images);
}
