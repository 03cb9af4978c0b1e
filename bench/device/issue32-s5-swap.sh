#!/bin/bash
# Issue 32, session 5: the output's swap at -o and the state left to the exit (162c721) against
# main before them (a4d9685). Run as `bash bench/device/issue32-s5-swap.sh` with carry .devpack,
# .devpack-lead (n30/ n300/ n1000/), .devpack-s5 (bin/cur: a4d9685 with a scratch teardown
# note; spans.py, ts.py) and .devpack-s5b (bin/new: 162c721). The stage breakdown of each
# (bench/device/issue32-s5-breakdown.sh's relinks), then bench/relink.sh side by side.
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz .devpack-s5/pack.tar.xz .devpack-s5b/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc)"
R=/tmp/p
relinks() { # BIN N CORES RUNS
  local BIN=$1 N=$2 C=$3 RUNS=$4 W=/tmp/w$2 cpus; cpus=0-$(($3 - 1))
  rm -rf $W; mkdir -p $W/in; cp $R/n$N/base/* $W/in/; sleep 1.1; cd $W; : > out.bin
  taskset -c $cpus $BIN link -j$C --no-progress --cache-dir=c --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin
  cp -a c c0; local traces=()
  for r in $(seq $RUNS); do
    rm -rf c; cp -a c0 c; cp $R/n$N/edit/u0000.o in/
    taskset -c $cpus python3 $R/ts.py $BIN link -v -j$C --no-progress --cache-dir=c \
      --time-trace=$W/t$r.json --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin 2> v.txt
    traces+=($W/t$r.json); cp $R/n$N/base/u0000.o in/
  done
  echo "== $(basename $BIN): $N units, $C cores: spans (ms)"; python3 $R/spans.py "${traces[@]}"; cd $R
}
for b in cur new; do relinks $R/bin/$b 1000 16 5; done
for b in cur new; do relinks $R/bin/$b 300 2 5; relinks $R/bin/$b 30 2 5; done
echo "elapsed $SECONDS s"
for b in cur new; do
  echo "== relink $b, 16 cores"; KINDS="none edit" bench/relink.sh bin/$b n300 n1000 16 5
  echo "== relink $b, 2 cores"; KINDS="edit" taskset -c 0,1 bench/relink.sh bin/$b n30 n300 2 7
done
echo "elapsed $SECONDS s"
