#!/bin/bash
# Issue 32, session 5: main at 86ea2d2 (bin/fin) against the same with the cache hits'
# mapped entries left mapped until the exit (bin/fin2), one-unit relinks of 1000 units on 16
# cores in turn (issue32-s5-abab-inner.sh). Run as `bash bench/device/issue32-s5-unmap.sh`
# with carry .devpack, .devpack-lead, .devpack-s5, .devpack-s5c, .devpack-s5g.
set -u
REPO=$PWD
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz .devpack-s5/pack.tar.xz .devpack-s5c/pack.tar.xz \
  .devpack-s5g/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
BINS="fin fin2" PAIRS=6 bash "$REPO/bench/device/issue32-s5-abab-inner.sh"
echo "== 2 cores"
for b in fin fin2; do KINDS="edit" taskset -c 0,1 $REPO/bench/relink.sh bin/$b n30 n300 2 7; done
echo "elapsed $SECONDS s"
