#!/usr/bin/env bash
# make demo: compile the bundled example with clang++-22 -fsycl, link its device code with
# sycl-thinlto (as clang's device linker, through -B), and show the linked images.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
llvm=/usr/lib/llvm-22/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== compiling examples/vector with clang++-22 -fsycl"
for f in main math table; do
  echo "   clang++-22 -fsycl -c $f.cpp"
  "$llvm/clang++" -fsycl -c "$root/examples/vector/$f.cpp" -o "$work/$f.o"
done

echo "== linking device code with sycl-thinlto (ThinLTO, SPIR-V backend)"
"$build/bin/sycl-thinlto" link -v "$work/main.o" "$work/math.o" "$work/table.o" \
  -o "$work/vector.bin" --save-temps 2>&1 | sed 's/^/   /'

echo "== the linked device images (sycl-thinlto inspect)"
"$build/bin/sycl-thinlto" inspect "$work/vector.bin" | sed 's/^/   /'

echo "== SPIR-V entry points and functions of image 0 (spirv-dis)"
spirv-dis "$work/vector.bin.0.spv" | grep -E 'OpEntryPoint|OpFunction |OpName %_Z' | sed 's/^/   /'

echo "== the same link as clang++'s device linker: -B$build/libexec/sycl-thinlto/"
cat >"$work/runtime_stub.c" <<'STUB'
#include <stdio.h>
struct desc { unsigned short version, num_images; };
void __sycl_register_lib(struct desc *d) { printf("   runtime: %u device image(s) registered\n", d->num_images); }
void __sycl_unregister_lib(struct desc *d) { (void)d; }
STUB
"$llvm/clang" -c "$work/runtime_stub.c" -o "$work/runtime_stub.o"
"$llvm/clang++" -fsycl "$work/main.o" "$work/math.o" "$work/table.o" "$work/runtime_stub.o" \
  -o "$work/vector" -Wl,--device-compiler=spirv64-unknown-unknown=-B"$build/libexec/sycl-thinlto/"
"$work/vector"
echo "== done"
