#!/bin/bash
# Issue 32, session 5: what the output stage of a one-unit relink spends, on 16 cores at 1000
# units and on 2 at 300: bin/x4 of .devpack-s5d is main at 514cd7a with scratch spans ("XX
# ...": the writer's join, the commit and the old output's unlink in it, the relink record's
# input identities, the output's mapping, its pieces hashed and stored, the record written,
# the unmapping), never committed. Run as `bash bench/device/issue32-s5-output.sh` with carry
# .devpack, .devpack-lead, .devpack-s5 (spans.py, ts.py), .devpack-s5c (ts2.py), .devpack-s5d.
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz .devpack-s5/pack.tar.xz .devpack-s5c/pack.tar.xz \
  .devpack-s5d/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
R=/tmp/p; BIN=$R/bin/x4
relinks() { # N CORES RUNS
  local N=$1 C=$2 W=/tmp/w$1 cpus=0-$(($2 - 1)); local traces=()
  rm -rf $W; mkdir -p $W/in; cp $R/n$N/base/* $W/in/; sleep 1.1; cd $W; : > out.bin
  taskset -c $cpus $BIN link -j$C --no-progress --cache-dir=c --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin
  cp -a c c0; cp out.bin base.bin
  for r in $(seq $3); do
    rm -rf c; cp -a c0 c; cp base.bin out.bin; cp $R/n$N/edit/u0000.o in/
    echo "$N/$C $r: $(taskset -c $cpus python3 $R/ts2.py $BIN link -v -j$C --no-progress \
      --cache-dir=c --time-trace=$W/t$r.json --device-libs=in/devicelib.bc in/u[0-9]*.o \
      -o out.bin 2>&1 | tail -1)"
    traces+=($W/t$r.json); cp $R/n$N/base/u0000.o in/
  done
  echo "== $N units, $C cores: spans (ms)"; python3 $R/spans.py "${traces[@]}"; cd $R
}
relinks 1000 16 5
relinks 300 2 5
relinks 30 2 5
echo "elapsed $SECONDS s"
