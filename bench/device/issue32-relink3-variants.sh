#!/bin/bash
# variants.sh N (device call 2 of relink3, from the pack of issue32-relink3.sh): a cold link of nN (bin/new, 16 cores, cache c0), then for each variant three
# one-unit relinks from a copy of c0 with -v: the process's wall and each stage's wall and cpu.
# Variants: LABEL JOBS BIN [ENV=VALUE...].
N=$1; W=${VARW:-/tmp/var}; rm -rf $W; mkdir -p $W/in; cp n$N/base/* $W/in/
lk() { local b=$1; shift; "$b" link --no-progress --cache-dir=$W/c --device-libs=$W/in/devicelib.bc $W/in/u[0-9]*.o -o $W/out.bin "$@"; }
sleep 1.1; : > $W/out.bin; lk bin/new -j16; cp -a $W/c $W/c0; cp n$N/edit/u0000.o $W/in/u0000.o; sleep 1.1
variant() {
  local label=$1 j=$2 bin=$3; shift 3
  for r in 1 2 3; do
    rm -rf $W/c; cp -a $W/c0 $W/c
    s=$(date +%s.%N); env "$@" bin/$bin link -j$j --no-progress --cache-dir=$W/c --device-libs=$W/in/devicelib.bc $W/in/u[0-9]*.o -o $W/out.bin -v 2> $W/v.txt; e=$(date +%s.%N)
    printf '%-8s wall %4.0f ms |' $label "$(awk "BEGIN {print ($e - $s) * 1000}")"
    awk '/stage/ {printf " %s %.0f/%.0f", $4, $5 * 1000, $8 * 1000} /linked .* in/ {for (i = 1; i < NF; i++) if ($i == "in") printf " | linked %.0f", $(i + 1) * 1000}' $W/v.txt; echo
  done
}
variant new 16 new
variant j8 8 new
variant notrim 16 exp XX_NOTRIM=1
variant toppad 16 new GLIBC_TUNABLES=glibc.malloc.top_pad=67108864
variant both 16 exp XX_NOTRIM=1 GLIBC_TUNABLES=glibc.malloc.top_pad=67108864
variant base 16 base
