#!/usr/bin/env python3
# Kills a link at several moments with each ending signal and checks what it leaves behind:
#   kill.py OUTPUT TMPDIR FRACTIONS SIGNALS COMMAND...
# The command runs to the end twice (it must succeed) to time it; then, for each signal
# (INT,TERM,HUP) and each fraction of that time (0.1,0.3,0.6), it is started again with
# TMPDIR in its environment, sent the signal at that moment, and must
#   - end by that signal (its exit status says so),
#   - leave nothing at OUTPUT or beside it (OUTPUT.*) and nothing in TMPDIR,
#   - leave no process behind: none whose command line names OUTPUT or TMPDIR (the link's
#     spawner and SPIR-V workers are forks of it, a wrapper's device link names TMPDIR),
#     within five seconds.
# Prints one line per run, "SIG at F: ..." ending in "ok" or in what went wrong.
import os
import signal
import subprocess
import sys
import time


def ancestors():
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        with open("/proc/%d/stat" % pid) as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    return pids


def processes_naming(words, exclude):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude:
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmdline = f.read().decode(errors="replace")  # empty for a zombie
        except OSError:
            continue
        if any(w in cmdline for w in words):
            found.append("%s %s" % (entry, cmdline.replace("\0", " ")[:80]))
    return found


def processes_left(output, tmpdir, exclude):
    """The processes of a killed link still running five seconds after it ended (none whose
    command line names OUTPUT or TMPDIR may be left), checked every 50 ms until then."""
    deadline = time.monotonic() + 5
    while True:
        running = processes_naming([os.path.abspath(output), tmpdir], exclude)
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.05)


def default_signals():
    # A shell runs background jobs with SIGINT ignored, and an ignored signal stays ignored.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def leftovers(output, tmpdir):
    folder, name = os.path.split(os.path.abspath(output))
    left = [f for f in os.listdir(folder) if f == name or f.startswith(name + ".")]
    return left + ["TMPDIR/" + f for f in os.listdir(tmpdir)]


def main():
    output, tmpdir, fractions, signals = sys.argv[1:5]
    command = sys.argv[5:]
    env = dict(os.environ, TMPDIR=tmpdir)
    os.makedirs(tmpdir, exist_ok=True)
    exclude = ancestors()

    duration = None
    for _ in range(2):  # the shorter of two: the first may read cold files
        start = time.monotonic()
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
        took = time.monotonic() - start
        duration = took if duration is None else min(duration, took)
        if not os.path.exists(output):
            sys.exit("kill.py: the link wrote no output")
        os.unlink(output)

    for sig_name in signals.split(","):
        sig = getattr(signal, "SIG" + sig_name)
        for fraction in fractions.split(","):
            moment = "SIG%s at %s" % (sig_name, fraction)
            # On a loaded machine a link may end sooner than the timed one did, even between
            # the check that it still runs and the signal: the moment is tried again,
            # earlier, up to three times.
            outcome = None
            for attempt in range(3):
                p = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=default_signals)
                time.sleep(duration * float(fraction) / 2 ** attempt)
                if p.poll() is None:
                    p.send_signal(sig)  # a no-op if it has ended since the poll
                    try:
                        p.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        outcome = "still running 30 s after the signal"
                        break
                    if p.returncode != 0:
                        break
                outcome = "finished before the signal (exit status %d)" % p.returncode
                for f in leftovers(output, tmpdir):
                    path = os.path.join(tmpdir, f[7:]) if f.startswith("TMPDIR/") else \
                        os.path.join(os.path.dirname(os.path.abspath(output)), f)
                    if os.path.isfile(path):
                        os.unlink(path)
            if outcome and p.returncode != -sig:
                print("%s: %s" % (moment, outcome))
                continue
            if p.returncode != -sig:
                print("%s: exit status %d, not killed by the signal" % (moment, p.returncode))
                continue
            running = processes_left(output, tmpdir, exclude)
            left = leftovers(output, tmpdir)
            if running:
                print("%s: processes left: %s" % (moment, "; ".join(running)))
            elif left:
                print("%s: files left: %s" % (moment, " ".join(sorted(left))))
            else:
                print("%s: killed, nothing left: ok" % moment)


if __name__ == "__main__":
    main()
