#!/bin/bash
# relink5's device calls (bench/RESULTS.md, "The whole-program results kept"), run from the
# repository root with .devpack/libs.tar.xz, .devpack-relink3/pack.tar.xz (n30/ n300/ n1000/:
# bench/relink-objects.sh's base/ and edit/) and .devpack-relink5/pack.tar.xz: bin/main (main at
# 4bdfae3), bin/new (relink5: 0c411cd in call 1, 32c8ec2 in call 2, which ran this without the
# 2-core part), both strip -g; bench/relink.sh, bench/relink-stages.sh.
# The stages of a one-unit relink of 1000 units (16 cores) for both binaries in turn, the
# spans of 3 traced relinks each, then bench/relink.sh (nothing changed, one unit edited).
set -u
mkdir -p /tmp/d /tmp/p
unpack() { if command -v xz >/dev/null; then tar xJf "$1" -C "$2"; else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"; fi; }
unpack .devpack/libs.tar.xz /tmp/d
unpack .devpack-relink3/pack.tar.xz /tmp/p
unpack .devpack-relink5/pack.tar.xz /tmp/p
export LD_LIBRARY_PATH=/tmp/d/lib
cd /tmp/p
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc); unpacked at $SECONDS s"
echo "== stages, 1000 units, 16 cores"; bench/relink-stages.sh n1000 5 16 bin/main bin/new
echo "elapsed $SECONDS s"
# Traced relinks: a cold link per binary, then 3 relinks each from a copy of its cache.
for b in main new; do
  W=/tmp/tr-$b; rm -rf $W; mkdir -p $W/in; cp n1000/base/* $W/in/; sleep 1.1
  (cd $W && : > out.bin && /tmp/p/bin/$b link -j16 --no-progress --cache-dir=c --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin && cp -a c c0)
  for i in 1 2 3; do
    (cd $W && rm -rf c && cp -a c0 c && cp /tmp/p/n1000/edit/u0000.o in/ && /tmp/p/bin/$b link -v -j16 --no-progress --cache-dir=c --device-libs=in/devicelib.bc in/u[0-9]*.o -o out.bin --time-trace=t$i.json 2>&1 | grep -E "linked|relink:" ; cp /tmp/p/n1000/base/u0000.o in/)
  done
  python3 - $W <<'PY'
import json, sys
for i in (1, 2, 3):
    d = json.load(open(f"{sys.argv[1]}/t{i}.json")); ev = d["traceEvents"] if isinstance(d, dict) else d
    names = ("input", "split", "facts", "regroup", "resolve", "prepare", "libLTO", "definitions index", "thinlink", "hooks", "output", "link (ThinLTO)")
    print(" ", " ".join(f"{e['name']}={e['dur']/1000:.1f}" for e in ev if e.get("ph") == "X" and e["name"] in names))
PY
done
echo "elapsed $SECONDS s"
for b in main new; do
  echo "== $b: 16 cores"; KINDS="none edit" bench/relink.sh bin/$b n300 n1000 16 3
  echo "elapsed $SECONDS s"
done
if [ "$SECONDS" -lt 220 ]; then
  for b in main new; do
    echo "== $b: 2 cores"; KINDS="none edit" taskset -c 0,1 bench/relink.sh bin/$b n30 n300 2 3
    echo "elapsed $SECONDS s"
  done
fi
