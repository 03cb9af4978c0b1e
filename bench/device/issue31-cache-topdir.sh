#!/bin/bash
# Device call of the cachepack helper (issue 31 item 2): bin/sycl-thinlto (cachepack: the entries'
# folder marked FS_TOPDIR_FL) against bin/sycl-thinlto-base (main 6046726), the 200 x 8 objects
# (w/), bench/cache.sh (a cache folder per cold link). Modelled on bench/device/issue31-cache-protocol.sh.
set -u
. bench/device/setup.sh
device_setup .devpack-cachepack/pack.tar.xz
echo "cores: $(nproc); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null); jbd2: $(ls /proc/fs/jbd2 2>/dev/null | tr '\n' ' ')"
BASE=bin/sycl-thinlto-base RUNS=3 ./cache.sh bin/sycl-thinlto w 16 2>&1 | tee "$OUT/cache16.txt"
echo "elapsed $SECONDS s"
RUNS=3 ./cache.sh bin/sycl-thinlto w 2 2>&1 | tee "$OUT/cache2.txt"
echo "elapsed $SECONDS s"
if [ "$SECONDS" -lt 170 ]; then
  RUNS=1 ./cache.sh bin/sycl-thinlto-base w 2 2>&1 | sed 's/^/base /' | tee "$OUT/cache2-base.txt"
  echo "elapsed $SECONDS s"
fi
mkdir -p /tmp/q && bin/sycl-thinlto link --split=kernel -j16 --device-libs=w/devicelib.bc w/*.o -o /tmp/q/o.bin --cache-dir=/tmp/q/c && (lsattr -d /tmp/q/c/sycl-thinlto-5 2>&1 || echo "no lsattr") | tee "$OUT/attr.txt"
echo "elapsed $SECONDS s"
