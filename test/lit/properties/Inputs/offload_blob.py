#!/usr/bin/env python3
# Writes one OffloadBinary (version 1) holding IMAGE as a SYCL image, with string keys given as
# KEY=VALUE or KEY=@FILE (the value read from FILE): for keys too long for a command line.
#   offload_blob.py OUT IMAGE KIND KEY=VALUE...      (KIND: 1 object, 2 bitcode, 6 spirv)
import struct
import sys

out, image_path, kind = sys.argv[1], sys.argv[2], int(sys.argv[3])
image = open(image_path, "rb").read()
keys = []
for arg in sys.argv[4:]:
    key, value = arg.split("=", 1)
    keys.append((key.encode(), open(value[1:], "rb").read() if value.startswith("@") else value.encode()))

HEADER, ENTRY, STRING = 32, 40, 16
align = lambda n: (n + 7) & ~7
table = bytearray(b"\0")
offsets = []
for key, value in keys:
    offsets.append((len(table), len(table) + len(key) + 1))
    table += key + b"\0" + value + b"\0"
strings_at = HEADER + ENTRY
table_at = strings_at + STRING * len(keys)
image_at = align(table_at + len(table))
size = align(image_at + len(image))
blob = bytearray(size)
struct.pack_into("<4sIQQQ", blob, 0, b"\x10\xff\x10\xad", 1, size, HEADER, ENTRY)
struct.pack_into("<HHIQQQQ", blob, HEADER, kind, 8, 0, strings_at, len(keys), image_at, len(image))
for i, (k, v) in enumerate(offsets):
    struct.pack_into("<QQ", blob, strings_at + STRING * i, table_at + k, table_at + v)
blob[table_at:table_at + len(table)] = table
blob[image_at:image_at + len(image)] = image
open(out, "wb").write(blob)
