#!/bin/bash
# Issue 32, session 5: where a one-unit relink's time goes on the device, stage by stage and
# outside the stages (the process's start before the first stage, its teardown and exit after
# the last note). Run as `bash bench/device/issue32-s5-breakdown.sh` with carry .devpack,
# .devpack-lead (n30/ n300/ n1000/ from bench/relink-objects.sh) and .devpack-s5 (bin/cur:
# main at a4d9685 with a scratch note of its teardown's length under XX_T=1, spans.py, ts.py).
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz .devpack-s5/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc); /tmp: $(findmnt -no SOURCE,FSTYPE,OPTIONS -T /tmp 2>/dev/null)"
R=/tmp/p; BIN=${BIN:-$R/bin/cur}
relinks() { # N CORES RUNS
  local N=$1 C=$2 RUNS=$3 W=/tmp/w$1 cpus; cpus=0-$(($2 - 1))
  rm -rf $W; mkdir -p $W/in; cp $R/n$N/base/* $W/in/; sleep 1.1; cd $W; : > out.bin
  taskset -c $cpus $BIN link -j$C --no-progress --cache-dir=c --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin
  cp -a c c0; local traces=()
  for r in $(seq $RUNS); do
    rm -rf c; cp -a c0 c; cp $R/n$N/edit/u0000.o in/
    XX_T=1 taskset -c $cpus python3 $R/ts.py $BIN link -v -j$C --no-progress --cache-dir=c \
      --time-trace=$W/t$r.json --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin 2> v.txt |
      tr '\n' ' '
    grep -E "XX teardown|stage unchanged" v.txt | tr -s ' ' | tr '\n' ' '; echo
    traces+=($W/t$r.json); cp $R/n$N/base/u0000.o in/
  done
  echo "== $N units, $C cores: spans (ms)"; python3 $R/spans.py "${traces[@]}"; cd $R
}
relinks 1000 16 5
relinks 300 16 3
relinks 30 2 5
relinks 300 2 5
echo "elapsed $SECONDS s"
