#!/bin/bash
# Issue 32, session 5: one-unit relinks of 1000 units on 16 cores, main at a4d9685 (bin/cur of
# .devpack-s5) and at 514cd7a (bin/h3 of .devpack-s5c: the output's swap, the state left to the
# exit, the hits handed over at once) in turn, each from a copy of its own cold cache, so that
# the machine's drift falls on both alike. Prints the process's wall (python3 ts2.py: until
# waitpid) and the main thread's spans; two traces of each come back whole (traces.tar.gz).
# Run as `bash bench/device/issue32-s5-abab.sh` with carry .devpack, .devpack-lead, .devpack-s5,
# .devpack-s5c.
set -u
REPO=$PWD
. bench/device/setup.sh
device_setup .devpack-lead/pack.tar.xz .devpack-s5/pack.tar.xz .devpack-s5c/pack.tar.xz
exec > >(tee "$OUT/results.txt") 2>&1
echo "cores: $(nproc)"
BINS=${BINS:-cur h3} bash "$REPO/bench/device/issue32-s5-abab-inner.sh"
