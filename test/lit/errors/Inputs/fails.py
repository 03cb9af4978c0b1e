#!/usr/bin/env python3
# Runs COMMAND, which must fail the way bad input does: exit code 1 (not a crash, not a
# hang), and nothing left at OUTPUT: neither OUTPUT nor a temporary beside it (OUTPUT.*).
# Prints COMMAND's stderr, for FileCheck.
#   fails.py OUTPUT COMMAND...      (OUTPUT "-": a command that writes no file)
import os
import subprocess
import sys

output, command = sys.argv[1], sys.argv[2:]
try:
    p = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=120)
except subprocess.TimeoutExpired:
    sys.exit("fails.py: %s hangs" % command[0])
sys.stdout.write(p.stderr)
if p.returncode != 1:
    sys.exit("fails.py: exit code %d, not 1" % p.returncode)
if output != "-":
    folder, name = os.path.split(os.path.abspath(output))
    files = os.listdir(folder) if os.path.isdir(folder) else []
    left = [f for f in files if f == name or f.startswith(name + ".")]
    if left:
        sys.exit("fails.py: left behind: %s" % " ".join(sorted(left)))
