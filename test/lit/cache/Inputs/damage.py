# Damages every entry of a --cache-dir (sycl-thinlto-5/XX/KIND-KEY, libLTO's results as
# "thinlto-KEY") in one way: damage.py MODE DIR. Temporaries, stamps and the tag are left alone.
# Damaged files keep their times: the damage is not something a link just wrote.
import os
import sys

mode, root = sys.argv[1], sys.argv[2]


def entries():
    """Every cache entry, grouped by kind, in a stable order."""
    kinds = {}
    top = os.path.join(root, "sycl-thinlto-5")
    for shard in sorted(os.listdir(top)):
        d = os.path.join(top, shard)
        if len(shard) != 2 or not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if "-" not in name or "." in name or not os.path.isfile(path):
                continue
            kinds.setdefault(name.split("-")[0], []).append(path)
    return kinds


def rewrite(path, data):
    st = os.stat(path)
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


# Every entry's bytes as they were before any is damaged.
kinds = entries()
original = {kind: [open(p, "rb").read() for p in paths] for kind, paths in kinds.items()}
for kind, paths in kinds.items():
    contents = original[kind]
    for i, path in enumerate(paths):
        data = contents[i]
        if mode == "rotate":  # another key's intact entry of the same kind
            rewrite(path, contents[(i + 1) % len(paths)] if len(paths) > 1 else b"")
        elif mode == "foreign-kind":  # an intact entry of another kind
            other = [k for k in kinds if k != kind][0]
            rewrite(path, original[other][i % len(original[other])])
        elif mode == "flip":  # one byte changed in the middle
            b = bytearray(data)
            b[len(b) // 2] ^= 0x55
            rewrite(path, bytes(b))
        elif mode == "truncate":
            rewrite(path, data[: len(data) // 2])
        elif mode == "empty":
            rewrite(path, b"")
        elif mode == "garbage":
            rewrite(path, b"garbage\n" * 8)
        elif mode == "fifo":
            os.unlink(path)
            os.mkfifo(path)
        else:
            sys.exit("unknown mode " + mode)
