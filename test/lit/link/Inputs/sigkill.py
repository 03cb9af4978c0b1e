#!/usr/bin/env python3
# SIGKILL leaves a link no handler: what it had made stays. The next link must remove it.
#   sigkill.py OUTPUT TMPDIR FRACTIONS COMMAND...
# The command runs to the end once (it must succeed) to time it and to keep its output as the
# reference. Then, for each fraction of that time (0.3,0.6), it is started again with TMPDIR
# in its environment and killed by SIGKILL at that moment (a moment that left nothing, the
# link not having made anything yet, is tried again later; one after it had ended, earlier).
# Then
#   - within five seconds no process of it is left (its spawner and SPIR-V workers die with
#     it: none whose command line names OUTPUT or TMPDIR),
#   - the command runs again to the end, and afterwards nothing of the first is left: beside
#     OUTPUT only OUTPUT itself, TMPDIR empty; and OUTPUT is the reference, byte for byte.
# Prints one line per moment: "SIGKILL at F: N left, the next link removed them: ok", or
# what went wrong.
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kill import ancestors, leftovers, processes_left  # noqa: E402


def main():
    output, tmpdir, fractions = sys.argv[1:4]
    command = sys.argv[4:]
    env = dict(os.environ, TMPDIR=tmpdir)
    os.makedirs(tmpdir, exist_ok=True)
    exclude = ancestors()

    start = time.monotonic()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    duration = time.monotonic() - start
    with open(output, "rb") as f:
        reference = f.read()
    os.unlink(output)

    for fraction in fractions.split(","):
        moment = "SIGKILL at %s" % fraction
        left, scale = [], 1.0
        for attempt in range(5):
            p = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(duration * float(fraction) * scale)
            p.kill()
            p.wait()
            running = processes_left(output, tmpdir, exclude)
            if running:
                break
            left = [f for f in leftovers(output, tmpdir) if f != os.path.basename(output)]
            if os.path.exists(output):  # it finished first: tried again, earlier
                os.unlink(output)
                scale *= 0.6
            elif left:
                break
            else:  # it had made nothing yet: tried again, later
                scale *= 1.4
        if running:
            print("%s: processes left: %s" % (moment, "; ".join(running)))
            continue
        if not left:
            print("%s: the link left nothing to remove" % moment)
            continue
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
        still = [f for f in leftovers(output, tmpdir) if f != os.path.basename(output)]
        with open(output, "rb") as f:
            same = f.read() == reference
        os.unlink(output)
        if still:
            print("%s: left after the next link: %s" % (moment, " ".join(sorted(still))))
        elif not same:
            print("%s: the next link's output differs from the reference" % moment)
        else:
            print("%s: %d left, the next link removed them: ok" % (moment, len(left)))


if __name__ == "__main__":
    main()
