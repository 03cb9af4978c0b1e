#!/bin/bash
# Run on the device machine from the repository root with .devpack/devpack2.tar.xz: bin/ (sycl-thinlto,
# sycl-thinlto-base = 6c41921's, sycl-bench, sycl-bench-gen, clang-sycl-linker 22), lib/ (their shared
# libraries from this machine) and out/large-400/obj (sycl-bench --size large's compiled units).
# Recorded in bench/RESULTS.md, 'After the cuts'.
set -u
R=$PWD
cd /tmp && tar xJf "$R/.devpack/devpack2.tar.xz"
export LD_LIBRARY_PATH=/tmp/lib
O=/tmp/out/large-400/obj
mkdir -p $OUT
for i in 1 2 3; do
/usr/bin/time -f "new -j16 %U user %S sys %e wall" /tmp/bin/sycl-thinlto link -v -j16 --no-validate --split=source --device-libs=$O/devicelib.bc $O/u[0-9][0-9][0-9][0-9].o -o /tmp/o.bin --time-trace=$OUT/t16-$i.json 2>&1 | grep -E "stage|wall"
/usr/bin/time -f "upstream %U user %S sys %e wall" /tmp/bin/clang-sycl-linker $O/u[0-9][0-9][0-9][0-9].dev.o -triple=spirv64-unknown-unknown -arch= --device-libs=$O/devicelib.bc -o /tmp/up.bin 2>&1 | tail -1
done
/usr/bin/time -f "new -j1 %U user %S sys %e wall" /tmp/bin/sycl-thinlto link -v -j1 --no-validate --split=source --device-libs=$O/devicelib.bc $O/u[0-9][0-9][0-9][0-9].o -o /tmp/o.bin --time-trace=$OUT/t1.json 2>&1 | grep -E "stage|wall"
