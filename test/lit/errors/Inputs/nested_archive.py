#!/usr/bin/env python3
# Writes an archive holding an archive holding ... DEPTH archives deep, the innermost one
# holding MEMBER (a file) as m.o; each archive's one member is named m.a.
#   nested_archive.py DEPTH MEMBER OUTPUT
# Written front to back in one pass: 50,000 levels are 3.4 MB, not 50,000 copies of it.
import sys

depth, member, output = int(sys.argv[1]), sys.argv[2], sys.argv[3]
inner = open(member, "rb").read()


def header(name, size):
    h = b"%-16s%-12s%-6s%-6s%-8s%-10d`\n" % (name.encode() + b"/", b"0", b"0", b"0", b"644", size)
    assert len(h) == 60
    return h


# sizes[k]: the size of the archive at level k (0 outermost) as a member of level k - 1.
sizes = [0] * (depth + 1)
sizes[depth] = len(inner)
for k in range(depth - 1, -1, -1):
    body = sizes[k + 1]
    sizes[k] = 8 + 60 + body + (body & 1)
with open(output, "wb") as out:
    for k in range(depth):
        out.write(b"!<arch>\n")
        out.write(header("m.o" if k == depth - 1 else "m.a", sizes[k + 1]))
    out.write(inner)
    for k in range(depth - 1, -1, -1):
        if sizes[k + 1] & 1:
            out.write(b"\n")
