#!/usr/bin/env python3
"""No circle of files: from the object files of the layer libraries (nm), which file calls
which; prints every cycle of files that call each other, and exits 1 if there is one.

usage: check_file_cycles.py BUILD_DIR"""
import glob
import os
import subprocess
import sys


def call_graph(build):
    defined, undefined = {}, {}
    for obj in glob.glob(os.path.join(build, "CMakeFiles", "sycl_*.dir", "**", "*.o"),
                         recursive=True):
        name = obj.split(".dir" + os.sep, 1)[1][:-2]
        symbols = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        defined[name], undefined[name] = set(), set()
        for line in symbols.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRVWC":
                defined[name].add(parts[2])
            elif len(parts) == 2 and parts[0] == "U":
                undefined[name].add(parts[1])
    owner = {symbol: f for f, symbols in defined.items() for symbol in symbols}
    return {f: sorted({owner[s] for s in undefined[f] if owner.get(s, f) != f}) for f in defined}


def cycles(graph):
    state, found = {}, []

    def visit(f, path):
        state[f] = "open"
        for g in graph[f]:
            if state.get(g) == "open":
                found.append(path[path.index(g):] + [g])
            elif g not in state:
                visit(g, path + [g])
        state[f] = "done"

    for f in sorted(graph):
        if f not in state:
            visit(f, [f])
    return found


def main():
    graph = call_graph(sys.argv[1])
    if not graph:
        print("no object files of the layer libraries under", sys.argv[1])
        return 1
    found = cycles(graph)
    for c in found:
        print("circle of files: " + " -> ".join(c))
    print("%d file(s), %s" % (len(graph), "%d circle(s)" % len(found) if found else "no circle"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
