# Plants entries in a --cache-dir the way someone with write access to it could: plant.py MODE
# KIND DIR. Prints how many files it changed. Modes:
#   edit-future: one byte of each KIND entry's content changed, its time set a day ahead;
#   raw:         each KIND entry replaced by another entry's content with no trailer (no
#                record of its hash: for "thinlto", valid bitcode of another module).
import os
import sys
import time

mode, kind, root = sys.argv[1], sys.argv[2], sys.argv[3]
top = os.path.join(root, "sycl-thinlto-5")
paths = sorted(
    os.path.join(top, shard, name)
    for shard in os.listdir(top)
    if len(shard) == 2 and os.path.isdir(os.path.join(top, shard))
    for name in os.listdir(os.path.join(top, shard))
    if name.startswith(kind + "-") and "." not in name
)
contents = [open(p, "rb").read() for p in paths]
TRAILER = 52
future = time.time() + 86400
for i, path in enumerate(paths):
    data = contents[i]
    if mode == "edit-future":
        b = bytearray(data)
        b[(len(b) - TRAILER) // 2] ^= 0x01
        data = bytes(b)
    elif mode == "raw":
        data = contents[(i + 1) % len(paths)][:-TRAILER]
    else:
        sys.exit("unknown mode " + mode)
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (future, future))
print("planted", len(paths))
