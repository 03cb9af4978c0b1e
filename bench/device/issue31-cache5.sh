#!/bin/bash
# Run on the device machine from the repository root with .devpack/ (libs.tar.xz) and
# .devpack-cache5/pack.tar.xz: bin/main (main at 8dbeb69, strip -g), bin/tempfiles and
# bin/libsignal_prefill.so (bench/tempfiles.cpp, and bench/signal_list.cpp in its first form,
# SIGNAL_PREFILL only, under that name; built here with
#   clang++-22 -O2 -std=c++17 -I/usr/lib/llvm-22/include bench/tempfiles.cpp -o tempfiles \
#     -L/usr/lib/llvm-22/lib -lLLVM -lpthread
#   clang++-22 -O2 -std=c++17 -fPIC -shared -I/usr/lib/llvm-22/include \
#     bench/signal_list.cpp -o libsignal_prefill.so -L/usr/lib/llvm-22/lib -lLLVM),
# cache.sh and w/ (the 200 x 8 objects of the cache sections of bench/RESULTS.md).
# The cache's cost under both protocols; whether LLVM's remove-on-signal list is what a cold
# link waits on (a prefilled list: the cold link's extra time should grow, the uncached
# link's not); what libLTO's cache writes cost alone at 2401 and 12001 modules. Recorded in
# bench/RESULTS.md ("Where a cold link's time goes on 16 cores").
set -u
. bench/device/setup.sh
device_setup .devpack-cache5/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
W=$(mktemp -d); mkdir "$W/tmp"; chattr +T "$W/tmp" 2>/dev/null || echo "chattr +T: not set"
echo "== libLTO's cache writes alone (bench/tempfiles.cpp), 16 threads"
for n in 2401 12001; do for m in raw lto plain signal; do
  bin/tempfiles $m "$(mktemp -d -p "$W/tmp")" $n 5000 16; done; done
echo "elapsed $SECONDS s"
echo "== a prefilled remove-on-signal list (bench/signal_list.cpp), 16 cores, -j16"
link() { # LABEL PREFILL [OPTIONS...]: appends "wall user sys" to $W/LABEL.txt
  local label=$1 prefill=$2
  shift 2
  env TMPDIR="$(mktemp -d -p "$W/tmp")" SIGNAL_PREFILL="$prefill" LD_PRELOAD="$PWD/bin/libsignal_prefill.so" \
    /usr/bin/time -f "%e %U %S" -o "$W/time" bin/main link --split=kernel -j16 \
    --device-libs=w/devicelib.bc w/*.o -o "$W/$label.bin" "$@" >/dev/null 2>"$W/log" || { cat "$W/log"; return 1; }
  cat "$W/time" >>"$W/$label.txt"
  cmp -s "$W/$label.bin" "$W/none.bin" || echo "OUTPUT DIFFERS: $label"
}
link none 0 && rm "$W/none.txt"
k=0
for run in 1 2 3; do
  link none 0
  link none+7203 7203
  for p in 0 2401 7203; do k=$((k + 1)); link cold+$p $p --cache-dir="$W/c$k"; done
done
med() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for l in none none+7203 cold+0 cold+2401 cold+7203; do
  f=$W/$l.txt
  printf '%-10s wall %5s user %6s sys %5s   (runs: %s)\n' "$l" "$(cut -d' ' -f1 "$f" | med)" \
    "$(cut -d' ' -f2 "$f" | med)" "$(cut -d' ' -f3 "$f" | med)" "$(tr '\n' ';' <"$f")"
done
echo "elapsed $SECONDS s"
echo "== cache, TMPDIR_PER_LINK=1, 16 cores"; TMPDIR_PER_LINK=1 RUNS=3 ./cache.sh bin/main w 16
echo "elapsed $SECONDS s"
echo "== cache, a folder per cold link, 16 cores"; RUNS=3 ./cache.sh bin/main w 16
echo "elapsed $SECONDS s"
if [ "$SECONDS" -lt 200 ]; then
  echo "== cache, TMPDIR_PER_LINK=1, 2 cores"; TMPDIR_PER_LINK=1 RUNS=1 ./cache.sh bin/main w 2
  echo "elapsed $SECONDS s"
fi
