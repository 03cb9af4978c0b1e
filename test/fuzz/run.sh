#!/bin/sh
# Runs each fuzz target for SECONDS, one after another: run.sh BUILD SECONDS [TARGET...].
# FUZZ_RUNS=N also stops a target after N inputs. New inputs go to BUILD/fuzz/corpus/TARGET
# (the seeds in test/fuzz/corpus are read, never written), crashes to BUILD/fuzz/findings/.
# Prints one line per target: executions, time, rate, corpus size, result. Exit status 1 if
# any target found something.
set -u
build=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
targets=${*:-offload_binary elf_section archive input propset_json propset_prop cache_entry commands}
runs=${FUZZ_RUNS:+-runs=$FUZZ_RUNS}
status=0
printf '%-15s %12s %8s %9s %7s  %s\n' target executions seconds exec/s corpus result
for t in $targets; do
  if [ "$t" = commands ]; then
    # Not libFuzzer: the whole commands of SYCL_THINLTO (an ordinary build), mutated inputs
    # from corpus/input and corpus/commands, one process a run (commands.py).
    log=$build/fuzz/commands.log
    mkdir -p "$build/fuzz"
    start=$(date +%s)
    python3 "$here/commands.py" fuzz "${SYCL_THINLTO:-build/bin/sycl-thinlto}" "$seconds" \
      "$build/fuzz/commands" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^commands: \([0-9]*\) runs.*/\1/p' "$log")
    if [ $rc -eq 0 ]; then result=ok; else result="FOUND: $build/fuzz/commands/findings, see $log"; status=1; fi
    printf '%-15s %12s %8s %9s %7s  %s\n' commands "${runs:-?}" "$(($(date +%s) - start))" - - "$result"
    continue
  fi
  work=$build/fuzz/corpus/$t findings=$build/fuzz/findings/$t log=$build/fuzz/$t.log
  mkdir -p "$work" "$findings"
  # -close_fd_mask=2 silences the targets' own error messages (the tool's errors for the
  # inputs refused); libFuzzer and the sanitizers still report.
  # LLVM's own crashes (input.c) are kept apart from ours, in findings/llvm.
  mkdir -p "$build/fuzz/findings/llvm"
  start=$(date +%s)
  FUZZ_LLVM_CRASHES=$build/fuzz/findings/llvm LSAN_OPTIONS=suppressions=$here/lsan.supp \
    "$build/test/fuzz/fuzz_$t" \
    -max_total_time="$seconds" $runs -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
    -print_final_stats=1 -artifact_prefix="$findings/" "$work" "$here/corpus/$t" >"$log" 2>&1
  rc=$?
  elapsed=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | head -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | head -1)
  size=$(ls "$work" | wc -l)
  if [ $rc -eq 0 ]; then result=ok; else result="FOUND (exit $rc): $(ls "$findings" | head -1), see $log"; status=1; fi
  printf '%-15s %12s %8s %9s %7s  %s\n' "$t" "${execs:-?}" "$elapsed" "${rate:-?}" "$size" "$result"
done
crashes=$(ls "$build/fuzz/findings/llvm" | wc -l)
[ "$crashes" -eq 0 ] || echo "LLVM's bitcode reader crashed on $crashes module(s) (not ours): $build/fuzz/findings/llvm"
exit $status
