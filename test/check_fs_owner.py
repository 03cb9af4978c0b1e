#!/usr/bin/env python3
"""The one owner of the file system (issue 30, docs/reliability.md): every create, rename and
remove of the program goes through base/owned.c, which creates exclusively, never writes
through a link and removes only what the run created. Outside it, the product code (every
layer's folder; not test/ nor bench/, which are no part of the program) may not call open,
openat, fopen or freopen for writing, nor creat, unlink, unlinkat, rename, renameat, rmdir,
mkdir, mkdirat, remove, mkstemp, mkdtemp, link, symlink or truncate at all. Prints each call
that does, as FILE:LINE, and exits 1 if any does.

A read is allowed: open/openat whose flags name neither O_WRONLY, O_RDWR, O_CREAT, O_TRUNC
nor O_APPEND, fopen with a mode of "r" or "rb".

usage: check_fs_owner.py [SOURCE_ROOT]
       check_fs_owner.py --self-test   (a tree with one call of each kind must fail)"""
import os
import re
import sys

from check_main import check_main

FOLDERS = ["tool", "lto", "split", "hooks", "wrap", "formats", "properties", "spirv", "base"]
OWNER = "base/owned.c"
NEVER = ["creat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "rmdir", "mkdir",
         "mkdirat", "remove", "mkstemp", "mkstemps", "mkostemp", "mkostemps", "mkdtemp",
         "tmpfile", "link", "linkat", "symlink", "symlinkat", "truncate"]
CHECKED = ["open", "openat", "open64", "fopen", "fopen64", "freopen"]
# A call of one of those names: not a member (x.open, p->remove), not part of a longer name.
CALL = re.compile(r"(?<![\w.>:])(%s)\s*\(" % "|".join(NEVER + CHECKED))
WRITE_FLAGS = re.compile(r"\bO_(WRONLY|RDWR|CREAT|TRUNC|APPEND)\b")
READ_MODE = re.compile(r'^\s*"(r|rb|re|rbe)"\s*$')
MODE = re.compile(r'^"[rwabex+]{1,4}"$')


def strip(text):
    """The text with comments and string literals blanked (strings keep their quotes, so
    that fopen's mode can still be read), line breaks kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            literal = text[i:j + 1]
            # A mode ("r", "wb+") is kept for fopen's check; any other literal is blanked
            # inside its quotes (a message may say "link (full LTO)").
            if not (c == '"' and MODE.match(literal)):
                literal = c + "".join(ch if ch == "\n" else " " for ch in literal[1:-1]) + c
            out.append(literal)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def arguments(text, start):
    """The argument list of the call whose '(' is at START, split at its top-level commas."""
    depth, args, current = 0, [], []
    for c in text[start:]:
        if c == "(":
            depth += 1
            if depth == 1:
                continue
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(current))
                return args
        elif c == "," and depth == 1:
            args.append("".join(current))
            current = []
            continue
        current.append(c)
    return args


def is_write(name, args):
    if name in NEVER:
        return True
    if name.startswith("fopen") or name == "freopen":
        return len(args) < 2 or not READ_MODE.match(args[1])
    flags = args[2] if name == "openat" else args[1] if len(args) > 1 else ""
    return bool(WRITE_FLAGS.search(flags)) or not re.search(r"\bO_RDONLY\b|\bO_PATH\b", flags)


def violations(root):
    for folder in FOLDERS:
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            continue
        for name in sorted(os.listdir(top)):
            if not name.endswith((".c", ".h", ".cpp")):
                continue
            path = folder + "/" + name
            if path == OWNER:
                continue
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = strip(f.read())
            for m in CALL.finditer(text):
                # A declaration or definition of a function of that name is not a call.
                before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
                if re.search(r"\b(int|void|FILE|char|static|bool)\s*\**\s*$", before):
                    continue
                if not is_write(m.group(1), arguments(text, m.end() - 1)):
                    continue
                line = text.count("\n", 0, m.start()) + 1
                yield "%s:%d: %s() outside %s: create, rename and remove through it (own_create, " \
                      "own_create_temporary, own_rename, own_remove, own_mkdir, ...)" % (
                          path, line, m.group(1), OWNER)


def self_test():
    import tempfile
    calls = {
        "base/a.c": 'int f(void) { return open(p, O_WRONLY | O_CREAT | O_TRUNC, 0666); }',
        "hooks/b.c": 'void f(void) { unlink(path); }',
        "lto/c.c": 'void f(void) { mkdir(dir, 0777); }',
        "tool/d.c": 'void f(void) { FILE *f = fopen(stamp, "w"); }',
        "spirv/e.c": 'void f(void) { rename(a, b); }',
        "wrap/f.c": 'void f(void) { rmdir(d); remove(x); }',
        "split/g.cpp": 'void f() { int fd = openat(dir, name, O_RDWR); }',
    }
    allowed = {
        "formats/h.c": '// unlink(x) in a comment\nvoid f(void) { int fd = open(p, O_RDONLY);'
                       ' FILE *g = fopen(q, "r"); const char *s = "rename(a, b)"; x.remove(1); '
                       'remove_on_failure(p); own_remove(p); }',
        "base/owned.c": 'void f(void) { unlink(p); }',
    }
    with tempfile.TemporaryDirectory() as root:
        for folder in FOLDERS:
            os.mkdir(os.path.join(root, folder))
        for path, text in list(calls.items()) + list(allowed.items()):
            with open(os.path.join(root, path), "w") as f:
                f.write(text + "\n")
        found = list(violations(root))
    expected = len(calls) + 1  # wrap/f.c holds two
    if len(found) != expected:
        print("self-test: expected %d calls, found %d:\n%s" % (expected, len(found),
                                                               "\n".join(found)))
        return 1
    print("self-test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(check_main(violations, self_test,
                        lambda found: "%d raw file-system call(s) outside %s"
                                 % (len(found), OWNER) if found else "file-system owner: ok"))
