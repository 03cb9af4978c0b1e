#!/bin/sh
# The installed ocloc (on PATH), failing for image 2's SPIR-V: alone (`compile -file
# .../image.2.pvc.spv`) or in a batch (`multi LIST`, LIST naming it), where ocloc stops at
# the first command that fails.
for a in "$@"; do
  case $a in *image.2.pvc.spv) echo "failing-ocloc: cannot compile $a" >&2; exit 3 ;; esac
done
if [ "$1" = multi ] && grep -q 'image\.2\.pvc\.spv' "$2"; then
  echo "failing-ocloc: a command of $2 failed" >&2
  exit 1
fi
exec ocloc "$@"
