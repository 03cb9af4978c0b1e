#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-cache5/pack.tar.xz (as for bench/device/issue31-cache5.sh, with
# bin/libsignal_list.so built from bench/signal_list.cpp:
#   clang++-22 -O2 -std=c++17 -fPIC -shared -I/usr/lib/llvm-22/include \
#     bench/signal_list.cpp -o libsignal_list.so -L/usr/lib/llvm-22/lib -lLLVM).
# Whether LLVM's remove-on-signal list (walked twice per module libLTO writes to its cache) is
# what a cold cached link waits on: the same cold link with the list's two calls made to return
# at once (SIGNAL_LIST_OFF=1), beside an uncached link with and without it (the control: it
# makes no TempFile). Every link a fresh spread TMPDIR and each cold link a fresh cache, as
# TMPDIR_PER_LINK=1 bench/cache.sh does; outputs compared with the uncached link's. Each link
# also writes a --time-trace: the medians of its stages' wall times say where the cold link's
# extra wall goes (a stage that is longer, or the part of the thin link outside libLTO).
set -u
. bench/device/setup.sh
device_setup .devpack-cache5/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
W=$(mktemp -d); mkdir "$W/tmp" "$W/trace"; t=0; chattr +T "$W/tmp" 2>/dev/null || echo "chattr +T: not set"
link() { # CORES LABEL OFF [OPTIONS...]: appends "wall user sys" to $W/CORES-LABEL.txt
  local n=$1 label=$2 off=$3
  shift 3
  local pin=()
  [ "$n" -lt "$(nproc)" ] && pin=(taskset -c "0-$((n - 1))")
  env TMPDIR="$(mktemp -d -p "$W/tmp")" SIGNAL_LIST_OFF="$off" LD_PRELOAD="$PWD/bin/libsignal_list.so" \
    "${pin[@]}" /usr/bin/time -f "%e %U %S" -o "$W/time" bin/main link --split=kernel -j"$n" \
    --device-libs=w/devicelib.bc w/*.o -o "$W/$label.bin" --time-trace="$W/trace/$n-$label.$((++t))" \
    "$@" >/dev/null 2>"$W/log" || { cat "$W/log"; return 1; }
  cat "$W/time" >>"$W/$n-$label.txt"
  cmp -s "$W/$label.bin" "$W/none.bin" || echo "OUTPUT DIFFERS: $label"
}
med() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
k=0
for n in 16 2; do
  runs=3; [ "$n" = 2 ] && runs=1
  link "$n" none 0 && rm "$W/$n-none.txt"
  for run in $(seq $runs); do
    link "$n" none 0
    link "$n" none-listoff 1
    k=$((k + 1)); link "$n" cold 0 --cache-dir="$W/c$k"
    k=$((k + 1)); link "$n" cold-listoff 1 --cache-dir="$W/c$k"
  done
  for l in none none-listoff cold cold-listoff; do
    f=$W/$n-$l.txt
    printf '%2s cores %-13s wall %5s user %6s sys %5s   (runs: %s)\n' "$n" "$l" "$(cut -d' ' -f1 "$f" | med)" \
      "$(cut -d' ' -f2 "$f" | med)" "$(cut -d' ' -f3 "$f" | med)" "$(tr '\n' ';' <"$f")"
  done
  python3 - "$W/trace" "$n" <<'PY'
import glob, json, statistics, sys
folder, n = sys.argv[1], sys.argv[2]
stages = ["input", "split", "facts", "resolve", "prepare", "thinlink", "libLTO",
          "definitions index", "hooks", "cache lookups", "output", "link (ThinLTO)"]
print("%s cores, stage wall s (median): %s" % (n, " | ".join(stages)))
for label in ["none", "none-listoff", "cold", "cold-listoff"]:
    runs = []
    for f in glob.glob("%s/%s-%s.*" % (folder, n, label)):
        spans = {}
        for e in json.load(open(f))["traceEvents"]:
            if e.get("ph") == "X" and e.get("name") in stages:
                spans[e["name"]] = spans.get(e["name"], 0) + e.get("dur", 0) / 1e6
        runs.append(spans)
    if runs:
        print("  %-13s %s" % (label, " | ".join("%.3f" % statistics.median(r.get(s, 0) for r in runs) for s in stages)))
PY
  echo "elapsed $SECONDS s"
done
