#!/usr/bin/env python3
# A reader of SYCLBIN files (intel's layout v2: one OffloadBinary version 2, every entry
# IMG_SYCLBIN 7 / OFK_SYCL 8 with a "role" key) written apart from sycl-thinlto's, for the tests
# to check what the linker-wrapper mode's --syclbin= writes against the format as documented,
# not against our own reader. It also takes images out of OffloadBinary v1 files (the link's).
#   syclbin.py dump FILE              the header, each entry's kinds and keys, and its payload
#   syclbin.py extract FILE N OUT     entry N's image bytes (after an ir/native entry's metadata)
#   syclbin.py v1-image FILE N OUT    image N of concatenated OffloadBinary v1 blobs
import struct
import sys

MAGIC = b"\x10\xff\x10\xad"


def fail(why):
    sys.exit("syclbin.py: " + why)


def cstring(data, at):
    end = data.index(b"\0", at)
    return data[at:end].decode()


def entries_v2(data):
    magic, version, size, entries_at, count = struct.unpack_from("<4sIQQQ", data, 0)
    if magic != MAGIC or version != 2:
        fail("not an OffloadBinary version 2 (version %d)" % version)
    if size != len(data):
        fail("header size %d, file %d bytes" % (size, len(data)))
    out = []
    for i in range(count):
        kind, okind, flags, strings_at, nstrings, image_at, image_size = struct.unpack_from(
            "<HHIQQQQ", data, entries_at + 40 * i)
        if image_at % 8:
            fail("entry %d: image at %d, not 8-byte aligned" % (i, image_at))
        keys = []
        for j in range(nstrings):
            key_at, value_at, value_size = struct.unpack_from("<QQQ", data, strings_at + 24 * j)
            value = data[value_at:value_at + value_size]
            keys.append((cstring(data, key_at), value.decode()))
        out.append((kind, okind, flags, keys, data[image_at:image_at + image_size]))
    return version, out


def split_payload(image):
    (meta_size,) = struct.unpack_from("<Q", image, 0)
    return image[8:8 + meta_size], image[8 + meta_size:]


def dump(path):
    data = open(path, "rb").read()
    version, entries = entries_v2(data)
    print("OffloadBinary version %d, %d entries" % (version, len(entries)))
    for i, (kind, okind, flags, keys, image) in enumerate(entries):
        print("entry %d: image kind %d, offload kind %d, flags %d" % (i, kind, okind, flags))
        for key, value in keys:
            print("  %s=%s" % (key, value))
        role = dict(keys).get("role")
        if role in ("ir", "native"):
            meta, raw = split_payload(image)
            print("  metadata (%d bytes):" % len(meta))
            for line in meta.decode().splitlines():
                print("    " + line)
            print("  payload: %d bytes, magic %s" % (len(raw), raw[:4][::-1].hex()))
        else:
            for line in image.decode().splitlines():
                print("    " + line)


def extract(path, n, out):
    _, entries = entries_v2(open(path, "rb").read())
    kind, okind, flags, keys, image = entries[n]
    if dict(keys).get("role") in ("ir", "native"):
        image = split_payload(image)[1]
    open(out, "wb").write(image)


def v1_image(path, n, out):
    data = open(path, "rb").read()
    at, found = 0, []
    while at < len(data):
        magic, version, size, entry_at, _ = struct.unpack_from("<4sIQQQ", data, at)
        if magic != MAGIC or version != 1:
            fail("not an OffloadBinary version 1 at %d" % at)
        image_at, image_size = struct.unpack_from("<QQ", data, at + entry_at + 24)
        found.append(data[at + image_at:at + image_at + image_size])
        at += (size + 7) & ~7
    open(out, "wb").write(found[n])


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "dump":
        dump(sys.argv[2])
    elif command == "extract":
        extract(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif command == "v1-image":
        v1_image(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        fail("unknown command " + command)
