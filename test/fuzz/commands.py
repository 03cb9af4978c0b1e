#!/usr/bin/env python3
# Mutation fuzzing of the whole `link` and `post-link` commands (test/fuzz/README.md), where
# the readers' targets stop: the crashes of issue 24 came from inputs LLVM's reader accepts,
# in the stages after it. Each input is a seed file (corpus/input, corpus/commands) with a few
# random mutations; each command runs it in a directory of its own, under a time and a memory
# limit, and must behave as README promises:
#   - exit code 0 with its output written, or 1 with "sycl-thinlto: error: " first and nothing
#     left at -o, no temporary (OUT.tmp.*, sycl-thinlto-thinlto-*) in the directory or TMPDIR;
#   - never a signal, exit code 70 ("internal error"), another exit code, or the time limit.
# A finding is saved as findings/NAME (the input) with NAME.txt (the command, exit, stderr).
# Kept in corpus/commands/, it is replayed by `make test` (ctest fuzz.commands).
#   commands.py fuzz TOOL SECONDS WORKDIR [SEED]     mutate and run for SECONDS
#   commands.py replay TOOL WORKDIR FILE|DIR...      run each file as it is; exit 1 on a finding
import hashlib
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIME_LIMIT = 60                 # seconds per command
MEMORY_LIMIT = 6 << 30          # address space per command (the tool's own ceiling is lower)

# The commands, each with the input's name IN and its output OUT; the options vary.
COMMANDS = [
    ("link", ["link", "IN", "-o", "OUT"]),
    ("link-j2", ["link", "-j2", "--split=kernel", "IN", "-o", "OUT"]),
    ("link-nosplit", ["link", "--split=none", "IN", "-o", "OUT"]),
    ("link-full", ["link", "--lto=full", "IN", "-o", "OUT"]),
    ("post-link", ["post-link", "-symbols", "-properties", "-device-globals",
                   "-emit-exported-symbols", "-split=auto", "IN", "-o", "OUT"]),
]

INTERESTING = [0, 1, 0x7f, 0x80, 0xff]
LINKED = [0]  # runs that exited 0: the mutation got past every reader
INTERESTING32 = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x10000, 0xfffe]


def mutate(data, rng):
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 8])):
        if not b:
            b = bytearray(rng.randbytes(16))
        kind = rng.randrange(7)
        at = rng.randrange(len(b))
        if kind == 0:
            b[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            b[at] = rng.choice(INTERESTING)
        elif kind == 2 and len(b) >= 4:
            at = rng.randrange(len(b) - 3)
            b[at:at + 4] = rng.choice(INTERESTING32).to_bytes(4, rng.choice(["little", "big"]))
        elif kind == 3:
            del b[at:at + rng.randrange(1, 64)]
        elif kind == 4:
            n = rng.randrange(1, 64)
            b[at:at] = b[at:at + n]
        elif kind == 5:
            del b[at:]
        else:
            b[at] = rng.randrange(256)
    return bytes(b)


def limits():
    # A sanitizer build reserves terabytes of shadow address space: no address-space limit there.
    if not os.environ.get("ASAN_OPTIONS") and not os.environ.get("TSAN_OPTIONS"):
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def leftovers(directory, output):
    left = []
    for root, dirs, files in os.walk(directory):
        for f in dirs + files:
            if f == output or f.startswith(output + ".") or f.startswith(output + "_") \
                    or f.startswith("sycl-thinlto-thinlto-") or ".tmp." in f:
                left.append(os.path.relpath(os.path.join(root, f), directory))
    return left


def run_one(tool, name, argv, data, workdir):
    """Runs one command on DATA; returns None, or what went wrong."""
    run = os.path.join(workdir, "run")
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(os.path.join(run, "tmp"))
    with open(os.path.join(run, "input"), "wb") as f:
        f.write(data)
    out = "out.table" if name == "post-link" else "out.bin"
    args = [tool] + [{"IN": "input", "OUT": out}.get(a, a) for a in argv]
    env = dict(os.environ, TMPDIR=os.path.join(run, "tmp"))
    try:
        p = subprocess.run(args, cwd=run, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=TIME_LIMIT, preexec_fn=limits,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        return "timeout (%d s)" % TIME_LIMIT, b""
    err = p.stderr
    LINKED[0] += p.returncode == 0
    if p.returncode < 0:
        return "killed by %s" % signal.Signals(-p.returncode).name, err
    if p.returncode not in (0, 1):
        return "exit code %d" % p.returncode, err
    if b"internal error" in err:
        return "internal error", err
    if p.returncode == 0:
        if not os.path.exists(os.path.join(run, out)):
            return "exit code 0 without %s" % out, err
        return None
    if not err.startswith(b"sycl-thinlto: error: "):
        return "exit code 1 without an error first", err
    left = leftovers(run, out)
    if left:
        return "left behind: " + " ".join(sorted(left)[:5]), err
    return None


def save(workdir, data, name, argv, why, err):
    findings = os.path.join(workdir, "findings")
    os.makedirs(findings, exist_ok=True)
    base = "%s-%s" % (name, hashlib.sha1(data).hexdigest()[:12])
    with open(os.path.join(findings, base), "wb") as f:
        f.write(data)
    with open(os.path.join(findings, base + ".txt"), "wb") as f:
        f.write(("%s: sycl-thinlto %s\n" % (why, " ".join(argv))).encode() + err[-4000:])
    return base


def seeds():
    files = []
    for d in ("input", "commands"):
        path = os.path.join(HERE, "corpus", d)
        files += [os.path.join(path, f) for f in sorted(os.listdir(path))] if os.path.isdir(path) else []
    return [open(f, "rb").read() for f in files if os.path.isfile(f) and not f.endswith(".txt")]


def fuzz(tool, seconds, workdir, seed):
    rng = random.Random(seed)
    corpus = seeds()
    end = time.time() + seconds
    runs = found = 0
    while time.time() < end:
        data = mutate(rng.choice(corpus), rng)
        name, argv = rng.choice(COMMANDS)
        result = run_one(tool, name, argv, data, workdir)
        runs += 1
        if result:
            found += 1
            base = save(workdir, data, name, argv, result[0], result[1])
            print("FOUND %s: %s (findings/%s)" % (name, result[0], base), flush=True)
    shutil.rmtree(os.path.join(workdir, "run"), ignore_errors=True)
    print("commands: %d runs in %d s (%d succeeded), %d finding(s) in %s/findings"
          % (runs, seconds, LINKED[0], found, workdir))
    return 1 if found else 0


def replay(tool, workdir, paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += [os.path.join(p, f) for f in sorted(os.listdir(p)) if not f.endswith(".txt")]
        else:
            files.append(p)
    bad = 0
    for f in files:
        data = open(f, "rb").read()
        for name, argv in COMMANDS:
            result = run_one(tool, name, argv, data, workdir)
            if result:
                bad += 1
                print("%s, %s: %s\n%s" % (os.path.basename(f), name, result[0],
                                          result[1].decode(errors="replace")[-2000:]))
    shutil.rmtree(os.path.join(workdir, "run"), ignore_errors=True)
    print("commands: %d input(s) x %d commands, %d finding(s)" % (len(files), len(COMMANDS), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    mode, tool = sys.argv[1], os.path.abspath(sys.argv[2])
    if mode == "fuzz":
        os.makedirs(sys.argv[4], exist_ok=True)
        sys.exit(fuzz(tool, int(sys.argv[3]), os.path.abspath(sys.argv[4]),
                      int(sys.argv[5]) if len(sys.argv) > 5 else int(time.time())))
    os.makedirs(sys.argv[3], exist_ok=True)
    sys.exit(replay(tool, os.path.abspath(sys.argv[3]), sys.argv[4:]))
