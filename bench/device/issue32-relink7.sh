#!/bin/bash
# Issue 32 (relink7): where the split stage of a one-unit relink of 1000 units waits on 16
# cores. Run on the device machine as `bash bench/device/issue32-relink7.sh` with carry
# .devpack, .devpack-relink3 (the objects of bench/relink-objects.sh: n1000/base, n1000/edit)
# and .devpack-relink7, whose pack.tar.xz holds bin/x (main at f561cb5 with the scratch spans
# of bench/device/issue32-relink7-spans.diff, strip -g: per job of the split stage "XX job",
# "XX load" around load_split, "XX read" and "XX hash" in cache_get, "XX parallel" and "XX
# publish" on the main thread, the parallel part's CLOCK_MONOTONIC window as a -v note, and
# XX_SPLIT_JOBS overriding the stage's -j), bin/perf and perflib/ (this machine's
# /usr/bin/perf and the libraries ldd names for it, less libc, libm, libgcc_s and what
# .devpack/libs.tar.xz holds). Only the first 8 files under $OUT come back: the perf trace
# and sched_switch outputs written after them did not (results in bench/RESULTS.md).
set -u
mkdir -p /tmp/d /tmp/p
unpack() { if command -v xz >/dev/null; then tar xJf "$1" -C "$2"; else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"; fi; }
unpack .devpack/libs.tar.xz /tmp/d
unpack .devpack-relink3/pack.tar.xz /tmp/p
unpack .devpack-relink7/pack.tar.xz /tmp/p
echo "unpacked at $SECONDS s"
exec > >(tee "$OUT/results.txt") 2>&1
export LD_LIBRARY_PATH=/tmp/d/lib:${ROOT:-/tmp/p}/perflib
R=${ROOT:-/tmp/p}; N=${N:-1000}; cd $R
echo "cores: $(nproc); kernel $(uname -r); paranoid $(cat /proc/sys/kernel/perf_event_paranoid); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
lscpu | grep -E "Model name|NUMA node\(s\)"
X=$R/bin/x; P=$R/bin/perf
W=${W:-/tmp/w}; rm -rf $W; mkdir -p $W/in; cp n$N/base/* $W/in/; sleep 1.1
cd $W; : > out.bin
s=$(date +%s.%N); $X link -j16 --no-progress --cache-dir=c --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin; e=$(date +%s.%N)
echo "cold $(awk "BEGIN{print $e-$s}") s"; cp -a c c0
n=0
rl() { # LABEL [prefix command...]
  local label=$1; shift; n=$((n+1))
  rm -rf c; cp -a c0 c; cp $R/n$N/edit/u0000.o in/
  "$@" $X link -v -j16 --no-progress --cache-dir=c --time-trace=$OUT/$label.json --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin 2> v.txt
  echo "$label: $(grep -E 'stage split|input:|XX window' v.txt | tr -s ' ' | tr '\n' '|')"
  cp v.txt $OUT/$label.v.txt
  cp $R/n$N/base/u0000.o in/
}
for r in 1 2 3 4 5; do rl j16-$r; done
for j in 1 4 8; do for r in 1 2 3; do rl s$j-$r env XX_SPLIT_JOBS=$j; done; done
echo "elapsed $SECONDS"
rl ptrace $P trace -s -o $OUT/ptrace.txt --
rl sw $P record -q -k CLOCK_MONOTONIC -e sched:sched_switch -e sched:sched_wakeup -g -o $W/sw.data --
$P script -i $W/sw.data -F comm,tid,cpu,time,event,trace,ip,sym 2>/dev/null | gzip > $OUT/sw.txt.gz
rl cpu $P record -q -k CLOCK_MONOTONIC -F 19999 -g -o $W/cpu.data --
$P script -i $W/cpu.data -F comm,tid,time,ip,sym,dso 2>/dev/null | gzip > $OUT/cpu.txt.gz
$P report -i $W/cpu.data --no-children --sort dso,sym -g none -q --percent-limit 0.2 2>/dev/null | head -60
for r in 6 7; do rl j16-$r; done
echo "elapsed $SECONDS"
ls -la $OUT
