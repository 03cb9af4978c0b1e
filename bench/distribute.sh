#!/usr/bin/env bash
# Distributed backends (issue 26): the wall and CPU time of one per-kernel link with the local
# worker pool, with the local distributor (a `sycl-thinlto backend` process per image) and
# with the Slurm distributor on a one-host cluster (test/slurm/cluster.sh), each twice; the
# outputs are compared. Usage: distribute.sh BUILD_DIR [UNITS] [KERNELS] [WORK_DIR]
# MODES="local slurm" (say) runs only those of local, distribute-local, distribute-exec, slurm.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: distribute.sh BUILD_DIR [UNITS] [KERNELS] [WORK_DIR]}" && pwd)
units=${2:-40} kernels=${3:-10}
work=${4:-$(mktemp -d)}
mkdir -p "$work" && cd "$work"
tool=$build/bin/sycl-thinlto
export PATH=$build/bin:/usr/lib/llvm-22/bin:$PATH
if [ ! -d w ]; then
  sycl-bench-gen --units "$units" --kernels "$kernels" -o w >/dev/null
  llvm-as w/devicelib.ll -o w/devicelib.bc
  ls w/*.cpp | xargs -P"$(nproc)" -I{} clang++ -fsycl -O2 -Xclang -flto=thin -Xclang -flto-unit \
    -c {} -o {}.o
fi
# distribute-exec: the same jobs run by another copy of the tool (--remote-compiler), which
# the local runner cannot fork from itself: an exec per job, as on another host.
cp "$tool" sycl-thinlto-copy
modes="local distribute-local distribute-exec"
if "$root/test/slurm/cluster.sh" start "$work/cluster" >cluster.env 2>cluster.log; then
  . ./cluster.env
  trap '"$root/test/slurm/cluster.sh" stop "$work/cluster"' EXIT
  modes="$modes slurm"
else
  echo "no Slurm cluster: $(tail -1 cluster.log)"
fi
if [ -n "${MODES:-}" ]; then
  modes=$(for m in $modes; do [[ " $MODES " == *" $m "* ]] && echo "$m"; done | xargs)
fi
jobs=$(nproc)
printf '%-20s %4s %8s %8s %8s %8s\n' mode run wall_s cpu_s hooks_s images
for run in 1 2; do
  for mode in $modes; do
    case $mode in
    local) extra=() ;;
    distribute-local) extra=(--distributor=sycl-thinlto-local --distributor-arg=-j"$jobs") ;;
    distribute-exec) extra=(--distributor=sycl-thinlto-local --distributor-arg=-j"$jobs"
      --remote-compiler="$PWD/sycl-thinlto-copy") ;;
    slurm) extra=(--distributor=sycl-thinlto-slurm --distributor-arg=--tasks="$jobs") ;;
    esac
    /usr/bin/time -f "%e %U %S" -o time.txt "$tool" link --split=kernel -j"$jobs" \
      --device-libs=w/devicelib.bc w/*.o -o "$mode.bin" -v "${extra[@]}" 2>"$mode.log"
    read -r wall user sys <time.txt
    hooks=$(sed -n 's/.*stage hooks *\([0-9.]*\) s wall.*/\1/p' "$mode.log")
    images=$(sed -n 's/.*linked \([0-9]*\) image.*/\1/p' "$mode.log")
    printf '%-20s %4s %8s %8.2f %8s %8s\n' "$mode" "$run" "$wall" "$(echo "$user + $sys" | bc)" \
      "$hooks" "$images"
  done
done
for mode in $modes; do cmp local.bin "$mode.bin"; done && echo "outputs identical"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
