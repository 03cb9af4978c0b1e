#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz),
# .devpack-relink3/pack.tar.xz (n30/ n300/ n1000/: bench/relink-objects.sh's base/ and edit/)
# and .devpack-relink4/pack.tar.xz: bin/main (main at c55d115, relink4's branch point), bin/new
# (relink4), both strip -g; bench/relink.sh, bench/relink-stages.sh. For bench/RESULTS.md,
# 'Unchanged inputs not read': the stages of a one-unit relink of 1000 units at 16 cores for
# both binaries in turn, then bench/relink.sh (nothing changed, one unit edited) for each at 16
# cores (300, 1000 units) and 2 cores (30, 300 units).
set -u
. bench/device/setup.sh
device_setup .devpack-relink3/pack.tar.xz .devpack-relink4/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc); unpacked at $SECONDS s"
echo "== stages, 1000 units, 16 cores"; bench/relink-stages.sh n1000 5 16 bin/main bin/new
echo "elapsed $SECONDS s"
for b in main new; do
  echo "== $b: 16 cores"; KINDS="none edit" bench/relink.sh bin/$b n300 n1000 16 3
done
echo "elapsed $SECONDS s"
for b in main new; do
  echo "== $b: 2 cores"; KINDS="none edit" taskset -c 0,1 bench/relink.sh bin/$b n30 n300 2 3
done
echo "elapsed $SECONDS s"
