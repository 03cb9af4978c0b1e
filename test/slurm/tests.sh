#!/usr/bin/env bash
# The Slurm distributor's tests (issue 26), on the one-host cluster test/slurm/cluster.sh
# starts (ctest's fixture slurm.cluster; SLURM_CONF names it). Usage:
#   tests.sh BUILD_DIR WORK_DIR TEST   with TEST one of e2e, faults, limits, shared-cache, cancel,
#   llvm-lto2, aot
# Each link here also runs without Slurm; outputs are compared byte for byte (cmp).
# Exit status 77 (ctest: skipped) when the cluster could not be started for lack of packages.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: tests.sh BUILD_DIR WORK_DIR TEST}" && pwd)
work=${2:?usage: tests.sh BUILD_DIR WORK_DIR TEST}
test=${3:?usage: tests.sh BUILD_DIR WORK_DIR TEST}
if [ ! -s "${SLURM_CONF:-/nonexistent}" ]; then
  echo "skipped: no test cluster (Debian packages slurmctld slurmd slurm-client munge missing?)"
  exit 77
fi
llvm=/usr/lib/llvm-22/bin
tool=$build/bin/sycl-thinlto
export PATH=$build/bin:$llvm:$PATH
dir=$work/$test
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
# A link may wait for its step while other tests' steps run; none may take long.
link() { timeout 300 "$tool" link "$@"; }
# The cluster declares the host's real cores (cluster.sh): a step of more tasks cannot run.
cores=$(nproc)
tasks3=$((cores < 3 ? cores : 3))

objects() { # a per-kernel workload: 3 units of 3 kernels and a device library
  sycl-bench-gen --units 3 --kernels 3 -o w >/dev/null
  llvm-as w/devicelib.ll -o w/devicelib.bc
  for f in w/*.cpp; do
    "$llvm/clang++" -fsycl -O2 -Xclang -flto=thin -Xclang -flto-unit -c "$f" -o "$f.o" || return 1
  done
}

case $test in
e2e)
  # Every e2e program (test/e2e/conformance.sh), built by clang++ -fsycl through our
  # linker-wrapper mode, links its device code on the cluster (the "dtlto" variant, each image
  # a job of a Slurm step): byte for byte the local link's program, and its kernels run on pocl.
  CONFORMANCE_VARIANTS="thinlto dtlto" CONFORMANCE_DISTRIBUTOR=sycl-thinlto-slurm \
    CONFORMANCE_DISTRIBUTOR_ARGS=--tasks=$((cores < 2 ? 1 : 2)) "$root/test/e2e/conformance.sh" "$build" \
    "$dir/conformance" >conformance.log 2>&1 || { cat conformance.log; fail "e2e programs on Slurm"; }
  programs=$(grep -c ' dtlto ' conformance.log)
  [ "$programs" -ge 7 ] || { cat conformance.log; fail "expected every e2e program"; }
  grep -q 'sycl-thinlto-slurm' "$dir"/conformance/cross_tu.thinlto/build.dtlto.log ||
    fail "cross_tu was not linked through sycl-thinlto-slurm"
  echo "e2e: $programs programs linked on Slurm, byte-identical to local links, kernels passed:"
  grep ' dtlto ' conformance.log
  # Per kernel, with a device library and the step's options: one srun of 3 tasks (as many as
  # the host has cores, up to 3) for 9 jobs.
  objects
  link --split=kernel --device-libs=w/devicelib.bc w/*.o -o local.bin
  link --split=kernel --device-libs=w/devicelib.bc w/*.o -o slurm.bin -v \
    --distributor=sycl-thinlto-slurm --distributor-arg=--tasks=$tasks3 \
    --distributor-arg=--partition=test --distributor-arg=--time=5 \
    --distributor-arg=--srun-arg=--quiet 2>slurm.log
  cmp local.bin slurm.bin || fail "per kernel: the Slurm link differs from the local one"
  grep -q 'distributor: 9 job(s), attempt 1' slurm.log || fail "9 jobs expected: $(cat slurm.log)"
  ! grep -q 'attempt 2' slurm.log || fail "no job should have run twice"
  ! ls -d slurm.bin.jobs.* 2>/dev/null || fail "the jobs' files were left behind"
  echo "per kernel: 9 jobs in one srun step of $tasks3 tasks, output identical"
  ;;
faults)
  objects
  link --split=kernel --device-libs=w/devicelib.bc w/*.o -o local.bin
  kernel=$("$tool" inspect local.bin | sed -n 's/^ *symbols: //p' | sed -n 4p)
  # A job killed mid-run is run again, and the output is the same.
  SYCL_THINLTO_JOB_FAULT_TEST=kill-once:$kernel link --split=kernel --device-libs=w/devicelib.bc \
    w/*.o -o once.bin -v --distributor=sycl-thinlto-slurm 2>once.log
  cmp local.bin once.bin || fail "a retried job changed the output"
  grep -q "the job of image 3 failed" once.log || fail "no retry: $(cat once.log)"
  grep -q 'distributor: 1 job(s), attempt 2' once.log || fail "no second step: $(cat once.log)"
  echo "a job killed mid-run was run again: output identical"
  # A job that always fails fails the link, naming its image, after three steps.
  if SYCL_THINLTO_JOB_FAULT_TEST=kill:$kernel link --split=kernel --device-libs=w/devicelib.bc \
    w/*.o -o always.bin --distributor=sycl-thinlto-slurm 2>always.log; then
    fail "the link succeeded with a job that always fails"
  fi
  grep -q "error: .*: the backend job of image 3 (kernels: $kernel) failed 3 times" always.log ||
    fail "unexpected message: $(cat always.log)"
  [ ! -e always.bin ] || fail "an output was left behind"
  echo "a job that always fails: $(grep -o 'the backend job of image 3 [^;]*' always.log)"
  # Slurm cannot run the step (no such partition): a clear error, srun's own words in it.
  if link w/*.o -o bad.bin --distributor=sycl-thinlto-slurm \
    --distributor-arg=--partition=no-such-partition 2>bad.log; then
    fail "the link succeeded on a partition that does not exist"
  fi
  grep -q "the distributor exited with status" bad.log && grep -qi "partition" bad.log ||
    fail "unexpected message: $(cat bad.log)"
  echo "no such partition: $(grep -i -m1 'invalid\|partition' bad.log | sed 's/^ *//')"
  ;;
limits)
  # The distributor reached through a symbolic link on PATH finds its runner beside the script
  # itself (it looked beside the link, and the link failed).
  objects
  link --split=kernel --device-libs=w/devicelib.bc w/*.o -o local.bin
  mkdir path && ln -s "$build/bin/sycl-thinlto-slurm" path/sycl-thinlto-slurm
  PATH=$PWD/path:$PATH link --split=kernel --device-libs=w/devicelib.bc w/*.o -o linked.bin \
    -v --distributor=sycl-thinlto-slurm 2>linked.log || { cat linked.log; fail "through a link"; }
  grep -q "distributor: 9 job(s), attempt 1: $PWD/path/sycl-thinlto-slurm" linked.log ||
    fail "the symbolic link on PATH was not the distributor: $(cat linked.log)"
  cmp local.bin linked.bin || fail "through a symbolic link: the output differs"
  echo "through a symbolic link on PATH: output identical"
  # By default the step is sized to the partition: on a host of 1 to 3 cores, as many tasks.
  link --split=kernel --device-libs=w/devicelib.bc w/*.o -o sized.bin --save-temps \
    --distributor=sycl-thinlto-slurm --distributor-arg=--srun-arg=--verbose 2>sized.log ||
    { cat sized.log; fail "the default step"; }
  cmp local.bin sized.bin || fail "the default step: the output differs"
  want=$((cores < 4 ? cores : 4))
  grep -q "ntasks *: *$want\$" sized.bin.jobs.*/distributor.1.log ||
    fail "expected $want tasks: $(grep ntasks sized.bin.jobs.*/distributor.1.log)"
  echo "the default step: $want task(s) on $cores core(s), output identical"
  # More tasks than the host has cores: an error before anything is queued, naming the limit
  # and the options to change (Slurm queued it with reason PartitionConfig, forever).
  start=$SECONDS
  if link w/*.o -o big.bin --distributor=sycl-thinlto-slurm \
    --distributor-arg=--tasks=$((cores + 1)) 2>big.log; then
    fail "a step of more tasks than cores ran"
  fi
  grep -q "sycl-thinlto-slurm: --tasks=$((cores + 1)) of 1 CPU(s) each cannot run at once on partition 'test' (.*): it holds $cores such task(s); change --tasks=" big.log ||
    fail "unexpected message: $(cat big.log)"
  grep -q "the distributor exited with status 1" big.log || fail "no error: $(cat big.log)"
  if link w/*.o -o big.bin --distributor=sycl-thinlto-slurm \
    --distributor-arg=--cpus-per-task=$((cores + 1)) 2>wide.log; then
    fail "a task of more CPUs than the node has ran"
  fi
  grep -q "no usable node of partition 'test' (.*) can run a task of $((cores + 1)) CPU(s)" \
    wide.log || fail "unexpected message: $(cat wide.log)"
  # One Slurm sees only when it is queued (srun's own --ntasks): its pending reason says it
  # never runs, and the step is cancelled at once with that reason.
  if link w/*.o -o never.bin --distributor=sycl-thinlto-slurm \
    --distributor-arg=--srun-arg=--ntasks=$((cores * 2)) 2>never.log; then
    fail "a step Slurm cannot place ran"
  fi
  grep -q "can never start as asked (Slurm's pending reason: PartitionConfig); change --tasks=" \
    never.log || fail "unexpected message: $(cat never.log)"
  [ ! -e big.bin ] && [ ! -e never.bin ] || fail "an output was left behind"
  [ $((SECONDS - start)) -lt 60 ] || fail "the steps that cannot start took $((SECONDS - start)) s"
  echo "steps that cannot fit: $(grep -o 'sycl-thinlto-slurm: --tasks=.*task(s)' big.log)"
  # A step that waits for cores others hold fails after --start-timeout, with the reason.
  sbatch --quiet --job-name=hog --cpus-per-task="$cores" --output=/dev/null --wrap='sleep 120'
  for _ in $(seq 100); do squeue --noheader --name=hog --states=R | grep -q . && break; sleep 0.1; done
  if link w/*.o -o wait.bin --distributor=sycl-thinlto-slurm \
    --distributor-arg=--start-timeout=2 2>wait.log; then
    scancel --name=hog; fail "a step ran on a node that was full"
  fi
  scancel --name=hog
  grep -q "did not start within --start-timeout=2 s (Slurm's pending reason: \(Resources\|Priority\|None\))" \
    wait.log || fail "unexpected message: $(cat wait.log)"
  for _ in $(seq 100); do [ -z "$(squeue --noheader)" ] && break; sleep 0.1; done
  [ -z "$(squeue --noheader)" ] || fail "jobs left in the queue: $(squeue)"
  echo "a step that waits: $(grep -o 'did not start.*reason: [A-Za-z]*)' wait.log)"
  ;;
shared-cache)
  # Eight links in eight Slurm jobs, each with the Slurm distributor (a step of its own
  # allocation), share one cache directory; each output is the output of a link run alone.
  objects
  link --split=kernel --device-libs=w/devicelib.bc w/*.o -o alone.bin
  mkdir cache
  for i in 1 2 3 4 5 6 7 8; do
    cat >job$i.sh <<JOB
#!/bin/sh
exec "$tool" link --split=kernel --device-libs=w/devicelib.bc w/*.o -o out$i.bin \
  --cache-dir=cache --distributor=sycl-thinlto-slurm
JOB
    timeout 300 sbatch --quiet --wait --cpus-per-task=1 --job-name=shared-cache-$i \
      --output=job$i.log job$i.sh &
  done
  status=0
  for i in 1 2 3 4 5 6 7 8; do wait -n || status=1; done
  for i in 1 2 3 4 5 6 7 8; do
    [ $status = 0 ] || cat job$i.log
    cmp alone.bin out$i.bin || fail "link $i of 8 differs from the link run alone"
  done
  [ $status = 0 ] || fail "a Slurm job failed"
  ! ls cache | grep -q tmp || fail "temporaries left in the cache: $(ls cache)"
  # And a ninth link finds every image in the cache: it sends no job at all.
  link --split=kernel --device-libs=w/devicelib.bc w/*.o -o ninth.bin -v --cache-dir=cache \
    --distributor=sycl-thinlto-slurm 2>ninth.log
  cmp alone.bin ninth.bin || fail "the cached link differs"
  ! grep -q 'distributor:' ninth.log || fail "a cached image was sent as a job"
  echo "8 links in 8 Slurm jobs, one cache: all 8 outputs identical to a link run alone"
  ;;
aot)
  # Ahead of time (issue 33): each image's ocloc run is a job of the Slurm distributor (the job
  # list's common args are ocloc); the native images are a local link's, byte for byte.
  command -v ocloc >/dev/null || { echo "skipped: no ocloc (intel-opencl-icd)"; exit 77; }
  objects
  link --arch=pvc --device-libs=w/devicelib.bc w/*.o -o local.bin
  link --arch=pvc --device-libs=w/devicelib.bc w/*.o -o slurm.bin -v \
    --distributor=sycl-thinlto-slurm 2>slurm.log || { cat slurm.log; fail "the AOT link failed"; }
  grep -q 'distributor: 3 ocloc job(s)' slurm.log || fail "no ocloc jobs: $(cat slurm.log)"
  cmp local.bin slurm.bin || fail "the Slurm link's native images differ from the local ones"
  echo "3 ocloc jobs on Slurm: native images identical to a local link's"
  ;;
cancel)
  # SIGTERM of a link cancels its step: no job of it is left in the queue, no process runs on.
  objects
  SYCL_THINLTO_JOB_FAULT_TEST=sleep:_ZTS python3 "$root/test/lit/distribute/Inputs/cancel.py" \
    TERM "$PWD/out.bin" "$tool" link --split=kernel --device-libs=w/devicelib.bc w/*.o \
    -o "$PWD/out.bin" --distributor=sycl-thinlto-slurm
  for _ in $(seq 100); do [ -z "$(squeue --noheader)" ] && break; sleep 0.1; done
  [ -z "$(squeue --noheader)" ] || fail "jobs left in the queue: $(squeue)"
  echo "cancelled: the queue is empty"
  ;;
llvm-lto2)
  # The Slurm distributor speaks LLVM's DTLTO interface, not only ours: llvm-lto2 hands the
  # backends of a plain C++ ThinLTO link to it (each job a clang -fthinlto-index= compile, run
  # in a Slurm step), and the program it links runs.
  printf 'int twice(int);\nint main() { return twice(21) == 42 ? 0 : 1; }\n' > main.cpp
  printf 'int twice(int x) { return 2 * x; }\n' > twice.cpp
  "$llvm/clang++" -O2 -flto=thin -c main.cpp twice.cpp
  timeout 300 "$llvm/llvm-lto2" run main.o twice.o -o native -r main.o,main,plx \
    -r main.o,_Z5twicei, -r twice.o,_Z5twicei,pl \
    --dtlto-distributor="$build/bin/sycl-thinlto-slurm" --dtlto-distributor-arg=--tasks=2 \
    --dtlto-compiler="$llvm/clang" 2>lto.log || { cat lto.log; fail "llvm-lto2 failed"; }
  [ -s native.1 ] && [ -s native.2 ] || fail "llvm-lto2 wrote no objects"
  "$llvm/clang++" native.1 native.2 -o prog
  ./prog || fail "the program linked by llvm-lto2 through Slurm returned $?"
  echo "llvm-lto2: a C++ ThinLTO link's 2 backends ran on Slurm; the program runs"
  ;;
*) fail "unknown test '$test'" ;;
esac
