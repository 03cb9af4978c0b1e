#!/usr/bin/env python3
"""The hostile directory (issue 30): run COMMAND once in a fresh folder under strace to learn
every name it creates, renames to or removes there; then, in another fresh folder, plant at
each such name a symbolic link to a victim file (or to a victim folder, for a name that was a
folder), run COMMAND again, and check that no victim changed (their contents and listings
are hashed before and after). Two plantings: only the top-level names (a link at `cache`,
at `out.bin.jobs.*`), and every name with its folders made real (a link at each file inside
`cache/` or `tmp/`). The command may succeed or refuse; it may never write, empty or delete
through a link.

usage: hostile_dir.py WORK INPUT_DIR -- COMMAND...   (COMMAND runs in each folder; the
       files of INPUT_DIR are copied into each first, and TMPDIR is that folder's tmp/)"""
import hashlib
import os
import re
import shutil
import subprocess
import sys

CALLS = re.compile(r'^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)')
ARG = re.compile(r'\d+<([^>]*)>|"((?:[^"\\]|\\.)*)"')


def learn(folder, command):
    """The names, relative to FOLDER, that COMMAND made, renamed to or removed there."""
    log = os.path.join(folder, "..", os.path.basename(folder) + ".strace")
    env = dict(os.environ, TMPDIR=os.path.join(folder, "tmp"))
    subprocess.run(["strace", "-f", "-qq", "-y", "-o", log, "-e",
                    "trace=open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,link,"
                    "linkat,symlink,symlinkat,unlink,unlinkat,rmdir"] + command,
                   cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    names, top = set(), None
    with open(log, errors="replace") as f:
        for line in f:
            m = CALLS.match(line.strip())
            if not m:
                continue
            top = top or m.group(1)  # the command's own process: its PID is in names
            call, args = m.group(2), m.group(3)
            if call.startswith("open") and not re.search(r"O_(WRONLY|RDWR|CREAT)", args):
                continue
            # With -y a descriptor reads 3</its/path>: a name after one is relative to it.
            base = folder
            for fd_path, path in ARG.findall(args):
                if fd_path:
                    base = fd_path
                    continue
                full = os.path.normpath(os.path.join(base, path))
                base = folder
                if not full.startswith(folder + "/"):
                    continue
                names.add(os.path.relpath(full, folder))
    # And what is there at the end (a name a tool made without a call traced here).
    for where, dirs, files in os.walk(folder):
        for n in dirs + files:
            names.add(os.path.relpath(os.path.join(where, n), folder))
    kinds = {}
    for rel in names:
        full = os.path.join(folder, rel)
        kind = "dir" if os.path.isdir(full) and not os.path.islink(full) else "file"
        # A name with the command's PID in it (OUT.tmp.HOST.PID.N) is planted with the PID of
        # the second run, known before it starts.
        if top:
            rel = re.sub(r"(?<=\.)%s(?=\.|$)" % top, "{PID}", rel)
        kinds[rel] = kind
    return kinds


def fingerprint(victims):
    h = hashlib.sha256()
    for top, dirs, files in sorted(os.walk(victims)):
        dirs.sort()
        h.update(("D " + os.path.relpath(top, victims) + "\n").encode())
        for n in sorted(files):
            p = os.path.join(top, n)
            h.update(("F %s %s\n" % (os.path.relpath(p, victims),
                                     os.readlink(p) if os.path.islink(p) else "")).encode())
            if not os.path.islink(p):
                with open(p, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def prepare(folder, inputs):
    os.makedirs(os.path.join(folder, "tmp"))
    for n in os.listdir(inputs):
        shutil.copy(os.path.join(inputs, n), folder)


def plant(folder, kinds, victims, top_only, pid, real):
    planted = 0
    for i, template in enumerate(sorted(kinds)):
        rel = template.replace("{PID}", str(pid))
        if rel == "tmp" or (top_only and os.sep in rel):
            continue
        if os.path.basename(rel) in real:  # copied from the first run, not planted
            os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
            shutil.copy(os.path.join(folder, "..", "first", rel), os.path.join(folder, rel))
            continue
        full = os.path.join(folder, rel)
        if os.path.lexists(full):
            continue  # an input, or a name under a link planted already
        if not top_only and kinds[template] == "dir":
            os.makedirs(full, exist_ok=True)  # folders real: links at the names in them
            continue
        parent = os.path.dirname(full)
        if os.path.islink(parent) or (not os.path.isdir(parent) and top_only):
            continue
        os.makedirs(parent, exist_ok=True)
        victim = os.path.join(victims, "v%d" % i)
        if kinds[template] == "dir":
            os.makedirs(victim)
            with open(os.path.join(victim, "keep"), "w") as f:
                f.write("precious %d\n" % i)
        else:
            with open(victim, "w") as f:
                f.write("precious %d\n" % i)
        os.symlink(victim, full)
        planted += 1
    return planted


def main():
    split = sys.argv.index("--")
    work, inputs = sys.argv[1], sys.argv[2]
    command = sys.argv[split + 1:]
    shutil.rmtree(work, ignore_errors=True)
    first = os.path.join(work, "first")
    prepare(first, inputs)
    kinds = learn(first, command)
    failures = 0
    # The cache's tag planted as a link makes the run refuse the cache at once: a third run
    # keeps the real tag, so that every later name (entries, jobs, --save-temps) is reached.
    for label, top_only, real in (("top-level names", True, ()), ("every name", False, ()),
                                  ("every name but the cache's tag", False, ("CACHEDIR.TAG",))):
        folder = os.path.join(work, label.replace(" ", "-").replace("'", ""))
        victims = folder + ".victims"
        os.makedirs(victims)
        prepare(folder, inputs)
        # The command's process is forked first and waits, so that names holding its PID are
        # planted before it runs.
        env = dict(os.environ, TMPDIR=os.path.join(folder, "tmp"))
        go_read, go_write = os.pipe()
        err_read, err_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(go_write)
            os.read(go_read, 1)
            os.chdir(folder)
            os.dup2(err_write, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.execvpe(command[0], command, env)
        os.close(go_read)
        os.close(err_write)
        planted = plant(folder, kinds, victims, top_only, pid, real)
        before = fingerprint(victims)
        os.write(go_write, b"x")
        os.close(go_write)
        with os.fdopen(err_read, errors="replace") as f:
            stderr = f.read()
        status = os.waitpid(pid, 0)[1]
        run = subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(status), "", stderr)
        after = fingerprint(victims)
        print("%s: %d links planted, exit %d, victims %s" % (
            label, planted, run.returncode, "unchanged" if before == after else "CHANGED"))
        for line in run.stderr.splitlines()[:3]:
            print("  " + line)
        if before != after:
            failures += 1
            print(run.stderr)
            for top, dirs, files in os.walk(victims):
                for n in files:
                    p = os.path.join(top, n)
                    with open(p, errors="replace") as f:
                        text = f.read(40)
                    if not text.startswith("precious"):
                        print("  changed: %s" % os.path.relpath(p, victims))
            for top, dirs, files in os.walk(victims):
                if not files and not dirs and top != victims:
                    print("  emptied: %s" % os.path.relpath(top, victims))
    print("names learned: %d" % len(kinds))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
