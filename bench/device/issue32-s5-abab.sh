#!/bin/bash
# Issue 32, session 5: one-unit relinks of 1000 units on 16 cores, main at a4d9685 (bin/cur of
# .devpack-s5) and at 514cd7a (bin/h3 of .devpack-s5c: the output's swap, the state left to the
# exit, the hits handed over at once) in turn, each from a copy of its own cold cache, so that
# the machine's drift falls on both alike. Prints the process's wall (python3 ts2.py: until
# waitpid) and the main thread's spans; two traces of each come back whole (traces.tar.gz).
# Run as `bash bench/device/issue32-s5-abab.sh` with carry .devpack, .devpack-lead, .devpack-s5,
# .devpack-s5c.
set -u
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz .devpack-s5/pack.tar.xz .devpack-s5c/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc)"
R=/tmp/p; N=${N:-1000}; C=${C:-16}; PAIRS=${PAIRS:-6}; BINS=${BINS:-cur h3}
for b in $BINS; do
  W=/tmp/w-$b; rm -rf $W; mkdir -p $W/in; cp $R/n$N/base/* $W/in/
done
sleep 1.1
for b in $BINS; do
  cd /tmp/w-$b; : > out.bin
  $R/bin/$b link -j$C --no-progress --cache-dir=c --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin
  cp -a c c0; cp out.bin base.bin
done
mkdir -p /tmp/traces
for r in $(seq $PAIRS); do
  for b in $BINS; do
    cd /tmp/w-$b; rm -rf c; cp -a c0 c; cp base.bin out.bin; cp $R/n$N/edit/u0000.o in/
    echo "$b $r: $(python3 $R/ts2.py $R/bin/$b link -v -j$C --no-progress --cache-dir=c \
      --time-trace=/tmp/traces/$b-$r.json --device-libs=in/devicelib.bc in/u[0-9]*.o \
      -o out.bin 2>&1 | tail -1)"
    cp $R/n$N/base/u0000.o in/
  done
done
for b in $BINS; do
  echo "== $b: $N units, $C cores: spans (ms)"; python3 $R/spans.py /tmp/traces/$b-*.json
done
tar czf $OUT/traces.tar.gz -C /tmp/traces $(for b in $BINS; do echo $b-1.json $b-2.json; done)
echo "elapsed $SECONDS s"
