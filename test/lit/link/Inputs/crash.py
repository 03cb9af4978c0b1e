#!/usr/bin/env python3
# Crashes a command at a known point for real: COMMAND reads the FIFO FIFO (held open here, so
# it blocks there), gets SIGNAL there (as a crash of its own would deliver it), and must then
# exit with EXIT_INTERNAL_ERROR (70) having left no file at OUTPUT, beside it or in TMPDIR,
# and no process (its spawner is a fork of it: same command line). Prints its stderr.
#   crash.py FIFO OUTPUT SIGNAL COMMAND...
import os
import signal
import subprocess
import sys
import time

fifo, output, sig, command = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
if os.path.exists(fifo):
    os.unlink(fifo)
os.mkfifo(fifo)
writer = os.open(fifo, os.O_RDWR)  # a writer that never writes: the reader blocks
p = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def blocked_in_fifo(pid):
    try:
        with open("/proc/%d/wchan" % pid) as f:
            return "pipe" in f.read()
    except OSError:
        return False


deadline = time.time() + 60
while not blocked_in_fifo(p.pid) and time.time() < deadline and p.poll() is None:
    time.sleep(0.05)
if p.poll() is not None:
    sys.exit("crash.py: %s ended before it read the FIFO" % command[0])
p.send_signal(getattr(signal, "SIG" + sig))
try:
    _, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit("crash.py: %s hangs after SIG%s" % (command[0], sig))
os.close(writer)
sys.stdout.write(err)
if p.returncode != 70:
    sys.exit("crash.py: exit code %d, not 70" % p.returncode)
folder, name = os.path.split(os.path.abspath(output))
left = [f for f in os.listdir(folder) if f == name or f.startswith(name + ".")]
if left:
    sys.exit("crash.py: left behind: %s" % " ".join(sorted(left)))
time.sleep(0.2)
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == os.getpid():
        continue
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            if os.path.abspath(output).encode() in f.read():
                sys.exit("crash.py: process %s of the command is left" % pid)
    except OSError:
        pass
print("crashed, nothing left: ok")
