#!/usr/bin/env bash
# What a link pays for sending its images' backends out as DTLTO jobs (issue 31): the same
# link, per kernel and per source, with the in-process worker pool and through the local
# distributor (sycl-thinlto-local), and through the Slurm distributor when a cluster answers
# (sinfo), side by side, at equal cores; the outputs are compared byte for byte.
#
#   distributed-overhead.sh [-r RUNS] [-b BASE_BIN_DIR] BIN_DIR OBJ_DIR [CPUS...]
#
# BIN_DIR holds sycl-thinlto and sycl-thinlto-local; OBJ_DIR the compiled units (u*.o, as
# `sycl-bench-gen` and `clang++ -fsycl -c` make them) and devicelib.bc. Each CPUS is a CPU
# list for taskset ("0,2"), or "all" (the default): the links run at -j as many as it names.
# Each link runs RUNS times (default 3), the modes alternating; the median wall time is kept,
# with that run's user and system time (children included), and each mode's ratio to the pool.
# With -b, mode "base" is the same link through the local distributor of another build (its
# sycl-thinlto and sycl-thinlto-local in BASE_BIN_DIR), e.g. the commit before a change.
set -euo pipefail
runs=3 base=
while [ $# -gt 0 ]; do
  case $1 in
  -r) runs=$2; shift 2 ;;
  -b) base=$(cd "$2" && pwd); shift 2 ;;
  *) break ;;
  esac
done
bin=$(cd "${1:?usage: distributed-overhead.sh [-r RUNS] [-b BASE_BIN_DIR] BIN_DIR OBJ_DIR [CPUS...]}" && pwd)
obj=$(cd "${2:?usage: distributed-overhead.sh [-r RUNS] [-b BASE_BIN_DIR] BIN_DIR OBJ_DIR [CPUS...]}" && pwd)
shift 2
[ $# -gt 0 ] || set -- all
export PATH=$bin:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
units=$(ls "$obj"/u*.o | wc -l)
modes="pool local"
[ -z "$base" ] || modes="$modes base"
if command -v sinfo >/dev/null && sinfo -h >/dev/null 2>&1; then modes="$modes slurm"; fi

# One link: "wall user sys" on stdout, its output at $work/$mode.bin.
link() { # CPUS JOBS SPLIT MODE
  local cpus=$1 jobs=$2 split=$3 mode=$4 extra=() pin=()
  local tool=$bin/sycl-thinlto
  case $mode in
  local) extra=(--distributor=sycl-thinlto-local --distributor-arg=-j"$jobs") ;;
  base) tool=$base/sycl-thinlto
    extra=(--distributor="$base/sycl-thinlto-local" --distributor-arg=-j"$jobs") ;;
  slurm) extra=(--distributor=sycl-thinlto-slurm --distributor-arg=--tasks="$jobs") ;;
  esac
  [ "$cpus" = all ] || pin=(taskset -c "$cpus")
  local TIMEFORMAT='%R %U %S'
  { time "${pin[@]}" "$tool" link --split="$split" -j"$jobs" \
      --device-libs="$obj/devicelib.bc" "$obj"/u*.o -o "$work/$mode.bin" "${extra[@]}" \
      2>"$work/$mode.log"; } 2>&1
}

median() { sort -n -k1,1 | sed -n "$(((runs + 1) / 2))p"; }

printf '%-6s %-7s %5s %-6s %8s %8s %8s %9s\n' split cpus units mode wall_s user_s sys_s "x pool"
for cpus in "$@"; do
  if [ "$cpus" = all ]; then jobs=$(nproc); else jobs=$(echo "$cpus" | tr , '\n' | wc -l); fi
  for split in kernel source; do
    for mode in $modes; do : >"$work/$mode.times"; done
    for ((r = 0; r < runs; r++)); do
      for mode in $modes; do link "$cpus" "$jobs" "$split" "$mode" >>"$work/$mode.times"; done
      for mode in $modes; do cmp "$work/pool.bin" "$work/$mode.bin"; done
    done
    read -r pool_wall _ < <(median <"$work/pool.times")
    for mode in $modes; do
      read -r wall user sys < <(median <"$work/$mode.times")
      printf '%-6s %-7s %5s %-6s %8.2f %8.2f %8.2f %9.3f\n' "$split" "$cpus" "$units" "$mode" \
        "$wall" "$user" "$sys" "$(awk -v a="$wall" -v b="$pool_wall" 'BEGIN { print a / b }')"
    done
  done
done
echo "outputs identical to the pool's in every run; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
