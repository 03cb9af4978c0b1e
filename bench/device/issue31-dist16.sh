#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-lead2/pack.tar.xz: bin/ (sycl-thinlto, sycl-thinlto-local of main after the dist2
# merge, 57f69f4, strip -g), obj1000/ (sycl-bench-gen --units 1000 --kernels 8 compiled here,
# devicelib.bc), bench/distributed-overhead.sh. The 16-core rows of issue 31 item 1 with
# several images a job. Recorded in bench/RESULTS.md, 'Distributed overhead'.
set -u
mkdir -p /tmp/d /tmp/p
tar xJf .devpack/libs.tar.xz -C /tmp/d && tar xJf .devpack-lead2/pack.tar.xz -C /tmp/p || exit 3
export LD_LIBRARY_PATH=/tmp/d/lib
cd /tmp/p
echo "cores $(nproc); unpacked at $SECONDS s"
bench/distributed-overhead.sh -r 3 bin obj1000 all 2>&1 | tee "$OUT/dist16.txt"
echo "elapsed $SECONDS s"
