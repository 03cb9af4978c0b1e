#!/usr/bin/env bash
# The cache's cost (issue 31 item 2): one link of the same objects without --cache-dir, with a
# cold (empty) cache it fills, and again with that cache (a relink, nothing changed), at each
# core count, side by side; the ratio cold / none is what a first cached link costs.
# Usage: cache.sh TOOL OBJ_DIR [CORES...]   (CORES default: all of them and 2)
#   OBJ_DIR holds the compiled units (*.o) and devicelib.bc (bench/distribute.sh makes them).
#   RUNS=N (default 3) runs of each, alternating, medians printed; SPLIT=kernel|source;
#   BASE=TOOL2 runs another build (e.g. the previous commit's) beside, labelled "base".
# A core count below all of them pins the links to the first cores with taskset, -jN.
# Each cold link fills a cache folder of its own, and no cache is removed before the end: on
# ext4 without a journal (the device machine's /tmp and this project's build machine have
# none) an inode freed recently (a minute or more) is skipped by every later allocation in
# its group, so removing the last run's cache right before a cold link made each of its file
# creations scan past thousands of them (bench/RESULTS.md, "The cache's cost"). REMOVE=1 does
# that still (one cache folder, removed right before each cold link), as this script did first.
# TMPDIR_PER_LINK=1 gives every link a TMPDIR of its own in a folder marked `chattr +T` (where
# it can be set): a link without a cache writes libLTO's 2401 results in TMPDIR and removes
# them, and the next link creating files beside them (the next uncached link's results, in the
# same TMPDIR) scans past those freed inodes; spread, neither link meets the other's.
set -euo pipefail
tool=$(realpath "${1:?usage: cache.sh TOOL OBJ_DIR [CORES...]}")
objs=$(realpath "${2:?usage: cache.sh TOOL OBJ_DIR [CORES...]}")
shift 2
cores=("$@")
[ ${#cores[@]} -gt 0 ] || cores=("$(nproc)" 2)
runs=${RUNS:-3} split=${SPLIT:-kernel}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${TMPDIR_PER_LINK:-0}" = 1 ]; then
  mkdir "$work/tmp" && { chattr +T "$work/tmp" 2>/dev/null || echo "chattr +T: not set" >&2; }
fi
tools=("new:$tool")
[ -n "${BASE:-}" ] && tools+=("base:$(realpath "$BASE")")

# One link: prints "wall user sys" (seconds).
link() { # CORES TOOL OUT [OPTIONS...]
  local n=$1 t=$2 out=$3
  shift 3
  local pin=()
  [ "$n" -lt "$(nproc)" ] && pin=(taskset -c "0-$((n - 1))")
  [ "${TMPDIR_PER_LINK:-0}" = 1 ] && pin=(env TMPDIR="$(mktemp -d -p "$work/tmp")" "${pin[@]}")
  "${pin[@]}" /usr/bin/time -f "%e %U %S" -o "$work/time" "$t" link --split="$split" -j"$n" \
    --device-libs="$objs/devicelib.bc" "$objs"/*.o -o "$work/$out" "$@" >/dev/null 2>"$work/log" ||
    { cat "$work/log" >&2; exit 1; }
  cat "$work/time"
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

printf '%-5s %-5s %-6s %8s %8s %8s %8s\n' cores tool mode wall_s user_s sys_s files
for n in "${cores[@]}"; do
  for entry in "${tools[@]}"; do
    label=${entry%%:*} t=${entry#*:}
    : >"$work/none.txt"; : >"$work/cold.txt"; : >"$work/warm.txt"
    for run in $(seq "$runs"); do
      cache=$work/cache-$n-$label-$run
      [ "${REMOVE:-0}" = 1 ] && cache=$work/cache
      link "$n" "$t" none.bin >>"$work/none.txt"
      [ "${REMOVE:-0}" = 1 ] && rm -rf "$cache"
      link "$n" "$t" cold.bin --cache-dir="$cache" >>"$work/cold.txt"
      link "$n" "$t" warm.bin --cache-dir="$cache" >>"$work/warm.txt"
      cmp "$work/none.bin" "$work/cold.bin" && cmp "$work/none.bin" "$work/warm.bin"
    done
    files=$(find "$cache" -type f | wc -l)
    for mode in none cold warm; do
      f=$work/$mode.txt
      printf '%-5s %-5s %-6s %8s %8s %8s %8s\n' "$n" "$label" "$mode" \
        "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" \
        "$(cut -d' ' -f3 "$f" | median)" "$([ $mode = none ] && echo - || echo "$files")"
      declare "wall_$mode=$(cut -d' ' -f1 "$f" | median)"
    done
    printf '%-5s %-5s cold/none wall %.3f   warm/none wall %.3f   (median of %s; outputs identical)\n' \
      "$n" "$label" "$(awk "BEGIN {print $wall_cold / $wall_none}")" \
      "$(awk "BEGIN {print $wall_warm / $wall_none}")" "$runs"
  done
done
