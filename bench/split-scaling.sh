#!/bin/sh
# Times `sycl-thinlto split` on generated DPC++-style modules of N kernels (each with a
# helper of its own, all sharing a SYCL_EXTERNAL function and a table), per kernel and per
# source, to show the split's cost grows linearly with the number of kernels. Not a test.
# Usage: bench/split-scaling.sh [BUILD_DIR] [N...]   (default: build 500 1000 2000 4000)
set -e
BUILD=${1:-build}
[ $# -gt 0 ] && shift
SIZES=${*:-500 1000 2000 4000}
TOOL=$BUILD/bin/sycl-thinlto
LLVM=/usr/lib/llvm-22/bin
OUT=${TMPDIR:-/tmp}/split-scaling.$$
mkdir -p "$OUT"
trap 'rm -rf "$OUT"' EXIT

generate() { # N kernels -> LLVM assembly on stdout
  awk -v n="$1" 'BEGIN {
    print "target triple = \"spir64-unknown-unknown\""
    print "@table = addrspace(1) global [16 x i32] zeroinitializer"
    print "define linkonce_odr spir_func i32 @_Z5innerIiET_S0_(i32 %x) {"
    print "  %y = mul i32 %x, 3\n  ret i32 %y\n}"
    print "define spir_func i32 @_Z10shared_exti(i32 %x) #0 {"
    print "  %y = call spir_func i32 @_Z5innerIiET_S0_(i32 %x)\n  ret i32 %y\n}"
    for (i = 0; i < n; i++) {
      printf "define internal spir_func i32 @helper%d(i32 %%x) {\n", i
      printf "  %%a = mul i32 %%x, %d\n  %%b = add i32 %%a, 7\n  %%c = xor i32 %%b, %%x\n", i
      printf "  %%d = call spir_func i32 @_Z10shared_exti(i32 %%c)\n  ret i32 %%d\n}\n"
      printf "define spir_kernel void @_ZTS6Kernel%d(ptr addrspace(1) %%out) #0 {\n", i
      printf "  %%p = getelementptr [16 x i32], ptr addrspace(1) @table, i64 0, i64 %d\n", i % 16
      printf "  %%t = load i32, ptr addrspace(1) %%p\n"
      printf "  %%v = call spir_func i32 @helper%d(i32 %%t)\n", i
      printf "  store i32 %%v, ptr addrspace(1) %%out\n  ret void\n}\n"
    }
    print "attributes #0 = { \"sycl-module-id\"=\"bench.cpp\" }"
  }'
}

seconds() { # command... -> wall seconds on stdout
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

printf '%8s %12s %10s %14s %12s\n' kernels module_KiB images per_kernel_s per_source_s
for n in $SIZES; do
  generate "$n" > "$OUT/m.ll"
  "$LLVM/llvm-as" "$OUT/m.ll" -o "$OUT/m.bc"
  kernel=$(seconds "$TOOL" split --split=kernel "$OUT/m.bc" -o "$OUT/k.bin")
  source=$(seconds "$TOOL" split --split=source "$OUT/m.bc" -o "$OUT/s.bin")
  images=$("$TOOL" inspect "$OUT/k.bin" | grep -c ': bitcode$')
  printf '%8d %12d %10d %14.3f %12.3f\n' "$n" $(($(stat -c %s "$OUT/m.bc") / 1024)) "$images" \
    "$kernel" "$source"
done
