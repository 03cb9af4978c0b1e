#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-lead/pack.tar.xz: bin/sycl-thinlto (main after the cachecold, relink2 and aot2
# merges, strip -g), w/ (sycl-bench-gen --units 200 --kernels 8 compiled here: *.o,
# devicelib.bc) and bench/cache.sh (each cold link in a cache folder of its own, none removed
# before the end; REMOVE=1 the former protocol). Recorded in bench/RESULTS.md, 'The cache's cost'.
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz
echo "cores: $(nproc); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
RUNS=3 ./cache.sh bin/sycl-thinlto w 16 2>&1 | tee "$OUT/cache16.txt"
echo "elapsed $SECONDS s"
RUNS=3 ./cache.sh bin/sycl-thinlto w 2 2>&1 | tee "$OUT/cache2.txt"
echo "elapsed $SECONDS s"
if [ "$SECONDS" -lt 200 ]; then
  RUNS=1 REMOVE=1 ./cache.sh bin/sycl-thinlto w 16 2>&1 | sed 's/^/REMOVE=1 /' | tee "$OUT/cache16-remove.txt"
  echo "elapsed $SECONDS s"
fi
