#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-lead/: bin/sycl-bench-spec-floor and bin/sycl-thinlto (strip -g) and big.ll
# (test/lit/post-link/Inputs/spec_big.py 1000000). Our lowering of the 1 000 000-element
# specialization constant against LLVM's floor, side by side, then the whole sycl-post-link
# command. Recorded in bench/RESULTS.md, 'A large specialization constant'.
set -u
mkdir -p /tmp/d
if command -v xz >/dev/null; then tar xJf .devpack/libs.tar.xz -C /tmp/d
else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' .devpack/libs.tar.xz /tmp/d; fi
export LD_LIBRARY_PATH=/tmp/d/lib
B=.devpack-lead/bin
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
$B/sycl-bench-spec-floor -r 7 1000000 .devpack-lead/big.ll
mkdir -p /tmp/pl && ln -sf "$PWD/$B/sycl-thinlto" /tmp/pl/sycl-post-link
for i in 1 2 3; do
  /usr/bin/time -f 'sycl-post-link whole command: %U user %S sys %e wall %M KB' \
    /tmp/pl/sycl-post-link -properties -spec-const=native .devpack-lead/big.ll -o /tmp/pl/big.table 2>&1 ||
  { TIMEFORMAT='sycl-post-link whole command: %U user %S sys %R wall'; time /tmp/pl/sycl-post-link -properties -spec-const=native .devpack-lead/big.ll -o /tmp/pl/big.table; }
done
echo "elapsed $SECONDS s"
