#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-lead/pack.tar.xz: bin/main (main at the end of the session of 2026-11-29 08:40-11:40,
# d18ff2b, strip -g), bin/base (main at 8dbeb69, the session's start), cache.sh and w/ (the
# 200 x 8 objects of the cache sections), bench/relink.sh and n30/ n300/ n1000/
# (bench/relink-objects.sh). The cold cache's cost (every link a fresh TMPDIR) and the relinks,
# main against the session's start, in one call. Recorded in bench/RESULTS.md.
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
echo "== relink main, 16 cores"; KINDS="none edit" bench/relink.sh bin/main n300 n1000 16 3
echo "== relink base, 16 cores"; KINDS="none edit" bench/relink.sh bin/base n300 n1000 16 3
echo "elapsed $SECONDS s"
echo "== relink main, 2 cores"; KINDS="none edit" taskset -c 0,1 bench/relink.sh bin/main n30 n300 2 3
echo "== relink base, 2 cores"; KINDS="none edit" taskset -c 0,1 bench/relink.sh bin/base n30 n300 2 3
echo "elapsed $SECONDS s"
echo "== cache, TMPDIR_PER_LINK=1, 16 cores"; TMPDIR_PER_LINK=1 BASE=bin/base RUNS=3 ./cache.sh bin/main w 16
echo "elapsed $SECONDS s"
