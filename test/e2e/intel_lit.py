#!/usr/bin/env python3
"""make conformance INTEL_LLVM=DIR: intel's own lit tests of sycl-post-link and of
clang-linker-wrapper's SYCL mode, read where they are in a checkout of intel/llvm (never
fetched, never copied into this repository), run against our drop-in tools, and a table of
what passed, what failed (the first failing RUN line) and what cannot run here and why.

usage: intel_lit.py --intel DIR --build BUILD_DIR [--junit OUT.xml] [--filter TEXT] [--keep W]
                    [--clang INTEL_CLANG_BIN_DIR] [--by-hand]

The tests: DIR/llvm/test/tools/sycl-post-link/**/*.{ll,test}, and the files of
DIR/clang/test/ whose RUN lines run clang-linker-wrapper and that speak of SYCL. Each RUN
line runs as lit runs it (bash, pipefail, in a scratch folder) with lit's substitutions (%s
%S %p %t %T %{...} for the few intel uses); sycl-post-link and clang-linker-wrapper are ours
(BUILD_DIR/libexec/sycl-thinlto), every other tool LLVM 22's (/usr/lib/llvm-22/bin). A test
cannot run here when it REQUIRES a feature this machine lacks, or a RUN line needs a program
that is not here (intel's llvm-spirv, sycl-module-split, ocloc, ...) or a clang option only
intel's clang has; `%if asserts` lines are skipped, as in intel's release builds. A test whose
device code is a `__attribute__((sycl_kernel))` template compiled with `-fsycl-is-device`
cannot run with LLVM 22's clang either: only intel's clang makes a kernel of it (clang 22
writes an empty module, silently); --clang names a folder holding intel's clang, which then
stands for %clang, %clangxx and %clang_cc1.

--by-hand runs them as docs/sycl-post-link.md's table was measured: a RUN line of a program
that is not here (sycl-module-split, ...) is skipped with the lines that read what it wrote
(its -o, %t2 and the like), instead of the whole test; `-json=0` (the .prop text, a fork's
option: this front writes no other) is dropped. A test all of whose lines were skipped
cannot run. The table says how many lines each test skipped."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

LLVM = "/usr/lib/llvm-22/bin"
HERE = os.path.dirname(os.path.abspath(__file__))
# lit features this machine has (intel's lit.cfg names); anything else a test REQUIRES is not.
FEATURES = {"system-linux", "linux", "x86-registered-target", "spirv-registered-target",
            "zstd", "shell", "host-byteorder-little-endian", "native"}
# Options of intel's clang driver that upstream clang 22 does not have.
INTEL_CLANG_OPTIONS = ("-fsycl-targets", "-fsycl-link", "-fsycl-device-only", "-fno-sycl-rdc",
                       "-fsycl-rdc", "--offload-new-driver", "-fsyclbin", "-fsycl-embed-ir",
                       "-fsycl-device-lib", "-fintelfpga", "-fsycl-instrument-device-code",
                       "-fno-sycl-instrument-device-code", "-fsycl-is-device -fsycl-int")
# As lit reads them: the keyword anywhere in a line ('//// RUN:' is a RUN line too).
COMMENT = re.compile(r"(RUN|REQUIRES|UNSUPPORTED|XFAIL):(.*)$")


def parse(path):
    """RUN lines joined across '\\', and the REQUIRES/UNSUPPORTED/XFAIL lists."""
    runs, keys, pending = [], {"REQUIRES": [], "UNSUPPORTED": [], "XFAIL": []}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = COMMENT.search(line)
            if not m:
                continue
            kind, text = m.group(1), m.group(2).strip()
            if kind != "RUN":
                keys[kind] += [t.strip() for t in text.split(",") if t.strip()]
                continue
            if pending is not None:
                pending[1] += " " + text
            else:
                pending = [number, text]
            if pending[1].endswith("\\"):
                pending[1] = pending[1][:-1].rstrip()
                continue
            runs.append(tuple(pending))
            pending = None
    return runs, keys


def feature_holds(expr):
    """A lit boolean expression of features (&&, ||, !, parentheses)."""
    py = re.sub(r"[A-Za-z0-9_.+=-]+",
                lambda m: " True " if m.group(0) in FEATURES else " False ", expr)
    py = py.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    try:
        return bool(eval(py, {"__builtins__": {}}))
    except Exception:
        return False


CLANG = LLVM  # where %clang's clang is: LLVM 22's, or intel's (--clang)
KERNEL_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(\s*sycl_kernel\s*\)\)")


def substitute(text, test, tmp):
    src = os.path.dirname(test)
    text = re.sub(r"%if\s+asserts\s*%\{.*?%\}(\s*%else\s*%\{(.*?)%\})?",
                  lambda m: m.group(2) or "", text)
    for key, value in (("%clangxx", os.path.join(CLANG, "clang++")),
                       ("%clang_cc1", os.path.join(CLANG, "clang") + " -cc1"),
                       ("%clang", os.path.join(CLANG, "clang")),
                       ("%s", test), ("%S", src), ("%p", src), ("%t", tmp),
                       ("%T", os.path.dirname(tmp)), ("%%", "%")):
        text = text.replace(key, value)
    return text


def programs(command):
    """The programs a shell line runs: the first word of each pipeline stage and of each
    command after && || ; (after not, env VAR=X, !)."""
    found = []
    for stage in re.split(r"\|\||&&|\||;", command):
        words = stage.strip().split()
        while words and (words[0] in ("not", "!", "env", "--crash", "time")
                         or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0])):
            words = words[1:]
        if words and not words[0].startswith(("(", ")", "{", "}", "[", "]")):
            found.append(words[0].strip("\"'"))
    return found


SHELL_BUILTINS = {"cd", "echo", "printf", "test", "true", "false", "export", "set", "exit",
                  "for", "do", "done", "if", "then", "fi", "else", "while", "read", ":"}


def cannot_run(command, path_dirs, test):
    for program in programs(command):
        if program in SHELL_BUILTINS or program.startswith("%"):
            if program.startswith("%"):
                return "needs %s, a substitution of intel's lit configuration" % program
            continue
        if os.path.isabs(program):
            if not os.access(program, os.X_OK):
                return "needs %s" % program
            continue
        if not any(os.access(os.path.join(d, program), os.X_OK) for d in path_dirs):
            return "needs %s, which is not here" % program
    if CLANG == LLVM and re.search(r"(^|\s)-fsycl-is-device(\s|$)", command):
        try:
            with open(test, encoding="utf-8", errors="replace") as f:
                source = f.read()
        except OSError:
            source = ""
        if KERNEL_ATTRIBUTE.search(source):
            return ("needs intel's clang: clang 22 -fsycl-is-device makes no kernel of "
                    "__attribute__((sycl_kernel)) (an empty module); see --clang")
    for option in INTEL_CLANG_OPTIONS if CLANG == LLVM else ():
        if re.search(r"(^|\s)" + re.escape(option) + r"(=|\s|$)", command) and "clang" in command:
            return "needs intel's clang (%s)" % option
    return None


def collect(intel, only):
    tests = []
    post_link = os.path.join(intel, "llvm", "test", "tools", "sycl-post-link")
    for folder, _, files in os.walk(post_link):
        if os.path.basename(folder) == "Inputs" or "/Inputs/" in folder + "/":
            continue
        for name in sorted(files):
            if name.endswith((".ll", ".test")):
                tests.append(("sycl-post-link", os.path.join(folder, name)))
    clang_tests = os.path.join(intel, "clang", "test")
    for folder, _, files in os.walk(clang_tests):
        if "/Inputs" in folder:
            continue
        for name in sorted(files):
            if not name.endswith((".c", ".cpp", ".test", ".ll")):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                continue
            runs = [r for r in re.findall(r"RUN:.*", text)]
            if any("clang-linker-wrapper" in r for r in runs) and re.search(r"sycl", text, re.I):
                tests.append(("clang-linker-wrapper", path))
    tests.sort(key=lambda t: (t[0], t[1]))
    return [t for t in tests if not only or only in t[1]]


BY_HAND = False


def output_of(command):
    """The -o of a command line, or None."""
    m = re.search(r"(?:^|\s)-o\s+(\S+)", command)
    return m.group(1) if m else None


def run_test(test, intel, bin_dir, work, index):
    runs, keys = parse(test)
    if not runs:
        return "skip", "no RUN lines", None, ""
    missing = [r for r in keys["REQUIRES"] if not feature_holds(r)]
    if missing:
        return "skip", "REQUIRES " + ", ".join(missing), None, ""
    excluded = [u for u in keys["UNSUPPORTED"] if feature_holds(u)]
    if excluded:
        return "skip", "UNSUPPORTED " + ", ".join(excluded), None, ""
    scratch = os.path.join(work, "t%04d" % index)
    os.makedirs(scratch, exist_ok=True)
    tmp = os.path.join(scratch, "Output", os.path.basename(test) + ".tmp")
    os.makedirs(os.path.dirname(tmp), exist_ok=True)
    path_dirs = [bin_dir, LLVM] + os.environ.get("PATH", "/usr/bin:/bin").split(":")
    commands, skipped_outputs, skipped = [], [], 0
    for number, text in runs:
        command = substitute(text, test, tmp)
        if BY_HAND:
            command = re.sub(r"(^|\s)-json=0(?=\s|$)", r"\1", command)
            if any(re.search(re.escape(o) + r"(?=[_.\s]|$)", command) for o in skipped_outputs):
                skipped += 1
                continue
        why = cannot_run(command, path_dirs, test)
        if why and BY_HAND and "which is not here" in why:
            skipped += 1
            if output_of(command):
                skipped_outputs.append(output_of(command))
            continue
        if why:
            return "skip", "RUN line %d %s" % (number, why), number, ""
        commands.append((number, command))
    if not commands:
        return "skip", "every RUN line skipped (%d)" % skipped, None, ""
    env = dict(os.environ, PATH=":".join(path_dirs))
    log = os.path.join(scratch, "log.txt")
    with open(log, "w") as out:
        for number, command in commands:
            out.write("$ %s   # RUN: at line %d\n" % (command, number))
            out.flush()
            try:
                done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch,
                                      env=env, stdout=out, stderr=subprocess.STDOUT, timeout=300)
                status = done.returncode
            except subprocess.TimeoutExpired:
                status = "timeout"
            if status != 0:
                result = "xfail" if keys["XFAIL"] else "fail"
                return result, "RUN line %d: exit %s" % (number, status), number, log
    if keys["XFAIL"]:
        return "fail", "XPASS (the test expects a failure)", None, log
    return "pass", "%d RUN line(s) skipped" % skipped if skipped else "", None, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--intel", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--junit")
    ap.add_argument("--filter")
    ap.add_argument("--keep", help="a folder to keep the scratch folders and logs in")
    ap.add_argument("--clang", help="a folder holding intel's clang, for %%clang and the like")
    ap.add_argument("--by-hand", action="store_true",
                    help="skip RUN lines of missing programs and what reads their output")
    a = ap.parse_args()
    intel = os.path.abspath(a.intel)
    global CLANG, BY_HAND
    BY_HAND = a.by_hand
    if a.clang:
        CLANG = os.path.abspath(a.clang)
        if not os.access(os.path.join(CLANG, "clang"), os.X_OK):
            raise SystemExit("intel_lit.py: %s: no clang there" % a.clang)
    if not os.path.isdir(os.path.join(intel, "llvm", "test", "tools")):
        raise SystemExit("intel_lit.py: %s: not a checkout of intel/llvm (no llvm/test/tools)"
                         % a.intel)
    libexec = os.path.join(os.path.abspath(a.build), "libexec", "sycl-thinlto")
    for tool in ("sycl-post-link", "clang-linker-wrapper"):
        if not os.access(os.path.join(libexec, tool), os.X_OK):
            raise SystemExit("intel_lit.py: %s: no %s (build first)" % (libexec, tool))
    work = a.keep or tempfile.mkdtemp(prefix="intel-lit-")
    os.makedirs(work, exist_ok=True)
    bin_dir = os.path.join(work, "bin")  # ours under intel's names, first on PATH
    os.makedirs(bin_dir, exist_ok=True)
    for tool in ("sycl-post-link", "clang-linker-wrapper"):
        link = os.path.join(bin_dir, tool)
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(os.path.join(libexec, tool), link)
    tests = collect(intel, a.filter)
    rows, counts = [], {"pass": 0, "fail": 0, "skip": 0, "xfail": 0}
    print("%-62s %-7s %s" % ("test", "result", "detail"))
    try:
        for index, (suite, test) in enumerate(tests):
            result, detail, _, log = run_test(test, intel, bin_dir, work, index)
            counts[result] += 1
            name = os.path.relpath(test, intel)
            shown = {"pass": "PASS", "fail": "FAIL", "skip": "CANNOT", "xfail": "XFAIL"}[result]
            print("%-62s %-7s %s" % (name, shown, detail))
            rows.append([suite, os.path.dirname(name).replace("/", "."), os.path.basename(name),
                         result, detail, log if result == "fail" else ""])
        print("%d test(s): %d passed, %d failed, %d expected to fail, %d cannot run here"
              % (len(tests), counts["pass"], counts["fail"], counts["xfail"], counts["skip"]))
        if a.junit:
            sys.path.insert(0, HERE)
            import junit
            junit.write(junit.build(rows), a.junit)
            print("JUnit report: %s" % a.junit)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
