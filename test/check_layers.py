#!/usr/bin/env python3
"""The rule of the layers (docs/architecture.md): a file includes the headers of its own
folder and of folders below it, never above; peers on one floor do not include each other;
base/ includes no project header but its own; a folder's *_internal.h is for that folder
only. Prints every #include that breaks it, and exits 1 if any does.

usage: check_layers.py [SOURCE_ROOT]
       check_layers.py --self-test   (a tree with one break of each kind must fail)"""
import os
import re
import sys

from check_main import check_main

# Top to bottom; folders on one floor are peers and may not include each other.
FLOORS = [["tool"], ["lto"], ["split", "hooks", "wrap"], ["formats"], ["properties", "spirv"],
          ["base"]]
FLOOR = {folder: level for level, floor in enumerate(FLOORS) for folder in floor}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def violations(root):
    for folder in FLOOR:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if not name.endswith((".c", ".h", ".cpp", ".def")):
                continue
            path = os.path.join(folder, name)
            with open(os.path.join(root, path), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    where = "%s:%d: #include \"%s\"" % (path, number, target)
                    parts = target.split("/")
                    if len(parts) == 1:  # a file beside this one (a table of data)
                        if not os.path.exists(os.path.join(root, folder, target)):
                            yield where + ": not a file of " + folder + "/"
                        elif target.endswith(".h"):
                            yield where + ": name a header by its folder (FOLDER/NAME.h)"
                        continue
                    other = parts[0]
                    if other not in FLOOR:
                        yield where + ": not a folder of the layers"
                    elif other == folder:
                        continue
                    elif parts[-1].endswith("_internal.h"):
                        yield where + ": " + other + "/'s internal header is for " + other + "/ only"
                    elif FLOOR[other] < FLOOR[folder]:
                        yield where + ": " + other + "/ is a layer above " + folder + "/"
                    elif FLOOR[other] == FLOOR[folder]:
                        yield where + ": " + other + "/ is a peer of " + folder + "/, not below it"


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for folder in FLOOR:
            os.mkdir(os.path.join(root, folder))
        breaks = {"base/a.c": "formats/formats.h", "wrap/b.c": "hooks/hooks.h",
                  "lto/c.c": "split/split_internal.h", "hooks/d.c": "tool/tool.h",
                  "spirv/e.c": "spirv.h", "formats/f.c": "nowhere/x.h"}
        for path, target in breaks.items():
            with open(os.path.join(root, path), "w") as f:
                f.write('#include "%s"\n#include "base/base.h"\n' % target)
        with open(os.path.join(root, "spirv", "spirv.h"), "w") as f:
            f.write('#include "base/base.h"\n')
        found = list(violations(root))
    if len(found) != len(breaks):
        print("self-test: expected %d breaks, found %d: %s" % (len(breaks), len(found), found))
        return 1
    print("self-test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(check_main(violations, self_test,
                        lambda found: "%d include(s) break the layers" % len(found)
                                 if found else "layers: ok"))
