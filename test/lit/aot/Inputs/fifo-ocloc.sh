#!/bin/sh
# The installed ocloc (on PATH), then, in the folder it works in ($TMPDIR's sycl-thinlto-aot-*):
# FIFOs nobody opens, a folder holding another FIFO and links to what lies outside it ($VICTIM,
# a file and a folder of the test's). With FIFO_OUTPUTS=1 its native images become FIFOs too.
ocloc "$@" || exit $?
[ "$2" = --help ] && exit 0
for d in "$TMPDIR"/sycl-thinlto-aot-*; do
  mkfifo "$d/fifo.$$"
  mkdir -p "$d/folder.$$/deeper"
  mkfifo "$d/folder.$$/deeper/fifo"
  ln -s "$VICTIM/file" "$d/folder.$$/file-link"
  ln -s "$VICTIM" "$d/folder.$$/folder-link"
  ln -s "$VICTIM" "$d/link.$$"
  if [ "$FIFO_OUTPUTS" = 1 ]; then
    for f in "$d"/*.bin; do
      rm -f "$f" && mkfifo "$f"
    done
  fi
done
exit 0
