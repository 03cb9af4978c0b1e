#!/bin/bash
# Run on the device machine from the repository root with .devpack/devpack2.tar.xz: bin/ (sycl-thinlto,
# sycl-thinlto-base = 6c41921's, sycl-bench, sycl-bench-gen, clang-sycl-linker 22), lib/ (their shared
# libraries from this machine) and out/large-400/obj (sycl-bench --size large's compiled units).
# Recorded in bench/RESULTS.md, 'After the cuts'.
# Device-side: issue 18 after the cuts (not part of the repo).
set -u
R=$PWD
cd /tmp && tar xJf "$R/.devpack/devpack2.tar.xz"
export LD_LIBRARY_PATH=/tmp/lib
O=/tmp/out/large-400/obj
nproc
echo "== sycl-bench new, -j1,16"
/tmp/bin/sycl-bench --size large --no-plot --reuse-objects --jobs 1,16 --out /tmp/out --tool /tmp/bin/sycl-thinlto --gen /tmp/bin/sycl-bench-gen --llvm-bin /tmp/bin 2>&1 | tail -40
echo "== base vs new per source, alternating, -j1 and -j16"
for i in 1 2 3; do
 for b in sycl-thinlto-base sycl-thinlto; do
  for j in 1 16; do
   /usr/bin/time -f "$b -j$j %U user %S sys %e wall %M KB" /tmp/bin/$b link -j$j --no-validate --split=source --device-libs=$O/devicelib.bc $O/u[0-9][0-9][0-9][0-9].o -o /tmp/o.bin 2>&1 | tail -1
  done
 done
 /usr/bin/time -f "upstream %U user %S sys %e wall %M KB" /tmp/bin/clang-sycl-linker $O/u[0-9][0-9][0-9][0-9].dev.o -triple=spirv64-unknown-unknown -arch= --device-libs=$O/devicelib.bc -o /tmp/up.bin 2>&1 | tail -1
done
echo "== 2 cores (taskset 0,2): new per source -j2, upstream"
for i in 1 2 3; do
 taskset -c 0,2 /usr/bin/time -f "new-2c -j2 %U user %S sys %e wall" /tmp/bin/sycl-thinlto link -j2 --no-validate --split=source --device-libs=$O/devicelib.bc $O/u[0-9][0-9][0-9][0-9].o -o /tmp/o.bin 2>&1 | tail -1
 taskset -c 0,2 /usr/bin/time -f "upstream-2c %U user %S sys %e wall" /tmp/bin/clang-sycl-linker $O/u[0-9][0-9][0-9][0-9].dev.o -triple=spirv64-unknown-unknown -arch= --device-libs=$O/devicelib.bc -o /tmp/up.bin 2>&1 | tail -1
done
