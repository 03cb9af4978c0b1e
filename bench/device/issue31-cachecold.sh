#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-cachecold/pack.tar.xz: bin/ (sycl-thinlto at 1def22d, sycl-thinlto-base = main
# da5c39c, both strip -g), w/ (sycl-bench-gen --units 200 --kernels 8 compiled here: *.o,
# devicelib.bc) and bench/cache.sh (then removing the cache before each cold link: REMOVE=1
# now). Recorded in bench/RESULTS.md, 'The cache's cost'.
set -u
. bench/device/setup.sh
device_setup .devpack-cachecold/pack.tar.xz
echo "cores: $(nproc); $(uname -r); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
echo "jbd2: $(ls /proc/fs/jbd2 2>/dev/null | tr '\n' ' ')"; echo "unpacked at $SECONDS s"
BASE=/tmp/p/bin/sycl-thinlto-base RUNS=3 REMOVE=1 ./cache.sh bin/sycl-thinlto w 16 | tee "$OUT/cache16.txt"
echo "elapsed $SECONDS s"
BASE=/tmp/p/bin/sycl-thinlto-base RUNS=3 REMOVE=1 ./cache.sh bin/sycl-thinlto w 2 | tee "$OUT/cache2.txt"
echo "elapsed $SECONDS s"
