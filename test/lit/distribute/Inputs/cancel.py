#!/usr/bin/env python3
"""Starts a link whose jobs wait to be cancelled, sends it SIGNAL once a job runs, then checks
that the link ended by that signal and that no distributor or job process, no job file and no
output is left. Usage: cancel.py SIGNAL OUTPUT LINK-COMMAND..."""
import glob, os, signal, subprocess, sys, time

sig = getattr(signal, "SIG" + sys.argv[1])
output, command = sys.argv[2], sys.argv[3:]
jobs_glob = output + ".jobs.*"

def processes_of(pattern):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
        except OSError:
            continue
        if pattern in cmdline:
            found.append((int(pid), cmdline.replace("\0", " ")))
    return found

def default_signals():
    # A shell runs background jobs with SIGINT ignored, and an ignored signal stays ignored.
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)

link = subprocess.Popen(command, preexec_fn=default_signals)
deadline = time.time() + 60
jobs_dir = None
while time.time() < deadline:
    dirs = glob.glob(jobs_glob)
    # A job has begun once it has opened its log (a forked job has its runner's command line).
    if dirs and glob.glob(dirs[0] + "/*/image.*.log") and processes_of(dirs[0]):
        jobs_dir = dirs[0]
        break
    time.sleep(0.05)
if not jobs_dir:
    link.kill()
    sys.exit("no job started within 60 s")
time.sleep(0.2)
link.send_signal(sig)
try:
    rc = link.wait(timeout=30)
except subprocess.TimeoutExpired:
    link.kill()
    sys.exit("the link still runs 30 s after the signal")
if rc != -sig:
    sys.exit(f"the link ended with {rc}, not by signal {sig}")
left = []
for _ in range(50):  # the distributor and its jobs end within a few seconds
    left = processes_of(jobs_dir)
    if not left:
        break
    time.sleep(0.1)
if left:
    sys.exit(f"left running: {left}")
if glob.glob(jobs_glob) or os.path.exists(output):
    sys.exit(f"left behind: {glob.glob(jobs_glob)} {os.path.exists(output)}")
print(f"cancelled by SIG{sys.argv[1]}, nothing left: ok")
