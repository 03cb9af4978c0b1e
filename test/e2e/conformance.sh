#!/usr/bin/env bash
# make conformance: builds every end-to-end program with clang++-22 -fsycl through our
# linker-wrapper mode in several variants (one links with lld), runs its kernels on pocl and
# prints a table.
# It does not build sycl-thinlto itself. Usage: conformance.sh BUILD_DIR [WORK_DIR]
# CONFORMANCE_VARIANTS="thinlto dtlto" (say) builds only those variants. The "dtlto" variant
# links as "thinlto" does, with each image's backend a job of CONFORMANCE_DISTRIBUTOR (default
# sycl-thinlto-local; test/slurm/tests.sh gives sycl-thinlto-slurm) and the words of
# CONFORMANCE_DISTRIBUTOR_ARGS as --distributor-arg=; its programs must be byte for byte the
# "thinlto" variant's (issue 26). The table also goes to CONFORMANCE_JUNIT (default
# BUILD_DIR/conformance.xml) as JUnit XML (test/e2e/junit.py), for CI systems that read it.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: conformance.sh BUILD_DIR [WORK_DIR]}
case $build in /*) ;; *) build=$PWD/$build ;; esac
work=${2:-$(mktemp -d)}
[ -n "${2:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
junit=${CONFORMANCE_JUNIT:-$build/conformance.xml}
rows=$work/results.tsv
: >"$rows"
# A row of the JUnit report: class, name, result (pass, fail, xfail), message, details file.
report() { printf 'conformance\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4//$'\t'/ }" "$5" >>"$rows"; }
llvm=/usr/lib/llvm-22/bin
e2e=$root/test/e2e
runtime=$build/test/runtime

# clang++ finds our clang-linker-wrapper on the -B directory; the programs use the test runtime.
sycl_cxx() { "$llvm/clang++" -fsycl -I"$root/test/runtime" "$@"; }
base_link_flags=(-B"$build/libexec/sycl-thinlto/" -L"$runtime" -lsycl_test_runtime
  -Wl,-rpath,"$runtime")

declare -A variant_flags=(
  [thinlto]="-O2 -Xclang -flto=thin -Xclang -flto-unit"
  [plain]="-O2"
  [O0]="-O0"
  [split]="-O2"
  [lld]="-O2 -Xclang -flto=thin -Xclang -flto-unit"
  [dtlto]="-O2 -Xclang -flto=thin -Xclang -flto-unit"
)
variants=(${CONFORMANCE_VARIANTS:-thinlto plain O0 split lld dtlto})
# The "lld" variant links the host side with lld instead of GNU ld: its kernels run only if
# lld runs the wrapper object's registration sections (.init_array/.fini_array).
declare -A variant_link_flags=(
  [lld]="-fuse-ld=lld"
  [dtlto]="-Xoffload-linker -v -Xoffload-linker --distributor=${CONFORMANCE_DISTRIBUTOR:-sycl-thinlto-local}"
)
for arg in ${CONFORMANCE_DISTRIBUTOR_ARGS:-}; do
  variant_link_flags[dtlto]+=" -Xoffload-linker --distributor-arg=$arg"
done
# The "dtlto" variant builds again in the "thinlto" variant's directory (the programs hold
# their directory: -rpath), its files kept aside as FILE.local to compare with.
dtlto_outputs="app libhelpers.so"
# The "split" variant runs `sycl-thinlto split --split=kernel` on each fat object right after
# clang++ -c (the compile-time split of issue 3); only programs that say so take part.
split_programs=" cross_tu "
# Programs with a host unit in LLVM bitcode (the registration pass rewrites it): lld here is
# Debian's lld-14, which cannot read LLVM 22 bitcode, so they skip the "lld" variant.
host_bitcode_programs=" spec_constants spec_constants_emulation "
programs=(cross_tu shared_lib devicelib virtual_functions virtual_functions_tu spec_constants
  spec_constants_emulation)
# Programs whose kernels are known not to run on this machine's OpenCL, and why: shown in
# the table as XFAIL (a failed build still fails); a pass shows as XPASS.
declare -A expected_run_failure=()

# Each build_<program> FLAGS builds ./app in the current directory (FLAGS unquoted on purpose).
build_cross_tu() {
  for f in main math table; do
    sycl_cxx $1 -c "$e2e/cross_tu/$f.cpp" -o $f.o || return 1
    if [ -n "$early_split" ]; then
      "$build/bin/sycl-thinlto" split --split=kernel $f.o -o $f.o || return 1
    fi
  done
  sycl_cxx main.o math.o table.o -o app "${link_flags[@]}"
}

build_shared_lib() {
  sycl_cxx $1 -fPIC -c "$e2e/shared_lib/lib.cpp" -o lib.o &&
    sycl_cxx -shared lib.o -o libhelpers.so "${link_flags[@]}" \
      -Xoffload-linker --allow-device-image-dependencies &&
    sycl_cxx $1 -c "$e2e/shared_lib/app.cpp" -o app.o &&
    sycl_cxx app.o -o app -L. -lhelpers -Wl,-rpath,"$PWD" "${link_flags[@]}" \
      -Xoffload-linker --allow-device-image-dependencies
}

build_devicelib() {
  "$llvm/llvm-as" "$e2e/devicelib/devicelib.ll" -o devicelib.bc &&
    sycl_cxx $1 -c "$e2e/devicelib/main.cpp" -o main.o &&
    sycl_cxx main.o -o app "${link_flags[@]}" -Xoffload-linker --device-libs="$PWD/devicelib.bc"
}

# The front end cannot say "indirectly-callable": the device code is an IR fixture, packed
# as a fat object the way clang -fsycl -c packs its own, with a C host.
build_virtual_functions() {
  local opt=-O2
  case $1 in *-O0*) opt=-O0 ;; esac
  "$llvm/llvm-as" "$e2e/virtual_functions/device.ll" -o device.bc &&
    "$llvm/llvm-offload-binary" -o device.offload \
      --image=file=device.bc,triple=spirv64-unknown-unknown,arch=generic,kind=sycl &&
    "$llvm/clang" $opt -I"$root/test/runtime" -c "$e2e/virtual_functions/host.c" -o host.o \
      -Xclang -fembed-offload-object=device.offload &&
    sycl_cxx host.o -o app "${link_flags[@]}"
}

# The same across two units: the sets' functions and make() in one, the kernels in the other
# (issue 14). The sets' unit has no host code of its own: its fat object wraps an empty one.
build_virtual_functions_tu() {
  local opt=-O2
  case $1 in *-O0*) opt=-O0 ;; esac
  local unit
  for unit in sets kernels; do
    "$llvm/llvm-as" "$e2e/virtual_functions_tu/$unit.ll" -o $unit.bc &&
      "$llvm/llvm-offload-binary" -o $unit.offload \
        --image=file=$unit.bc,triple=spirv64-unknown-unknown,arch=generic,kind=sycl || return 1
  done
  "$llvm/clang" $opt -x c -c /dev/null -o sets.o -Xclang -fembed-offload-object=sets.offload &&
    "$llvm/clang" $opt -I"$root/test/runtime" -c "$e2e/virtual_functions_tu/host.c" -o host.o \
      -Xclang -fembed-offload-object=kernels.offload &&
    sycl_cxx host.o sets.o -o app "${link_flags[@]}"
}

# Specialization constants set by the host at run time (issue 25), lowered by the link in
# native mode (SpecId in the SPIR-V, set when the runtime builds the image) or emulation (the
# buffer the runtime passes the kernel). The specialization_id host objects are the IR fixture
# spec_ids.ll (bitcode: the link takes -flto), which the host registration pass rewrites.
build_spec_constants_mode() {
  local mode=$1 f
  for f in main ext; do
    sycl_cxx $2 -c "$e2e/spec_constants/$f.cpp" -o $f.o || return 1
  done
  "$llvm/llvm-as" "$e2e/spec_constants/spec_ids.ll" -o spec_ids.o &&
    sycl_cxx main.o ext.o spec_ids.o -flto -o app "${link_flags[@]}" \
      -Xoffload-linker --spec-const=$mode
}
build_spec_constants() { build_spec_constants_mode native "$1"; }
build_spec_constants_emulation() { build_spec_constants_mode emulation "$1"; }

total_failed=0
printf '%-24s %-8s %6s %6s  %s\n' program variant passed failed note
for program in "${programs[@]}"; do
  for variant in "${variants[@]}"; do
    early_split=
    link_flags=("${base_link_flags[@]}" ${variant_link_flags[$variant]:-})
    if [ "$variant" = split ]; then
      [[ $split_programs == *" $program "* ]] || continue
      early_split=1
    fi
    if [ "$variant" = lld ] && [[ $host_bitcode_programs == *" $program "* ]]; then continue; fi
    dir=$work/$program.$variant
    passed=0 failed=0 note=
    if [ "$variant" = dtlto ]; then
      dir=$work/$program.thinlto
      if [ ! -x "$dir/app" ]; then
        printf '%-24s %-8s %6s %6s  %s\n' "$program" "$variant" 0 1 "no thinlto variant to compare"
        report "$program" "$variant" fail "no thinlto variant to compare" ""
        total_failed=$((total_failed + 1))
        continue
      fi
      for f in $dtlto_outputs; do [ ! -e "$dir/$f" ] || mv "$dir/$f" "$dir/$f.local"; done
    else
      rm -rf "$dir" && mkdir -p "$dir"
    fi
    log=$dir/build.log run_log=$dir/run.log
    [ "$variant" != dtlto ] || log=$dir/build.dtlto.log run_log=$dir/run.dtlto.log
    if ! (cd "$dir" && build_$program "${variant_flags[$variant]}") >"$log" 2>&1; then
      failed=1 note="build failed: $log"
      [ -n "${2:-}" ] || { sed 's/^/    /' "$log" | tail -20 >&2; }
    elif [ "$variant" = dtlto ] && ! (cd "$dir" && for f in $dtlto_outputs; do
      [ ! -e $f.local ] || cmp $f.local $f || exit 1; done) >"$dir/cmp.dtlto.log" 2>&1; then
      failed=1 note="differs from the local link: $dir/cmp.dtlto.log"
    elif [ "$variant" = dtlto ] && ! grep -q 'distributor: [0-9]* job(s), attempt 1' "$log"; then
      failed=1 note="no job was sent to the distributor: $log"
    else
      expect_programs=${early_split:+4} # one image per kernel after the early split
      (cd "$dir" && SYCL_TEST_EXPECT_PROGRAMS=${expect_programs:-1} timeout 120 ./app) \
        >"$run_log" 2>&1
      status=$?
      passed=$(grep -c '^PASS ' "$run_log")
      failed=$(grep -c '^FAIL ' "$run_log")
      if [ "$status" != 0 ] && [ "$failed" = 0 ]; then failed=1 note="exit status $status"; fi
      reason=${expected_run_failure[$program]:-}
      if [ "$failed" != 0 ] && [ -n "$reason" ]; then
        note="XFAIL: $reason" failed=0
      elif [ "$failed" != 0 ]; then
        [ -n "$note" ] || note="see run.log"
        [ -n "${2:-}" ] || { sed 's/^/    /' "$run_log" | tail -20 >&2; }
      elif [ -n "$reason" ]; then
        note="XPASS: remove it from expected_run_failure"
      fi
    fi
    printf '%-24s %-8s %6s %6s  %s\n' "$program" "$variant" "$passed" "$failed" "$note"
    details=$run_log
    case $note in "build failed"*) details=$log ;; "differs"*) details=$dir/cmp.dtlto.log ;; esac
    if [ "$failed" != 0 ]; then report "$program" "$variant" fail "${note:-failed}" "$details"
    elif [[ $note == XFAIL* ]]; then report "$program" "$variant" xfail "$note" "$details"
    else report "$program" "$variant" pass "$passed kernel(s) passed" ""; fi
    total_failed=$((total_failed + failed))
  done
done
python3 "$root/test/e2e/junit.py" "$junit" "$rows" && echo "JUnit report: $junit"
[ "$total_failed" = 0 ] && echo "all kernels passed" || echo "$total_failed kernel(s) failed"
[ "$total_failed" = 0 ]
