#!/usr/bin/env python3
"""No circle of files: from the members of the layer libraries (nm), which file calls
which; prints every cycle of files that call each other, and exits 1 if there is one.

usage: check_file_cycles.py BUILD_DIR
       check_file_cycles.py --self-test   (a library with one circle of files must fail)"""
import glob
import os
import subprocess
import sys


def call_graph(build):
    defined, undefined = {}, {}
    # The libraries' members, not the object files lying around (a build tree keeps objects
    # of files that no longer exist).
    for library in glob.glob(os.path.join(build, "libsycl_*.a")):
        layer = os.path.basename(library)[len("libsycl_"):-2]
        symbols = subprocess.run(["nm", "-A", library], capture_output=True, text=True,
                                 check=True).stdout
        for line in symbols.splitlines():
            # "LIBRARY:MEMBER.o:0000 T name" (the library path may hold no colon: ours)
            _, member, rest = line.split(":", 2)
            name = layer + "/" + member[:-2]
            defined.setdefault(name, set())
            undefined.setdefault(name, set())
            parts = rest.split()
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


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as build:
        # a calls b, b calls a (the circle); c calls a (no circle of its own)
        sources = {"a": "void b(void); void a(void) { b(); }",
                   "b": "void a(void); void b(void) { a(); }",
                   "c": "void a(void); void c(void) { a(); }"}
        objects = []
        for name, text in sources.items():
            with open(os.path.join(build, name + ".c"), "w") as f:
                f.write(text + "\n")
            objects.append(os.path.join(build, name + ".o"))
            subprocess.run([os.environ.get("CC", "cc"), "-c", "-o", objects[-1],
                            os.path.join(build, name + ".c")], check=True)
        subprocess.run(["ar", "rcs", os.path.join(build, "libsycl_x.a")] + objects, check=True)
        found = cycles(call_graph(build))
    if found != [["x/a", "x/b", "x/a"]]:
        print("self-test: expected the circle x/a -> x/b -> x/a, found %s" % found)
        return 1
    print("self-test: ok")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    graph = call_graph(sys.argv[1])
    if not graph:
        print("no layer libraries (libsycl_*.a) under", sys.argv[1])
        return 1
    found = cycles(graph)
    for c in found:
        print("circle of files: " + " -> ".join(c))
    print("%d file(s), %s" % (len(graph), "%d circle(s)" % len(found) if found else "no circle"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
