#!/bin/bash
# term-while-creating.sh CACHE OUT TOOL ARGS...: runs `TOOL ARGS... --cache-dir=CACHE -o OUT`
# under strace with every openat in the cache's 256 entry folders held 2 s after it returns,
# so that an entry's temporary stands made and not yet written; as soon as one is seen, the
# link gets SIGTERM. Prints how many temporaries (*.tmp.*) the cache still holds after it.
cache=$1 out=$2
shift 2
paths=()
for i in $(seq 0 255); do paths+=(-P "$(printf '%s/sycl-thinlto-5/%02x' "$cache" "$i")"); done
strace -f -qq -o /dev/null "${paths[@]}" -e trace=openat -e inject=openat:delay_exit=2000000 \
  "$@" --cache-dir="$cache" -o "$out" 2>/dev/null &
seen=
for _ in $(seq 1 600); do
  seen=$(find "$cache" -name '*.tmp.*' 2>/dev/null | head -1)
  [ -n "$seen" ] && break
  sleep 0.05
done
echo "seen: ${seen:+a temporary}"
pkill -TERM -f -- "--cache-dir=$cache -o $out"
wait
echo "left: $(find "$cache" -name '*.tmp.*' | wc -l)"
