#!/usr/bin/env python3
# Writes one damaged input for the bad-input catalogue: `bad.py CASE OUT [INPUT...]`.
# OffloadBinary cases take a one-blob file (llvm-offload-binary), ELF cases a fat object
# (an ELF64 object with a .llvm.offloading section), archive cases the member files.
import struct
import sys

HUGE = 1 << 60  # a size no file has

#
# OffloadBinary v1: header {magic, u32 version, u64 size, u64 entry_offset, u64 entry_size},
# entry {u16 kind, u16 offload kind, u32 flags, u64 string_offset, u64 num_strings,
# u64 image_offset, u64 image_size}, string entries {u64 key, u64 value}.
#
HEADER = {"version": (4, "<I"), "size": (8, "<Q"), "entry_offset": (16, "<Q"),
          "entry_size": (24, "<Q")}
ENTRY = {"string_offset": (8, "<Q"), "num_strings": (16, "<Q"), "image_offset": (24, "<Q"),
         "image_size": (32, "<Q")}


def get(b, at, fmt):
    return struct.unpack_from(fmt, b, at)[0]


def put(b, at, fmt, value):
    struct.pack_into(fmt, b, at, value)


def header(b, field, value):
    put(b, HEADER[field][0], HEADER[field][1], value)


def entry(b, field, value):
    at = get(b, 16, "<Q")
    put(b, at + ENTRY[field][0], ENTRY[field][1], value)


def entry_field(b, field):
    return get(b, get(b, 16, "<Q") + ENTRY[field][0], ENTRY[field][1])


def unterminated(b):
    # The last byte of the blob becomes 'x' and the first string's value points at it.
    size = get(b, 8, "<Q")
    b[size - 1] = ord("x")
    put(b, entry_field(b, "string_offset") + 8, "<Q", size - 1)


def second_blob(b, damage):
    second = bytearray(b)
    damage(second)
    b.extend(second)


OFFLOAD = {
    # A first blob with another magic number is no OffloadBinary at all; a second one is damaged.
    "ob-second-magic": lambda b: second_blob(b, lambda s: s.__setitem__(0, 0x11)),
    "ob-second-truncated": lambda b: b.extend(b[:20]),
    "ob-version": lambda b: header(b, "version", 2),
    "ob-size-past-end": lambda b: header(b, "size", len(b) + 8),
    "ob-size-huge": lambda b: header(b, "size", HUGE),
    "ob-size-small": lambda b: header(b, "size", 40),
    "ob-entry-offset-past-end": lambda b: header(b, "entry_offset", len(b)),
    "ob-entry-offset-huge": lambda b: header(b, "entry_offset", HUGE),
    "ob-entry-size-huge": lambda b: header(b, "entry_size", HUGE),
    "ob-entry-overlap": lambda b: header(b, "entry_offset", 8),
    "ob-entry-unaligned": lambda b: b.__setitem__(slice(36, 76), b[32:72]) or
                                    header(b, "entry_offset", 36),
    "ob-strings-past-end": lambda b: entry(b, "string_offset", len(b)),
    "ob-strings-huge": lambda b: entry(b, "string_offset", HUGE),
    "ob-num-strings-huge": lambda b: entry(b, "num_strings", HUGE),
    "ob-strings-overlap": lambda b: entry(b, "string_offset", 40),
    "ob-strings-unaligned": lambda b: entry(b, "string_offset", 76),
    "ob-key-past-end": lambda b: put(b, entry_field(b, "string_offset"), "<Q", len(b)),
    "ob-value-huge": lambda b: put(b, entry_field(b, "string_offset") + 8, "<Q", HUGE),
    "ob-unterminated": unterminated,
    "ob-image-past-end": lambda b: entry(b, "image_offset", len(b) + 8),
    "ob-image-huge": lambda b: entry(b, "image_size", HUGE),
    "ob-image-overlap": lambda b: entry(b, "image_offset", 0),
    "ob-image-unaligned": lambda b: entry(b, "image_offset", entry_field(b, "image_offset") + 4)
                                    or entry(b, "image_size", entry_field(b, "image_size") - 4),
    "ob-image-empty": lambda b: entry(b, "image_size", 0),
}

#
# ELF64 little-endian: the section header table and the .llvm.offloading section's header.
#


def sections(b):
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", b, 0x3C)
    names = shoff + shstrndx * 64
    names_at, = struct.unpack_from("<Q", b, names + 24)
    for i in range(shnum):
        at = shoff + i * 64
        name, = struct.unpack_from("<I", b, at)
        end = b.index(b"\0", names_at + name)
        yield bytes(b[names_at + name:end]), at


def offloading(b):
    return next(at for name, at in sections(b) if name == b".llvm.offloading")


ELF = {
    "elf-truncated-header": lambda b: b.__delitem__(slice(40, None)),
    "elf-bad-class": lambda b: b.__setitem__(4, 7),
    "elf-shentsize": lambda b: put(b, 0x3A, "<H", 63),
    "elf-shoff-past-end": lambda b: put(b, 0x28, "<Q", len(b) - 32),
    "elf-shoff-huge": lambda b: put(b, 0x28, "<Q", HUGE),
    "elf-shnum-huge": lambda b: put(b, 0x3C, "<H", 0xFFF0),
    "elf-shstrndx": lambda b: put(b, 0x3E, "<H", get(b, 0x3C, "<H")),
    "elf-name-past-end": lambda b: put(b, offloading(b), "<I", 0x7FFFFFFF),
    "elf-section-past-end": lambda b: put(b, offloading(b) + 24, "<Q", len(b) + 64),
    "elf-section-huge": lambda b: put(b, offloading(b) + 32, "<Q", HUGE),
    "elf-section-empty": lambda b: put(b, offloading(b) + 32, "<Q", 0),
    # The 32-bit and big-endian forms: a section header table past the end.
    "elf32-shoff-past-end": lambda b: put(b, 0x20, "<I", len(b)),
    "elf-be-shoff-past-end": lambda b: put(b, 0x28, ">Q", len(b)),
}

#
# GNU archives, built here from the member files: "!<arch>\n", then per member a 60-byte
# header name[16] date[12] uid[6] gid[6] mode[8] size[10] "`\n" and the data, 2-aligned.
#


def member(name, data, size=None, terminator=b"`\n"):
    size = len(data) if size is None else size
    h = b"%-16s%-12d%-6d%-6d%-8s%-10s" % (name, 0, 0, 0, b"644", str(size).encode())
    return h + terminator + data + (b"\n" if len(data) % 2 else b"")


def archive(case, files):
    data = [open(f, "rb").read() for f in files]
    m = data[0]
    body = {
        "ar-bad-terminator": lambda: member(b"m.bc/", m, terminator=b"x\n"),
        "ar-bad-size": lambda: member(b"m.bc/", m, size="12ab"),
        "ar-member-past-end": lambda: member(b"m.bc/", m, size="9999999999"),
        "ar-truncated-header": lambda: member(b"m.bc/", m)[:30],
        "ar-no-long-name-table": lambda: member(b"/0", m),
        "ar-long-name-past-end": lambda: member(b"//", b"a-long-member-name.bc/\n") +
                                         member(b"/999", m),
        "ar-long-name-unterminated": lambda: member(b"//", b"a-long-member-name.bc") +
                                             member(b"/0", m),
        "ar-bsd-name-past-end": lambda: member(b"#1/4000", b"m.bc" + m),
        "ar-bsd-name-bad": lambda: member(b"#1/4x", b"m.bc" + m),
        "ar-bad-member": lambda: member(b"m.bc/", m[:len(m) // 2 // 4 * 4]),
    }[case]
    return b"!<arch>\n" + body()


def main():
    case, out, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if case in OFFLOAD or case in ELF:
        b = bytearray(open(inputs[0], "rb").read())
        (OFFLOAD.get(case) or ELF.get(case))(b)
    elif case.startswith("ar-"):
        b = archive(case, inputs)
    elif case == "bc-wrapper-past-end":
        # The bitcode wrapper header: magic, version, offset, size, cputype.
        m = open(inputs[0], "rb").read()
        b = struct.pack("<IIIII", 0x0B17C0DE, 0, 20, len(m) + 64, 0) + m
    else:
        sys.exit("bad.py: unknown case " + case)
    open(out, "wb").write(b)


if __name__ == "__main__":
    main()
