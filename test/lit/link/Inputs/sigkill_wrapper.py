#!/usr/bin/env python3
# SIGKILL of the linker-wrapper mode while its device link runs: the device link must end
# too (it dies with its parent), and the next wrapper run removes what the first left.
#   sigkill_wrapper.py OUTPUT TMPDIR KILLED-COMMAND... -- NEXT-COMMAND...
# KILLED-COMMAND is a wrapper whose device link waits for ever (a distributor that sleeps):
# once that `sleep` runs, the wrapper gets SIGKILL. Then within five seconds no process of
# its tree may be left (the device link, its distributor). NEXT-COMMAND then runs to the end,
# and afterwards TMPDIR is empty and nothing but OUTPUT stands beside OUTPUT.
# Prints "SIGKILL of the wrapper: its device link ended, N left, removed by the next: ok", or
# what went wrong.
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kill import leftovers  # noqa: E402


def process_table():
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open("/proc/%s/comm" % entry) as f:
                name = f.read().strip()
        except OSError:
            continue
        table[int(entry)] = (int(fields[1]), fields[0], name)  # parent, state, name
    return table


def descendants(pid, table):
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, _, _) in table.items():
            if ppid == parent:
                found.append(child)
                todo.append(child)
    return found


def alive(pids):
    table = process_table()
    return [p for p in pids if p in table and table[p][1] != "Z"]  # a zombie has ended


def main():
    output, tmpdir = sys.argv[1:3]
    split = sys.argv.index("--")
    killed, following = sys.argv[3:split], sys.argv[split + 1:]
    env = dict(os.environ, TMPDIR=tmpdir)
    os.makedirs(tmpdir, exist_ok=True)

    wrapper = subprocess.Popen(killed, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    tree, deadline = [], time.monotonic() + 60
    while time.monotonic() < deadline and wrapper.poll() is None:
        table = process_table()
        tree = descendants(wrapper.pid, table)
        if any(table[p][2] == "sleep" for p in tree if p in table):
            break
        time.sleep(0.05)
    else:
        wrapper.kill()
        sys.exit("sigkill_wrapper.py: the device link never reached its distributor")
    wrapper.kill()
    wrapper.wait()

    deadline = time.monotonic() + 5
    while alive(tree) and time.monotonic() < deadline:
        time.sleep(0.05)
    running = alive(tree)
    if running:
        for pid in running:
            os.kill(pid, 9)
        print("SIGKILL of the wrapper: processes left: %s" % " ".join(map(str, running)))
        return
    left = leftovers(output, tmpdir)
    subprocess.run(following, env=env, check=True, stdout=subprocess.DEVNULL)
    still = [f for f in leftovers(output, tmpdir) if f != os.path.basename(output)]
    if still:
        print("SIGKILL of the wrapper: left after the next run: %s" % " ".join(sorted(still)))
    elif not left:
        print("SIGKILL of the wrapper: it left nothing to remove")
    else:
        print("SIGKILL of the wrapper: its device link ended, %d left, removed by the next: ok"
              % len(left))


if __name__ == "__main__":
    main()
