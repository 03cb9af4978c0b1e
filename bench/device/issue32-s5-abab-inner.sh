#!/bin/bash
# The relinks of bench/device/issue32-s5-abab.sh, for a script that has set the packs up
# already (device_setup, with .devpack-s5 and .devpack-s5c among them) and sends its output
# where it wants: BINS (names of bin/ in /tmp/p), N, C, PAIRS.
set -u
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
