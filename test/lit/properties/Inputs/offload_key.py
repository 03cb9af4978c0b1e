#!/usr/bin/env python3
# Writes the value of string key KEY of each OffloadBinary in FILE (concatenated blobs, as a
# link writes them) to standard output, raw bytes, one value a line.
#   offload_key.py FILE KEY
import struct
import sys

data, key = open(sys.argv[1], "rb").read(), sys.argv[2].encode()
at = 0
while at + 32 <= len(data):
    magic, version, size, entry_at, entry_size = struct.unpack_from("<4sIQQQ", data, at)
    assert magic == b"\x10\xff\x10\xad", "not an OffloadBinary at %d" % at
    blob = data[at:at + size]
    _, _, _, strings_at, count, _, _ = struct.unpack_from("<HHIQQQQ", blob, entry_at)
    for i in range(count):
        k, v = struct.unpack_from("<QQ", blob, strings_at + 16 * i)
        if blob[k:blob.index(b"\0", k)] == key:
            sys.stdout.buffer.write(blob[v:blob.index(b"\0", v)] + b"\n")
    at += (size + 7) & ~7
