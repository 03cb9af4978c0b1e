#!/bin/bash
# Issue 32, session 5: one-unit relinks side by side, in turn (as issue32-s5-abab.sh): h3 is
# main at 514cd7a (.devpack-s5c), x5 main at e216558 (the old output removed on a thread, the
# images without an entry begun before the entries are read) with a scratch switch XX_WARM=1
# (.devpack-s5e, never committed) under which the worker spawner emits one small module
# before forking any worker, so that what LLVM sets up at a first codegen is inherited; "x5w"
# is x5 with it. 1000 units on 16 cores, then 300 and 30 on 2 (taskset).
# Run as `bash bench/device/issue32-s5-warm.sh` with carry .devpack, .devpack-lead,
# .devpack-s5, .devpack-s5c, .devpack-s5e.
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz .devpack-s5/pack.tar.xz .devpack-s5c/pack.tar.xz \
  .devpack-s5e/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
R=/tmp/p
declare -A BIN=([h3]=$R/bin/h3 [x5]=$R/bin/x5 [x5w]=$R/bin/x5)
declare -A ENV=([h3]= [x5]= [x5w]=XX_WARM=1)
run_set() { # N CORES RUNS NAMES...
  local N=$1 C=$2 RUNS=$3; shift 3; local cpus=0-$(($C - 1)) b r
  for b in "$@"; do
    local W=/tmp/w$N-$b; rm -rf $W; mkdir -p $W/in; cp $R/n$N/base/* $W/in/
  done
  sleep 1.1
  for b in "$@"; do
    cd /tmp/w$N-$b; : > out.bin
    env ${ENV[$b]} taskset -c $cpus ${BIN[$b]} link -j$C --no-progress --cache-dir=c \
      --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin
    cp -a c c0; cp out.bin base.bin
  done
  mkdir -p /tmp/tr$N-$C
  for r in $(seq $RUNS); do
    for b in "$@"; do
      cd /tmp/w$N-$b; rm -rf c; cp -a c0 c; cp base.bin out.bin; cp $R/n$N/edit/u0000.o in/
      echo "$N/$C $b $r: $(env ${ENV[$b]} taskset -c $cpus python3 $R/ts2.py ${BIN[$b]} link -v \
        -j$C --no-progress --cache-dir=c --time-trace=/tmp/tr$N-$C/$b-$r.json \
        --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin 2>&1 | tail -1)"
      cp $R/n$N/base/u0000.o in/
    done
  done
  for b in "$@"; do
    echo "== $b: $N units, $C cores: spans (ms)"
    python3 $R/spans.py /tmp/tr$N-$C/$b-*.json | grep -E "^(split|libLTO|thinlink|cache lookups|output written|hooks|output|link) "
    python3 -c "
import json,sys,glob,statistics
cg=[]
for f in glob.glob('/tmp/tr$N-$C/$b-*.json'):
    cg+=[e['dur']/1000 for e in json.load(open(f))['traceEvents'] if e.get('ph')=='X' and e['name'].startswith('codegen')]
print('codegen spans (ms): median %.1f, min %.1f, max %.1f, %d of them' % (statistics.median(cg), min(cg), max(cg), len(cg)))"
  done
  tar czf $OUT/traces-$N-$C.tar.gz -C /tmp/tr$N-$C .
}
run_set 1000 16 6 h3 x5 x5w
run_set 300 2 5 h3 x5 x5w
run_set 30 2 5 h3 x5 x5w
echo "elapsed $SECONDS s"
