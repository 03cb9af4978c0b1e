#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-lead/pack.tar.xz: bin/main (a scratch build of aa2a12a whose output writer thread
# called sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) after each batch it wrote; not kept,
# strip -g), bin/prev (aa2a12a, without it), bench/relink.sh, n300/ n1000/
# (bench/relink-objects.sh). One-unit relinks at 16 cores, the two binaries side by side.
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc)"
for r in 1 2; do
  for b in main prev; do
    echo "== relink $b, 16 cores"; KINDS="none edit" bench/relink.sh bin/$b n300 n1000 16 3
  done
done
echo "elapsed $SECONDS s"
