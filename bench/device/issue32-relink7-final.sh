#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-lead/pack.tar.xz: bin/main (main with relink7's descriptor table grown at start,
# aa2a12a, strip -g), bin/prev (d18ff2b, without it), cache.sh, w/, bench/relink.sh, n30/ n300/
# n1000/ (bench/relink-objects.sh). The relinks, the two binaries side by side.
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc)"
for r in 1 2; do
  echo "== relink main, 16 cores"; KINDS="none edit" bench/relink.sh bin/main n300 n1000 16 3
  echo "== relink prev, 16 cores"; KINDS="none edit" bench/relink.sh bin/prev n300 n1000 16 3
done
echo "elapsed $SECONDS s"
echo "== relink main, 2 cores"; KINDS="none edit" taskset -c 0,1 bench/relink.sh bin/main n30 n300 2 3
echo "== relink prev, 2 cores"; KINDS="none edit" taskset -c 0,1 bench/relink.sh bin/prev n30 n300 2 3
echo "elapsed $SECONDS s"
