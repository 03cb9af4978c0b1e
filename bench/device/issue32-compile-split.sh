#!/bin/bash
# Issue 32: how much of a cold link the split at compile time removes, and what it adds to each
# compile. Run on the device machine from the repository root: PACK (a .tar.zst) holds
# bin/sycl-thinlto, llvm/llvm-offload-binary (LLVM 22's), devicelib.bc and obj/{plain,source,
# kernel}/u*.o: sycl-bench-gen --units 1000 --kernels 8's units compiled with clang++-22 -fsycl
# -c, then each object split by `sycl-thinlto split --split=source` and `--split=kernel` (the
# images clang++ -fsycl -c -B... makes: test/lit/compile/object.test). LIBS is .devpack's
# libs.tar.zst. Recorded in bench/RESULTS.md, "The split at compile time (issue 32)".
#   bench/device/issue32-compile-split.sh PACK LIBS
set -u
PACK=$1 LIBS=$2
# The device has no zstd: a copy of this machine's (with its libraries) may be beside PACK.
Z=zstd
command -v zstd > /dev/null || Z="env LD_LIBRARY_PATH=$(cd "$(dirname "$PACK")" && pwd)/zstd $(cd "$(dirname "$PACK")" && pwd)/zstd/zstd"
W=/tmp/i32
mkdir -p $W && cd $W || exit 1
$Z -dc "$LIBS" | tar xf - && $Z -dc --long=27 "$PACK" | tar xf - || exit 1
export LD_LIBRARY_PATH=$W/lib
# Ours under the name clang++ runs it by; LLVM's found on PATH (there is no LLVM_BINDIR here).
mkdir -p libexec && ln -sf ../bin/sycl-thinlto libexec/llvm-offload-binary
export PATH=$W/llvm:$PATH
T=$W/bin/sycl-thinlto
nproc
timed() { # LABEL COMMAND...: one line "LABEL wall user sys" (the command's children included)
  local label=$1
  shift
  /usr/bin/time -f "$label %e wall %U user %S sys %M KB" "$@"
}

# What the split adds to a compile: clang++ -fsycl -c packages the unit's device bitcode with
# llvm-offload-binary; LLVM's, then ours (per source, then per kernel), 100 units one at a time
# (N_PACKAGE), twice.
N=${N_PACKAGE:-100}
mkdir -p bc
for i in $(seq -f %04g 0 $((N - 1))); do
  llvm-offload-binary obj/plain/u$i.o --image=kind=sycl,file=bc/u$i.bc || exit 1
done
for round in 1 2; do
  timed "package-llvm-$N" sh -c 'for f in bc/*.bc; do llvm-offload-binary -o /tmp/p.out \
    --image=file=$f,triple=spirv64-unknown-unknown,arch=generic,kind=sycl || exit 1; done'
  timed "package-ours-source-$N" sh -c 'for f in bc/*.bc; do libexec/llvm-offload-binary -o /tmp/p.out \
    --image=file=$f,triple=spirv64-unknown-unknown,arch=generic,kind=sycl || exit 1; done'
  timed "package-ours-kernel-$N" env SYCL_THINLTO_DEVICE_CODE_SPLIT=per_kernel sh -c 'for f in bc/*.bc; do \
    libexec/llvm-offload-binary -o /tmp/p.out \
    --image=file=$f,triple=spirv64-unknown-unknown,arch=generic,kind=sycl || exit 1; done'
done

# Cold links at -j16, alternating: the objects as clang++ -fsycl -c writes them (the link
# splits them) and the same split at compile time (the link takes them as they are).
link() { # LABEL OBJDIR OUTPUT [OPTIONS...] ($PIN before the command)
  local label=$1 dir=$2 out=$3
  shift 3
  timed "$label" ${PIN:-} $T link -v "$@" --device-libs=devicelib.bc $dir/u[0-9][0-9][0-9][0-9].o \
    -o $out 2> $OUT/$label.log
  tail -1 $OUT/$label.log
  grep -E "stage (input|split|facts|regroup|resolve|prepare|thinlink|hooks|output)" $OUT/$label.log
}
# Each pair of runs only while the time allows (the device time is counted).
for run in 1 2 3; do
  link "source-plain-j16-$run" obj/plain plain-source.bin -j16
  link "source-split-j16-$run" obj/source split-source.bin -j16
done
for run in 1 2 3; do
  [ $SECONDS -lt 160 ] || break
  link "kernel-plain-j16-$run" obj/plain plain-kernel.bin -j16 --split=kernel
  link "kernel-split-j16-$run" obj/kernel split-kernel.bin -j16 --split=kernel
done
cmp plain-source.bin split-source.bin && echo "per source: same output"
cmp plain-kernel.bin split-kernel.bin && echo "per kernel: same output"
ls -l plain-source.bin plain-kernel.bin | awk '{print $5, $9}'
# Two cores (pinned), per source, if the time allows.
if [ $SECONDS -lt 170 ]; then
  PIN="taskset -c 0,1" link "source-plain-j2" obj/plain plain-source.bin -j2
  PIN="taskset -c 0,1" link "source-split-j2" obj/source split-source.bin -j2
fi
echo "total $SECONDS s"
