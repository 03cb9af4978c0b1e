#!/bin/bash
# Second device call of the cachepack helper: the same binaries as run.sh (bin/sycl-thinlto at
# d2e84dc, bin/sycl-thinlto-base main 6046726), bench/cache.sh with TMPDIR_PER_LINK=1 (every link
# a TMPDIR of its own in a folder marked chattr +T, so that no link creates files beside the
# inodes the last uncached link freed).
set -u
. bench/device/setup.sh
device_setup .devpack-cachepack/pack.tar.xz
echo "cores: $(nproc); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
TMPDIR_PER_LINK=1 BASE=bin/sycl-thinlto-base RUNS=3 ./cache.sh bin/sycl-thinlto w 16 2>&1 | tee "$OUT/tmp16.txt"
echo "elapsed $SECONDS s"
TMPDIR_PER_LINK=1 RUNS=2 ./cache.sh bin/sycl-thinlto w 2 2>&1 | tee "$OUT/tmp2.txt"
echo "elapsed $SECONDS s"
if [ "$SECONDS" -lt 120 ]; then
  TMPDIR_PER_LINK=1 RUNS=1 ./cache.sh bin/sycl-thinlto-base w 2 2>&1 | sed 's/^/base /' | tee "$OUT/tmp2-base.txt"
  echo "elapsed $SECONDS s"
fi
