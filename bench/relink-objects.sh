#!/bin/bash
# Compiles a program for bench/relink.sh: bench/relink-objects.sh GEN UNITS DIR [CLANGXX]
# writes DIR/base/ (UNITS units of 8 kernels from sycl-bench-gen GEN, each compiled with
# clang++ -fsycl -c, and devicelib.bc), DIR/edit/u0000.o (unit 0 with another constant) and
# DIR/hdr/ (every unit compiled again with bench.h's template changed).
set -euo pipefail
GEN=$(realpath "$1"); N=$2; D=$3; CXX=${4:-/usr/lib/llvm-22/bin/clang++}
LLVM_AS=$(dirname "$CXX")/llvm-as
mkdir -p "$D"; D=$(realpath "$D")
rm -rf "$D"/{src,src-edit,src-hdr,base,edit,hdr}
mkdir -p "$D"/{base,edit,hdr}
"$GEN" --units "$N" --kernels 8 -o "$D/src"
"$GEN" --units "$N" --kernels 8 --edit 1 -o "$D/src-edit"
cp -r "$D/src" "$D/src-hdr"
sed -i 's/r \* T(0.5)/r * T(0.25)/' "$D/src-hdr/bench.h"
grep -q 'T(0.25)' "$D/src-hdr/bench.h"
compile() { # SRC OUT
  (cd "$1" && ls u*.cpp | sed 's/\.cpp$//' | xargs -P"$(nproc)" -I{} "$CXX" -fsycl -c {}.cpp -o "$2/{}.o")
}
compile "$D/src" "$D/base"
compile "$D/src-hdr" "$D/hdr"
(cd "$D/src-edit" && "$CXX" -fsycl -c u0000.cpp -o "$D/edit/u0000.o")
"$LLVM_AS" "$D/src/devicelib.ll" -o "$D/base/devicelib.bc"
