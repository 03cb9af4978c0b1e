#!/usr/bin/env python3
# Runs a command on every prefix of FILE cut at many offsets and checks that each is rejected
# as bad input: exit code 1, "sycl-thinlto: error: PREFIX-FILE: ..." first on stderr, no
# crash, no hang, and nothing at the output path.
#   truncations.py [--skip=N,...] FILE DIR COMMAND...
# COMMAND names the damaged input as {in} and the output as {out} (created in DIR). Offsets:
# every one of the first 64 bytes, then every 23rd (odd and even sizes alike), then the
# last 8; --skip leaves out cuts that are whole files (an archive cut after a member).
# Prints one line per failure, then "N cuts, F failures".
import os
import subprocess
import sys


def offsets(size, skip):
    cuts = set(range(0, min(size, 64)))
    cuts.update(range(64, size, 23))
    cuts.update(range(max(0, size - 8), size))
    return sorted(cuts - skip)


def main():
    args = sys.argv[1:]
    skip = set()
    if args[0].startswith("--skip="):
        skip = {int(n) for n in args.pop(0)[len("--skip="):].split(",")}
    path, work, command = args[0], args[1], args[2:]
    data = open(path, "rb").read()
    name = os.path.basename(path)
    failures = 0
    cuts = offsets(len(data), skip)
    for n in cuts:
        cut = os.path.join(work, "%s.cut%d" % (name, n))
        out = os.path.join(work, "%s.cut%d.out" % (name, n))
        with open(cut, "wb") as f:
            f.write(data[:n])
        argv = [a.replace("{in}", cut).replace("{out}", out) for a in command]
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            print("cut at %d: hangs" % n)
            failures += 1
            continue
        first = (p.stderr.splitlines() or [""])[0]
        why = None
        if p.returncode != 1:
            why = "exit code %d" % p.returncode
        elif not first.startswith("sycl-thinlto: error: %s" % cut):
            why = "message '%s'" % first
        elif os.path.exists(out) or any(f.startswith(os.path.basename(out) + ".tmp")
                                        for f in os.listdir(work)):
            why = "output left behind"
        if why:
            print("cut at %d: %s" % (n, why))
            failures += 1
        else:
            os.unlink(cut)
    print("%d cuts, %d failures" % (len(cuts), failures))


if __name__ == "__main__":
    main()
