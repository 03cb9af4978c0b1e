#!/bin/bash
# The relink benchmark (issue 32): what a link with --cache-dir costs after nothing changed,
# after one unit was edited, and after a header every unit includes was edited, at two program
# sizes, and the ratio between them (a relink's cost should follow the edit, not the program).
#
#   bench/relink.sh TOOL SMALL LARGE [JOBS] [RUNS]
#
# SMALL and LARGE are programs bench/relink-objects.sh compiled: base/ (every unit's object
# and devicelib.bc), edit/u0000.o (unit 0 with another constant) and hdr/ (every unit compiled
# against an edited bench.h). Each kind of relink starts from the cache and record a link of
# base/ left (a fresh copy each run), with the edited files copied in just before, as a build
# does; every output is compared with an uncached link of the same inputs. Prints the median
# of RUNS (default 5) wall times per size and kind, then LARGE's over SMALL's. JOBS: -j
# (default: every core). KINDS (environment): the kinds to run, of "none edit hdr" (the
# default, all three); a kind left out prints as 0. Numbers only: nothing is asserted.
set -euo pipefail
TOOL=$(realpath "$1"); SMALL=$(realpath "$2"); LARGE=$(realpath "$3")
JOBS=${4:-$(nproc)}; RUNS=${5:-5}; KINDS=${KINDS:-none edit hdr}
wanted() { [[ " $KINDS " == *" $1 "* ]]; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/relink-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# link OUTPUT [CACHE]: the program in $W/in, linked.
link() {
  local cache=()
  [ -n "${2:-}" ] && cache=(--cache-dir="$2")
  "$TOOL" link -j"$JOBS" --no-progress "${cache[@]}" --device-libs="$W/in/devicelib.bc" \
    "$W"/in/u[0-9]*.o -o "$1"
}

# timed OUTPUT CACHE: one link's wall seconds on stdout.
timed() {
  local t0 t1
  t0=$(now); link "$1" "$2"; t1=$(now)
  awk "BEGIN {print $t1 - $t0}"
}

declare -A RESULT
run_size() {
  local label=$1 P=$2
  W="$WORK/$label"; mkdir -p "$W/in"
  cp "$P"/base/* "$W/in/"
  local units; units=$(ls "$W"/in/u[0-9]*.o | wc -l)
  # Uncached references: the outputs every relink must equal.
  link "$W/ref-base.bin"
  cp "$P/edit/u0000.o" "$W/in/u0000.o"; link "$W/ref-edit.bin"
  if wanted hdr; then cp "$P"/hdr/u[0-9]*.o "$W/in/"; link "$W/ref-hdr.bin"; fi
  cp "$P"/base/* "$W/in/"
  sleep 1.1 # the copies settle: a file changed in the last second is not trusted by its stat
  : > "$W/out.bin" # an output there before the link: the cold link is recorded
  # Every timed link uses the cache folder c, as a build's links use one: its path is part of
  # the record's key. c0 is the cold link's cache, copied back into c before each edit.
  link "$W/out.bin" "$W/c"
  cmp "$W/out.bin" "$W/ref-base.bin"
  cp -a "$W/c" "$W/c0"
  local t times
  # Nothing changed: the record of the last link, one stat per input.
  times=(0)
  if wanted none; then
    times=()
    for _ in $(seq "$RUNS"); do
      t=$(timed "$W/out.bin" "$W/c"); times+=("$t")
      cmp "$W/out.bin" "$W/ref-base.bin"
    done
  fi
  RESULT[$label,none]=$(printf '%s\n' "${times[@]}" | median)
  # One unit edited, then the header: each run from a copy of the cold link's cache.
  for kind in edit hdr; do
    wanted $kind || { RESULT[$label,$kind]=0; continue; }
    times=()
    for _ in $(seq "$RUNS"); do
      rm -rf "$W/c"; cp -a "$W/c0" "$W/c"
      if [ $kind = edit ]; then cp "$P/edit/u0000.o" "$W/in/u0000.o"; else cp "$P"/hdr/u[0-9]*.o "$W/in/"; fi
      t=$(timed "$W/out.bin" "$W/c"); times+=("$t")
      cmp "$W/out.bin" "$W/ref-$kind.bin"
      if [ $kind = edit ]; then cp "$P/base/u0000.o" "$W/in/"; else cp "$P"/base/* "$W/in/"; fi
    done
    RESULT[$label,$kind]=$(printf '%s\n' "${times[@]}" | median)
  done
  printf '%-6s %5d units  -j%-3s nothing changed %7.3f s   one unit edited %7.3f s   header edited %7.3f s  (median of %d)\n' \
    "$label" "$units" "$JOBS" "${RESULT[$label,none]}" "${RESULT[$label,edit]}" "${RESULT[$label,hdr]}" "$RUNS"
  rm -rf "$W/c" "$W/c0"
}

run_size small "$SMALL"
run_size large "$LARGE"
ratio() { awk "BEGIN {s = ${RESULT[small,$1]}; print s ? ${RESULT[large,$1]} / s : 0}"; }
printf 'large / small: nothing changed %.2fx   one unit edited %.2fx   header edited %.2fx\n' \
  "$(ratio none)" "$(ratio edit)" "$(ratio hdr)"
