#!/usr/bin/env bash
# Ahead-of-time compilation (issue 33): the wall and CPU time of upstream's flow -- its link
# (clang-sycl-linker 22, one module), then ocloc over that one module -- against ours, every
# image through ocloc in parallel (`link --arch=DEVICE -jN --cache-dir`), on the same inputs;
# then the relink after one edited unit (sycl-bench-gen --edit), where ours recompiles the
# edited unit's image only and upstream's flow redoes everything.
# Usage: aot.sh BUILD_DIR [UNITS] [KERNELS] [DEVICE] [WORK_DIR]   (defaults: 40 4 pvc, a temp dir)
# JOBS=N: our -j (default: every core). Needs ocloc (intel-opencl-icd).
set -euo pipefail
build=$(cd "${1:?usage: aot.sh BUILD_DIR [UNITS] [KERNELS] [DEVICE] [WORK_DIR]}" && pwd)
units=${2:-40} kernels=${3:-4} device=${4:-pvc}
work=${5:-$(mktemp -d)}
jobs=${JOBS:-$(nproc)}
mkdir -p "$work" && cd "$work"
tool=$build/bin/sycl-thinlto
export PATH=$build/bin:/usr/lib/llvm-22/bin:$PATH
compile() { # SOURCE_DIR: fat objects (ours) and bare device bitcode (upstream's input)
  ls "$1"/*.cpp | xargs -P"$(nproc)" -I{} clang++ -fsycl -O2 -Xclang -flto=thin \
    -Xclang -flto-unit -c {} -o {}.o
  for o in "$1"/*.cpp.o; do
    llvm-objcopy --dump-section=.llvm.offloading="${o%.o}.off" "$o" /dev/null
    llvm-offload-binary "${o%.o}.off" --image=file="${o%.cpp.o}.dev.o"
  done
}
if [ ! -d w ]; then
  sycl-bench-gen --units "$units" --kernels "$kernels" -o w >/dev/null
  sycl-bench-gen --units "$units" --kernels "$kernels" --edit 1 -o edited >/dev/null
  llvm-as w/devicelib.ll -o w/devicelib.bc
  compile w
  compile edited
fi
# The relink's inputs: unit 0 edited, the others as before.
relink_objs=(edited/u0000.cpp.o $(ls w/*.cpp.o | tail -n +2))
relink_dev=(edited/u0000.dev.o $(ls w/u*.dev.o | tail -n +2))
ocloc_args=(-spirv_input -device "$device" -output_no_suffix -internal_options -cl-intel-allow-zebin)
row() { # NAME, then the time file(s) of its steps: wall and CPU summed
  local name=$1 wall=0 cpu=0 w u s
  shift
  for f in "$@"; do
    read -r w u s <"$f"
    wall=$(echo "$wall + $w" | bc)
    cpu=$(echo "$cpu + $u + $s" | bc)
  done
  printf '%-44s %8.2f %8.2f\n' "$name" "$wall" "$cpu"
}
upstream() { # OUT, then device bitcode: link, then ocloc over the one module
  local out=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$out.link.time" clang-sycl-linker "$@" \
    -triple=spirv64-unknown-unknown -arch= --device-libs=w/devicelib.bc -o "$out.bin"
  llvm-offload-binary "$out.bin" --image=file="$out.spv",triple=spirv64-unknown-unknown
  /usr/bin/time -f "%e %U %S" -o "$out.ocloc.time" ocloc compile -file "$out.spv" \
    "${ocloc_args[@]}" -output "$out.zebin" >"$out.ocloc.log" 2>&1
}
ours() { # OUT, then the objects
  local out=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$out.time" "$tool" link --arch="$device" -j"$jobs" \
    --cache-dir=cache --device-libs=w/devicelib.bc "$@" -o "$out.bin" -v 2>"$out.log"
}
rm -rf cache
printf '%-44s %8s %8s\n' "$units units x $kernels kernels, $device, -j$jobs" wall_s cpu_s
upstream up w/u*.dev.o
row "upstream: clang-sycl-linker" up.link.time
row "upstream: ocloc over its one module" up.ocloc.time
row "upstream flow: link + ocloc" up.link.time up.ocloc.time
ours cold w/*.cpp.o
row "sycl-thinlto --arch, cold cache" cold.time
ours relink "${relink_objs[@]}"
row "sycl-thinlto --arch, relink after one edit" relink.time
upstream uprelink "${relink_dev[@]}"
row "upstream flow, relink after one edit" uprelink.link.time uprelink.ocloc.time
grep -h "aot: " cold.log relink.log | sed 's/^sycl-thinlto: note: /  /'
"$tool" inspect cold.bin | grep -c ': object$' | sed 's/^/  native images in our output: /'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; work dir $work"
