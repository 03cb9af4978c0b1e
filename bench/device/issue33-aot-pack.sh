#!/bin/bash
# Builds .devpack-aot2/ on the dev machine for issue33-aot-link.sh and issue33-aot-pinned.sh
# (the whole --arch link on the device machine). Carried with .devpack/ (LLVM 22's libraries,
# 31.9 MB): 63.6 MB in all, under the 64 MiB of one call.
# - ocloc14.tar.xz (30.9 MB): ocloc and only what it loads for -spirv_input (LD_DEBUG=libs:
#   libocloc, libigc, LLVM 14, LLVMSPIRVLib; not libclang-cpp, libopencl-clang, libigdfcl,
#   libiga64, which compile OpenCL C or disassemble). Its other libraries (libstdc++, libxml2,
#   libedit, libffi, ... and the libz3/libicudata stubs) are .devpack's, shared.
# - work.tar.xz (0.8 MB): bin/ (sycl-thinlto of this branch, sycl-thinlto-base = main's,
#   clang-sycl-linker and llvm-offload-binary 22, strip -g), aot.sh, w/ and edited/ as
#   bench/aot.sh makes them (40 x 4 compiled here), spv/ (the 40 images' SPIR-V and upstream's
#   one module, from the lead's .devpack-aot/spv.tar).
# Usage: issue33-aot-pack.sh BUILD BASE_BINARY AOT_WORK_DIR SPV_TAR OUT_DIR
set -euo pipefail
build=$1 base=$2 work=$3 spv=$4 out=$5
t=$(mktemp -d)
mkdir -p "$t/pk/bin" "$t/pk/lib" "$t/wk/bin" "$t/wk/w" "$t/wk/edited" "$t/wk/spv" "$out"
cp /usr/bin/ocloc "$t/pk/bin/"
cp -L /lib/x86_64-linux-gnu/{libocloc.so,libigc.so.1,libLLVM-14.so.1,libLLVMSPIRVLib.so.14} \
  "$t/pk/lib/"
tar cf - -C "$t/pk" bin lib | xz -9e >"$out/ocloc14.tar.xz"
cp "$build/bin/sycl-thinlto" "$t/wk/bin/"
cp "$base" "$t/wk/bin/sycl-thinlto-base"
cp /usr/lib/llvm-22/bin/{clang-sycl-linker,llvm-offload-binary} "$t/wk/bin/"
strip -g "$t/wk/bin/"*
cp "$(dirname "$0")/../aot.sh" "$t/wk/"
cp "$work"/w/*.cpp.o "$work"/w/*.dev.o "$work"/w/devicelib.bc "$t/wk/w/"
cp "$work"/edited/u0000.cpp.o "$work"/edited/u0000.dev.o "$t/wk/edited/"
tar xf "$spv" -C "$t/wk/spv"
tar cf - -C "$t/wk" . | xz -9 >"$out/work.tar.xz"
rm -rf "$t"
ls -l "$out"
