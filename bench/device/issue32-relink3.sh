#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-relink3/pack.tar.xz: bin/new (relink3 at db283e1), bin/base (main as built at 05:24
# UTC, the link's sources as at 6046726), bin/exp (bin/new with release_free_memory skipped
# under an environment switch XX_NOTRIM, built for this measurement only), all strip -g; n30/
# n300/ n1000/ (bench/relink-objects.sh's base/ and edit/); bench/relink.sh; variants.sh and
# stages.sh (bench/device/issue32-relink3-*.sh). Recorded in bench/RESULTS.md, 'Our stages on
# a one-unit relink'. Device call 2 of relink3: bench/relink.sh (nothing changed, one unit
# edited) for new and base at 16 cores (300, 1000 units) and 2 cores (30, 300 units); the
# stages of a one-unit relink of 1000 units in variants (-j8; bin/exp; glibc's heaps grown 64
# MiB at a time); the process's start alone; a 27 MB file renamed over another against renamed
# to a new name.
set -u
. bench/device/setup.sh
device_setup .devpack-relink3/pack.tar.xz
exec > >(tee "$OUT/results2.txt") 2>&1
echo "cores: $(nproc); unpacked at $SECONDS s"
echo "== new: 16 cores"; KINDS="none edit" bench/relink.sh bin/new n300 n1000 16 3
echo "== base: 16 cores"; KINDS="none edit" bench/relink.sh bin/base n300 n1000 16 3
echo "elapsed $SECONDS s"
echo "== new: 2 cores"; KINDS="none edit" taskset -c 0,1 bench/relink.sh bin/new n30 n300 2 3
echo "== base: 2 cores"; KINDS="none edit" taskset -c 0,1 bench/relink.sh bin/base n30 n300 2 3
echo "elapsed $SECONDS s"
./variants.sh 1000 # bench/device/issue32-relink3-variants.sh
for i in 1 2 3 4 5; do s=$(date +%s.%N); bin/new --version > /dev/null; e=$(date +%s.%N); echo "start $(awk "BEGIN {print ($e - $s) * 1000}") ms"; done
python3 - <<'PY'
import os, time
os.chdir('/tmp'); d = os.urandom(27 << 20)
def w(p):
    with open(p, 'wb') as f: f.write(d)
for mode in ['over', 'fresh'] * 3:
    if not os.path.exists('A'): w('A')
    if mode == 'fresh': os.unlink('A')
    w('A.tmp'); t = time.time(); os.rename('A.tmp', 'A'); print('rename', mode, '%.1f ms' % ((time.time() - t) * 1000))
PY
echo "elapsed $SECONDS s"
