#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-cachecold/pack.tar.xz: bin/ (sycl-thinlto at 1def22d, sycl-thinlto-base = main
# da5c39c, both strip -g), w/ (sycl-bench-gen --units 200 --kernels 8 compiled here: *.o,
# devicelib.bc) and bench/cache.sh (then removing the cache before each cold link: REMOVE=1
# now). Recorded in bench/RESULTS.md, 'The cache's cost'.
set -u
mkdir -p /tmp/d /tmp/p
unpack() { if command -v xz >/dev/null; then tar xJf "$1" -C "$2"; else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"; fi; }
unpack .devpack/libs.tar.xz /tmp/d
unpack .devpack-cachecold/pack.tar.xz /tmp/p
export LD_LIBRARY_PATH=/tmp/d/lib
cd /tmp/p
echo "cores: $(nproc); $(uname -r); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
echo "jbd2: $(ls /proc/fs/jbd2 2>/dev/null | tr '\n' ' ')"; echo "unpacked at $SECONDS s"
BASE=/tmp/p/bin/sycl-thinlto-base RUNS=3 REMOVE=1 ./cache.sh bin/sycl-thinlto w 16 | tee "$OUT/cache16.txt"
echo "elapsed $SECONDS s"
BASE=/tmp/p/bin/sycl-thinlto-base RUNS=3 REMOVE=1 ./cache.sh bin/sycl-thinlto w 2 | tee "$OUT/cache2.txt"
echo "elapsed $SECONDS s"
