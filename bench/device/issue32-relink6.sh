#!/bin/bash
# Issue 32 (relink6): the floor of a one-unit relink, libLTO's thinlto_codegen_process (the
# `libLTO` span of --time-trace), and each stage, at several sizes and core counts:
#
#   bench/device/issue32-relink6.sh RUNS "SIZES" "CORES" BIN...
#
# From a folder holding nN/ (bench/relink-objects.sh's base/ and edit/u0000.o for each N of
# SIZES). For each N, each BIN links nN cold with --cache-dir (-j of every core; the output
# there before, the inputs settled: recorded), its cache kept; then for each C of CORES, RUNS
# rounds relink it once per BIN in turn (taskset to C cores, -jC), each from a copy of that
# BIN's cold cache with edit/u0000.o copied in just before, -v --time-trace. Prints per N, C
# and BIN the median (and range) of the process wall, of every stage's wall and CPU ms (-v)
# and of the spans libLTO, "entries linked for libLTO", "results read back", "definitions
# index", "codegen" (summed), "cache lookups", "output written". Numbers only: nothing is
# asserted.
#
# SETTLE (environment; default "none"): how each copy of the cold cache is left before the
# timed relink, one or more of: none (as bench/relink.sh does: the copy's 80+ MB still being
# written back, every file's status-change time newer than its access time, so that its first
# read writes its access time: relatime); sync (written back first); atime (every file's
# access time set an hour ahead, then written back: no read writes an access time, as in a
# cache whose entries were read once since they were written).
set -euo pipefail
RUNS=$1; SIZES=$2; CORES=$3; shift 3
BINS=(); for b in "$@"; do BINS+=("$(realpath "$b")"); done
HERE=$(pwd); WORK=$(mktemp -d "${TMPDIR:-/tmp}/relink6.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ALL=$(nproc)
for n in $SIZES; do
  for i in "${!BINS[@]}"; do
    W=$WORK/$n-$i; mkdir -p "$W/in"; cp "$HERE/n$n"/base/* "$W/in/"
  done
  sleep 1.1 # a file changed in the last second is not trusted by its stat
  for i in "${!BINS[@]}"; do
    W=$WORK/$n-$i; : > "$W/out.bin"
    (cd "$W" && "${BINS[$i]}" link -j"$ALL" --no-progress --cache-dir=c --device-libs=in/devicelib.bc \
      in/u[0-9]*.o -o out.bin && cp -a c c0)
  done
  for c in $CORES; do
    cpus=0-$((c - 1))
    for settle in ${SETTLE:-none}; do
    for r in $(seq "$RUNS"); do
      for i in "${!BINS[@]}"; do
        W=$WORK/$n-$i
        (cd "$W" && rm -rf c && cp -a c0 c)
        case $settle in
          sync) sync ;;
          atime) find "$W/c" -type f -exec touch -a -d '+1 hour' {} +; sync ;;
        esac
        cp "$HERE/n$n/edit/u0000.o" "$W/in/"
        s=$(date +%s.%N)
        (cd "$W" && taskset -c "$cpus" "${BINS[$i]}" link -v -j"$c" --no-progress --cache-dir=c \
          --time-trace=t.json --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin 2> v.txt)
        e=$(date +%s.%N)
        python3 - "$W" "$n" "$c" "$i" "$s" "$e" "$settle" >> "$WORK/rows" <<'EOF'
import json, re, sys
w, n, c, i, s, e, settle = sys.argv[1:]
row = {"n": n, "c": c, "bin": i, "settle": settle, "process": (float(e) - float(s)) * 1000}
for line in open(w + "/v.txt"):
    m = re.search(r"stage (\S+) +([0-9.]+) s wall +([0-9.]+) s cpu", line)
    if m:
        row[m.group(1)] = float(m.group(2)) * 1000
        row[m.group(1) + " cpu"] = float(m.group(3)) * 1000
d = json.load(open(w + "/t.json"))
for ev in (d["traceEvents"] if isinstance(d, dict) else d):
    if ev.get("ph") == "X" and ev["name"] in ("libLTO", "entries linked for libLTO",
            "results read back", "definitions index", "codegen", "cache lookups",
            "output written"):
        row["span " + ev["name"]] = row.get("span " + ev["name"], 0) + ev["dur"] / 1000
print(json.dumps(row))
EOF
        cp "$HERE/n$n/base/u0000.o" "$W/in/"
      done
    done
    done
  done
done
python3 - "$WORK/rows" "${BINS[@]}" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
bins = sys.argv[2:]
keys = []
for r in rows:
    keys += [k for k in r if k not in ("n", "c", "bin", "settle") and k not in keys]
groups = {}
for r in rows:
    groups.setdefault((int(r["n"]), int(r["c"]), r["settle"], int(r["bin"])), []).append(r)
for (n, c, settle, b), rs in sorted(groups.items()):
    print("== %d units, %d cores, settle %s, %s (%d relinks): median [min-max] ms"
          % (n, c, settle, bins[b], len(rs)))
    for k in keys:
        v = sorted(r[k] for r in rs if k in r)
        if v:
            print("  %-32s %7.1f [%.1f-%.1f]" % (k, v[(len(v) - 1) // 2], v[0], v[-1]))
EOF
