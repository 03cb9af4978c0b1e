#!/usr/bin/env bash
# make demo: compile the bundled example with clang++-22 -fsycl, link its device code with
# sycl-thinlto, show the linked images, then link the program through our linker-wrapper
# mode and run its kernels on pocl.
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
  "$llvm/clang++" -fsycl -I"$root/test/runtime" -c "$root/examples/vector/$f.cpp" -o "$work/$f.o"
done

echo "== linking device code with sycl-thinlto (ThinLTO, SPIR-V backend)"
"$build/bin/sycl-thinlto" link -v "$work/main.o" "$work/math.o" "$work/table.o" \
  -o "$work/vector.bin" --save-temps 2>&1 | sed 's/^/   /'

echo "== the linked device images (sycl-thinlto inspect)"
"$build/bin/sycl-thinlto" inspect "$work/vector.bin" | sed 's/^/   /'

echo "== SPIR-V entry points and functions of image 0 (spirv-dis)"
spirv-dis "$work/vector.bin.0.spv" | grep -E 'OpEntryPoint|OpFunction |OpName %_Z' | sed 's/^/   /'

echo "== the whole link through sycl-thinlto's clang-linker-wrapper (-B$build/libexec/sycl-thinlto/)"
echo "   device link, wrapper object with the property sets, host link; the test runtime"
echo "   (test/runtime) registers the images and runs the kernels on pocl"
runtime=$build/test/runtime
"$llvm/clang++" -fsycl "$work/main.o" "$work/math.o" "$work/table.o" -o "$work/vector" \
  -B"$build/libexec/sycl-thinlto/" -L"$runtime" -lsycl_test_runtime -Wl,-rpath,"$runtime"
echo "== running the kernels"
"$work/vector"
echo "== done"
