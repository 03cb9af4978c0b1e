#!/bin/bash
# Device side of issue 33's whole --arch link, first call (pack: issue33-aot-pack.sh, ours at
# 773dbd4: fixed batches of five images an ocloc multi): bench/aot.sh on the 40 x 4 workload,
# upstream's flow (clang-sycl-linker 22, then ocloc over its one module) against ours, cold
# and the relink after one edit, on 16 cores, then pinned to cores 0,1 with base (main's, one
# ocloc process an image) beside ours. Recorded in bench/RESULTS.md, 'Ahead of time for
# Intel GPUs'.
set -u
R=$PWD/.devpack-aot2
x() { tar xJf "$1" -C "$2" 2>/dev/null || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$1" "$2"; }
mkdir -p /tmp/d /tmp/w
x .devpack/libs.tar.xz /tmp/d || exit 3
x $R/ocloc14.tar.xz /tmp/d || exit 3
x $R/work.tar.xz /tmp/w || exit 3
export LD_LIBRARY_PATH=/tmp/d/lib PATH=/tmp/d/bin:/tmp/w/bin:$PATH
cd /tmp/w
nproc; ocloc compile --help 2>&1 | grep -c pvc; clang-sycl-linker --version | head -2
S=/tmp/w/aot.sh
# On 16 cores ours and base run the same way (40 images, -j16: one image a batch).
RUNS=${RUNS16:-2} bash $S /tmp/w 40 4 pvc /tmp/w 2>&1 | tee $OUT/aot16.txt
BASE=/tmp/w/bin/sycl-thinlto-base CORES=2 RUNS=${RUNS2:-2} bash $S /tmp/w 40 4 pvc /tmp/w 2>&1 | tee $OUT/aot2.txt
cat /proc/cpuinfo | grep -m1 "model name"
