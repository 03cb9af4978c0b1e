#!/usr/bin/env bash
# Ahead-of-time compilation (issue 33): the wall and CPU time of upstream's flow -- its link
# (clang-sycl-linker 22, one module), then ocloc over that one module -- against ours, every
# image through ocloc in parallel (`link --arch=DEVICE -jN --cache-dir`), on the same inputs;
# then the relink after one edited unit (sycl-bench-gen --edit), where ours recompiles the
# edited unit's image only and upstream's flow redoes everything.
# Usage: aot.sh BUILD_DIR [UNITS] [KERNELS] [DEVICE] [WORK_DIR]   (defaults: 40 4 pvc, a temp dir)
# JOBS=N: our -j (default: every core). CORES=N: both flows pinned to the first N cores
# (taskset), and -jN. RUNS=N: each flow N times, every run printed (default 1).
# CPUS=LIST: with CORES, the cores to pin to (taskset -c LIST) instead of the first ones.
# BASE=BINARY: another sycl-thinlto run the same way beside ours (rows "base").
# UPSTREAM=once: upstream's flow in the first run only (it takes the same time every run).
# Needs ocloc (intel-opencl-icd). WORK_DIR holding w/ and edited/ (objects, .dev.o, devicelib.bc)
# is used as it is: no compiler needed (the device machine).
set -euo pipefail
build=$(cd "${1:?usage: aot.sh BUILD_DIR [UNITS] [KERNELS] [DEVICE] [WORK_DIR]}" && pwd)
units=${2:-40} kernels=${3:-4} device=${4:-pvc}
work=${5:-$(mktemp -d)}
runs=${RUNS:-1}
pin=()
if [ -n "${CORES:-}" ]; then
  pin=(taskset -c "${CPUS:-0-$((CORES - 1))}")
  jobs=$CORES
else
  jobs=${JOBS:-$(nproc)}
fi
mkdir -p "$work" && cd "$work"
tool=$build/bin/sycl-thinlto
base=${BASE:-}
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
  local name=$1
  shift
  cat "$@" | awk -v name="$name" '{ w += $1; c += $2 + $3 }
    END { printf "%-46s %8.2f %8.2f\n", name, w, c }'
}
timed() { # TIME_FILE COMMAND...: wall, user, sys into TIME_FILE, pinned to CORES
  local out=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$out" ${pin[@]+"${pin[@]}"} "$@"
}
upstream() { # OUT, then device bitcode: link, then ocloc over the one module
  local out=$1
  shift
  timed "$out.link.time" clang-sycl-linker "$@" \
    -triple=spirv64-unknown-unknown -arch= --device-libs=w/devicelib.bc -o "$out.bin"
  llvm-offload-binary "$out.bin" --image=file="$out.spv",triple=spirv64-unknown-unknown
  timed "$out.ocloc.time" ocloc compile -file "$out.spv" \
    "${ocloc_args[@]}" -output "$out.zebin" >"$out.ocloc.log" 2>&1
}
ours() { # TOOL OUT CACHE, then the objects
  local tool=$1 out=$2 cache=$3
  shift 3
  timed "$out.time" "$tool" link --arch="$device" -j"$jobs" --cache-dir="$cache" \
    --device-libs=w/devicelib.bc "$@" -o "$out.bin" -v 2>"$out.log"
}
printf '%-46s %8s %8s\n' "$units units x $kernels kernels, $device, -j$jobs${CORES:+ on cores ${CPUS:-0-$((CORES - 1))}}" wall_s cpu_s
for r in $(seq "$runs"); do
  up=1
  [ "${UPSTREAM:-}" = once ] && [ "$r" -gt 1 ] && up=
  if [ -n "$up" ]; then
    upstream up$r w/u*.dev.o
    row "upstream: clang-sycl-linker ($r)" up$r.link.time
    row "upstream: ocloc over its one module ($r)" up$r.ocloc.time
    row "upstream flow: link + ocloc ($r)" up$r.link.time up$r.ocloc.time
  fi
  for who in ours ${base:+base}; do
    bin=$tool
    [ "$who" = base ] && bin=$base
    rm -rf "cache-$who"
    ours "$bin" "$who-cold$r" "cache-$who" w/*.cpp.o
    row "$who --arch, cold cache ($r)" "$who-cold$r.time"
    ours "$bin" "$who-relink$r" "cache-$who" "${relink_objs[@]}"
    row "$who --arch, relink after one edit ($r)" "$who-relink$r.time"
    grep -h "aot: \|stage aot" "$who-cold$r.log" "$who-relink$r.log" | sed 's/^sycl-thinlto: note: /  /'
  done
  if [ -n "$up" ]; then
    upstream uprelink$r "${relink_dev[@]}"
    row "upstream flow, relink after one edit ($r)" uprelink$r.link.time uprelink$r.ocloc.time
  fi
done
"$tool" inspect ours-cold1.bin | grep -c ': object$' | sed 's/^/  native images in our output: /'
if [ -n "$base" ]; then cmp ours-cold1.bin base-cold1.bin && echo "  ours and base: the same output"; fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; work dir $work"
