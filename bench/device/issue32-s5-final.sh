#!/bin/bash
# Issue 32, session 5, last call: main at the session's end (86ea2d2: bin/fin of .devpack-s5f) against
# its start (a4d9685: bin/cur of .devpack-s5, whose only difference is a scratch note under
# XX_T=1). Per size and core count, the two binaries in turn: bench/relink.sh (medians, every
# relink's output compared with an uncached link's) twice, then at 1000 units on 16 cores
# relinks with spans (issue32-s5-abab.sh's protocol). Run as
# `bash bench/device/issue32-s5-final.sh` with carry .devpack, .devpack-lead, .devpack-s5,
# .devpack-s5c (ts2.py), .devpack-s5f.
set -u
REPO=$PWD
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz .devpack-s5/pack.tar.xz .devpack-s5c/pack.tar.xz \
  .devpack-s5f/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc)"
R=/tmp/p
for round in 1 2; do
  for b in cur fin; do
    echo "== round $round, $b, 16 cores"; KINDS="none edit" $REPO/bench/relink.sh bin/$b n300 n1000 16 5
    echo "== round $round, $b, 2 cores"; KINDS="edit" taskset -c 0,1 $REPO/bench/relink.sh bin/$b n30 n300 2 7
  done
  echo "elapsed $SECONDS s"
done
BINS="cur fin" PAIRS=8 bash $REPO/bench/device/issue32-s5-abab-inner.sh
echo "elapsed $SECONDS s"
