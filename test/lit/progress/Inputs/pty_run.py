"""Runs a command with stdin, stdout and stderr on a pseudo-terminal (as a user's terminal)
and prints what it wrote there, control characters made visible: \\r as <CR>, ESC as <ESC>,
one line per \\r-separated update. Exits with the command's exit status.

usage: pty_run.py COMMAND [ARG...]"""
import os
import pty
import sys

out = bytearray()


def read(fd):
    data = os.read(fd, 4096)
    out.extend(data)
    return data


os.environ.setdefault("TERM", "xterm")
status = pty.spawn(sys.argv[1:], read)
text = out.decode("utf-8", "replace").replace("\x1b", "<ESC>")
for update in text.split("\r"):
    print("<CR>" + update)
sys.exit(os.waitstatus_to_exitcode(status))
