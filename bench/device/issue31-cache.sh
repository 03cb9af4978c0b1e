#!/bin/bash
# Run on the device machine from the repository root with .devpack-cache/: libs.tar.xz (the shared
# libraries of .devpack/libs.tar.zst, recompressed: the device has no zstd) and pack.tar.xz: bin/
# (sycl-thinlto at d79a9aa, sycl-thinlto-base = main 85421f7), w/ (sycl-bench-gen --units 200
# --kernels 8 compiled here: *.o, devicelib.bc) and bench/cache.sh. Recorded in bench/RESULTS.md,
# 'The cache's cost'.
set -u
mkdir -p /tmp/d /tmp/p
unpack() { # ARCHIVE DIR: tar's xz if there is one, else python3's tarfile
  if command -v xz >/dev/null; then tar xJf "$1" -C "$2"
  else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"; fi
}
command -v xz >/dev/null || echo "no xz on the device: python3's tarfile"
unpack .devpack-cache/libs.tar.xz /tmp/d
unpack .devpack-cache/pack.tar.xz /tmp/p
export LD_LIBRARY_PATH=/tmp/d/lib
cd /tmp/p
echo "cores: $(nproc); $(uname -r); /tmp on $(df -T /tmp | tail -1 | awk '{print $2}')"
command -v taskset /usr/bin/time | tr '\n' ' '; echo
BASE=/tmp/p/bin/sycl-thinlto-base RUNS=3 ./cache.sh bin/sycl-thinlto w 16 | tee "$OUT/cache16.txt"
echo "elapsed $SECONDS s"
RUNS=2 ./cache.sh bin/sycl-thinlto w 2 | tee "$OUT/cache2.txt"
echo "elapsed $SECONDS s"
if [ "$SECONDS" -lt 150 ]; then
  RUNS=1 ./cache.sh bin/sycl-thinlto-base w 2 | sed 's/ new / base/' | tee "$OUT/cache2-base.txt"
  echo "elapsed $SECONDS s"
fi
