#!/bin/bash
# Run on the device machine as `. bench/device/setup.sh; device_setup .devpack-cache5/pack.tar.xz;
# bash /tmp/p/run1.sh` (carry .devpack and .devpack-cache5), the pack holding: bin/exp, a scratch
# build of main at 8dbeb69 (strip -g) with three switches read from the environment, never
# committed: EXP_OBJDIR=cache|tmp gives libLTO a generated-objects folder of its own (made in
# the cache, or in TMPDIR) apart from its cache folder (lto/thinlto.c: make_temp_dir, an
# own_expect of "*.thinlto.o" there, thinlto_set_generated_objects_dir on it, removed after);
# EXP_NO_ADOPT=1 returns at the top of adopt_result (libLTO's results are not made entries);
# EXP_NO_STORE=1 returns at the top of cache_store for the kinds "image" and "split";
# bin/mb (bench/tempfiles.cpp's first form, the same modes plus "lto2": the hard link into
# another folder), bin/perf and perflib/ (this machine's /usr/bin/perf and the libraries ldd
# names for it, less libc, libm, libgcc_s and what .devpack/libs.tar.xz holds), w/ (the
# 200 x 8 objects of the cache sections of bench/RESULTS.md). Recorded in bench/RESULTS.md
# ("Where a cold link's time goes on 16 cores").
# cache5, device call 1: where a cold cached link's extra time goes on 16 cores.
set -u
cd /tmp/p
export LD_LIBRARY_PATH=/tmp/d/lib:/tmp/p/perflib
echo "cores: $(nproc); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
lscpu | grep -E "Model name|Thread|Socket|NUMA node\(s\)"
W=$(mktemp -d); mkdir $W/tmp; chattr +T $W/tmp 2>/dev/null || echo "no chattr +T"
echo "== microbench: libLTO's cached write path, 2401 x 5000 bytes"
for t in 16 2; do for m in raw lto lto2 plain signal raw; do
  pin=(); [ $t = 2 ] && pin=(taskset -c 0,1)
  "${pin[@]}" bin/mb $m $(mktemp -d -p $W/tmp) 2401 5000 $t; done; done
echo "elapsed $SECONDS"
link() { # LABEL [options]  -> appends "wall user sys" to $W/LABEL.txt
  local label=$1; shift
  env TMPDIR=$(mktemp -d -p $W/tmp) /usr/bin/time -f "%e %U %S" -o $W/time bin/exp link --split=kernel -j16 \
    --device-libs=w/devicelib.bc w/*.o -o $W/$label.bin "$@" >/dev/null 2>$W/log || { cat $W/log; return 1; }
  cat $W/time >> $W/$label.txt
  cmp -s $W/$label.bin $W/none.bin || echo "OUTPUT DIFFERS: $label"
}
link none; rm $W/none.txt
k=0
for run in 1 2 3; do
  link none
  k=$((k+1)); link cold --cache-dir=$W/c$k
  k=$((k+1)); EXP_OBJDIR=cache link objcache --cache-dir=$W/c$k
  k=$((k+1)); EXP_OBJDIR=tmp link objtmp --cache-dir=$W/c$k
  k=$((k+1)); EXP_NO_ADOPT=1 link noadopt --cache-dir=$W/c$k
  k=$((k+1)); EXP_NO_STORE=1 link nostore --cache-dir=$W/c$k
  k=$((k+1)); EXP_NO_STORE=1 EXP_NO_ADOPT=1 link neither --cache-dir=$W/c$k
  link warm --cache-dir=$W/c1
done
echo "elapsed $SECONDS"
med() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for l in none cold objcache objtmp noadopt nostore neither warm; do
  f=$W/$l.txt; printf '%-9s wall %6s user %6s sys %6s   (runs: %s)\n' $l "$(cut -d' ' -f1 $f | med)" "$(cut -d' ' -f2 $f | med)" "$(cut -d' ' -f3 $f | med)" "$(tr '\n' ';' < $f)"
done
echo "== perf"
if bin/perf record -q -o $W/t.data -F 999 -g -- true 2>$W/perflog; then
  for l in none cold; do
    c=(); [ $l = cold ] && c=(--cache-dir=$W/pc)
    env TMPDIR=$(mktemp -d -p $W/tmp) bin/perf record -q -F 1999 -g -o $W/$l.data -- bin/exp link --split=kernel -j16 \
      --device-libs=w/devicelib.bc w/*.o -o $W/p$l.bin "${c[@]}" >/dev/null 2>&1
    bin/perf report -i $W/$l.data -n --no-children --sort dso,sym -g none -q --percent-limit 0 2>/dev/null > $OUT/$l.syms
    bin/perf report -i $W/$l.data -n --no-children --sort comm,dso -g none -q --percent-limit 0.3 2>/dev/null > $OUT/$l.comm
    echo "$l: $(wc -l < $OUT/$l.syms) symbols"; head -5 $OUT/$l.comm
  done
  bin/perf report -i $W/cold.data --no-children -S _ZN4llvm3sys18RemoveFileOnSignalENS_9StringRefEPNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE -G --stdio 2>/dev/null | head -40 > $OUT/cold.rfos
  echo "elapsed $SECONDS"
  bin/perf report -i $W/cold.data --children --sort sym -g none -q --percent-limit 1.5 --stdio 2>/dev/null | head -80 > $OUT/cold.children
  bin/perf report -i $W/none.data --children --sort sym -g none -q --percent-limit 1.5 --stdio 2>/dev/null | head -80 > $OUT/none.children
else
  echo "perf: cannot record"; cat $W/perflog | head
fi
echo "elapsed $SECONDS"
