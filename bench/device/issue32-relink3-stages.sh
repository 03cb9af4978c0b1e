#!/bin/bash
# stages.sh BIN N JOBS LABEL (device call 1 of relink3, from the pack of issue32-relink3.sh): a cold link of nN with the cache c (kept as c0), then RUNS one-unit
# relinks (each with c copied back from c0) with -v and --time-trace; prints the stage lines
# and the time-trace spans of libLTO and of the edited images' codegen.
T=$(realpath $1); N=$2; J=$3; L=$4; R=${RUNS:-3}; W=/tmp/st-$L; rm -rf $W; mkdir -p $W/in; cp n$N/base/* $W/in/
lk() { $T link -j$J --no-progress --cache-dir=$W/c --device-libs=$W/in/devicelib.bc $W/in/u[0-9]*.o -o $W/out.bin "$@"; }
sleep 1.1; : > $W/out.bin; lk; cp -a $W/c $W/c0; cp n$N/edit/u0000.o $W/in/u0000.o
for r in $(seq $R); do
  rm -rf $W/c; cp -a $W/c0 $W/c
  s=$(date +%s.%N); lk -v --time-trace=$W/t.json 2> $W/v.txt; e=$(date +%s.%N)
  echo "== $L run $r wall $(awk "BEGIN {print $e - $s}")"; grep -E "stage|relink:|linked" $W/v.txt
  python3 -c "
import json; d = json.load(open('$W/t.json')); ev = d['traceEvents'] if isinstance(d, dict) else d
x = {}
[x.__setitem__(e['name'], x.get(e['name'], 0) + e['dur'] / 1000) for e in ev if e.get('ph') == 'X']
print('spans ms: thinlink %.1f libLTO %.1f definitions-index %.1f codegen %.1f link %.1f' % tuple(x.get(k, 0) for k in ('thinlink', 'libLTO', 'definitions index', 'codegen', 'link (ThinLTO)')))" 2>&1 | tail -1
done
