#!/bin/bash
# Each stage of a one-unit relink, for several binaries side by side (issue 32):
#
#   bench/relink-stages.sh PROGRAM RUNS JOBS TOOL...
#
# PROGRAM is one bench/relink-objects.sh wrote (base/, edit/u0000.o). Each TOOL links it cold
# into a folder of its own (recorded: the output there before, the inputs settled), then RUNS
# rounds relink it once per TOOL in turn, each from a copy of that tool's cold cache with
# edit/u0000.o copied in just before (as bench/relink.sh's edit relinks, and a build's link
# after its compile). Prints per tool and stage the median wall and CPU seconds of -v's stage
# lines, and -v's "input:" line of the last run. Numbers only: nothing is asserted.
set -euo pipefail
P=$(realpath "$1"); RUNS=$2; JOBS=$3; shift 3
TOOLS=(); for t in "$@"; do TOOLS+=("$(realpath "$t")"); done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/relink-stages.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
link() { # N: tool N's link, -v
  (cd "$WORK/$1" && "${TOOLS[$1]}" link -v -j"$JOBS" --no-progress --cache-dir=c \
     --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin 2>&1)
}
for i in "${!TOOLS[@]}"; do mkdir -p "$WORK/$i/in"; cp "$P"/base/* "$WORK/$i/in/"; done
sleep 1.1 # a file changed in the last second is not trusted by its stat
for i in "${!TOOLS[@]}"; do
  : > "$WORK/$i/out.bin"; link "$i" > /dev/null; cp -a "$WORK/$i/c" "$WORK/$i/c0"
done
for _ in $(seq "$RUNS"); do
  for i in "${!TOOLS[@]}"; do
    (cd "$WORK/$i" && rm -rf c && cp -a c0 c && cp "$P/edit/u0000.o" in/)
    link "$i" | sed "s|^|$i |" >> "$WORK/log"
    cp "$P/base/u0000.o" "$WORK/$i/in/"
  done
done
for i in "${!TOOLS[@]}"; do
  echo "${TOOLS[$i]}"
  grep "^$i .*note: input:" "$WORK/log" | tail -1 | sed 's/^[0-9]* sycl-thinlto: note: /  /' || true
  awk -v t="$i" '$1 == t && $4 == "stage" {print $5, $6, $9}' "$WORK/log" > "$WORK/s"
  for stage in $(awk '{print $1}' "$WORK/s" | sort -u); do
    wall=$(awk -v s="$stage" '$1 == s {print $2}' "$WORK/s" | median)
    cpu=$(awk -v s="$stage" '$1 == s {print $3}' "$WORK/s" | median)
    printf '  %-10s wall %6.3f s   cpu %6.3f s   (median of %d)\n' "$stage" "$wall" "$cpu" "$RUNS"
  done
done
