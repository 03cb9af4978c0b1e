#!/bin/sh
# Regenerates the seed corpora (test/fuzz/corpus/TARGET/) from real outputs of the test
# suite's inputs: make_seeds.sh BUILD. Seeds are small files; findings' regression inputs
# (named crash-*, leak-*, timeout-*) are kept, everything else is replaced.
set -eu
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
tool=$build/bin/sycl-thinlto llvm=/usr/lib/llvm-22/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for t in offload_binary syclbin elf_section archive input propset_json propset_prop cache_entry linked; do
  mkdir -p "$here/corpus/$t"
  find "$here/corpus/$t" -type f ! -name 'crash-*' ! -name 'leak-*' ! -name 'timeout-*' \
    ! -name 'regress-*' -delete
done
seed() { cp "$2" "$here/corpus/$1/$3"; }

# Fat objects (clang++ -fsycl -c), their .llvm.offloading OffloadBinary, the device bitcode.
for f in main c1 c2 c3 c4 c5 table weakdef; do
  $llvm/clang++ -fsycl -c "$root/test/lit/link/Inputs/$f.cpp" -o $f.o
done
$llvm/llvm-objcopy --dump-section=.llvm.offloading=c1.offload c1.o c1.copy.o
$llvm/clang++ -fsycl -fsycl-device-only -c "$root/test/lit/link/Inputs/c1.cpp" -o c1.bc
for f in main.o c1.o; do seed elf_section $f $f; seed input $f $f; done
seed offload_binary c1.offload c1.offload
seed input c1.offload c1.offload
seed input c1.bc c1.bc

# Linked images: OffloadBinary blobs with SPIR-V and properties (several images, one file).
$llvm/llvm-as "$root/test/lit/properties/Inputs/device_globals.ll" -o dg.bc
$tool link dg.bc -o dg.bin
program="main.o c1.o c2.o c3.o c4.o c5.o table.o weakdef.o"
$tool link $program --split=kernel --allow-device-image-dependencies -o deps.bin
seed offload_binary dg.bin dg.bin
seed offload_binary deps.bin deps.bin
# SYCLBIN files (the wrapper mode's --syclbin=): two modules split per kernel, and none (c1.o
# defines no kernel).
$llvm/clang++ -fsycl -I"$root/test/lit/aot/Inputs" -c "$root/test/lit/aot/Inputs/two_kernels.cpp" \
  -o two.o
for f in two c1; do
  $tool wrapper --linker-path=/usr/bin/ld --syclbin=object --device-linker=--split=kernel \
    -o $f.syclbin $f.o
done
seed syclbin two.syclbin two.syclbin
seed syclbin c1.syclbin empty.syclbin
seed input deps.bin deps.bin

# Archives: GNU with a long-name table, BSD, and one holding a host-only object.
cp c1.o a_long_member_name_for_the_table.o
$llvm/llvm-ar rc --format=gnu gnu.a a_long_member_name_for_the_table.o table.o
$llvm/llvm-ar rc --format=bsd bsd.a c1.o table.o
printf 'int host(void) { return 1; }\n' > host.c
$llvm/clang -c host.c -o host.o
$llvm/llvm-ar rc --format=gnu mixed.a host.o c1.bc
for a in gnu.a bsd.a mixed.a; do seed archive $a $a; seed input $a $a; done

# Property sets: the JSON of linked images, and intel's .prop text of the same.
$llvm/llvm-as "$root/test/lit/properties/Inputs/vf_use_fp64.ll" -o vf.bc
$tool link --allow-device-image-dependencies --no-validate vf.bc -o vf.bin
for b in dg deps vf; do
  $tool inspect --prop $b.bin | grep -v '^#' > $b.prop
  seed propset_prop $b.prop $b.prop
done
for b in dg deps vf; do
  $tool inspect --json $b.bin | python3 -c '
import json, sys
for i, image in enumerate(json.load(sys.stdin)["images"]):
    if image.get("properties"):
        open(sys.argv[1] + "." + str(i) + ".json", "w").write(
            json.dumps(image["properties"], separators=(",", ":")))' $b
done
for j in *.json; do seed propset_json $j $j; done

# Cache entries of each kind, as "KIND KEY\n" and the entry's bytes.
$tool link $program --split=kernel --cache-dir=cache -o cached.bin
for kind in image split facts prepared thinlto; do
  f=$(ls cache/sycl-thinlto-5/*/$kind-* 2>/dev/null | head -1)
  [ -n "$f" ] || continue # no entry of this kind in this link (facts: the split's carry them)
  key=${f##*/$kind-}
  { printf '%s %s\n' $kind $key; cat $f; } > $kind.entry
  seed cache_entry $kind.entry $kind.entry
done
# Linked programs: the wrapper object of a link, in a position-independent executable and in
# a shared library (registration functions stubbed: the program never runs).
$tool wrap --compress vf.bin -o wrapper.o
printf 'int main(void) { return 0; }\nvoid __sycl_register_lib(void *d) { (void)d; }\nvoid __sycl_unregister_lib(void *d) { (void)d; }\n' \
  | $llvm/clang -x c - -c -fPIC -o host.o
$llvm/clang -pie host.o wrapper.o -o program
$llvm/clang -shared wrapper.o -o program.so
seed linked program program
seed linked program.so program.so

for t in offload_binary syclbin elf_section archive input propset_json propset_prop cache_entry linked; do
  printf '%-15s %3d seeds, %6d bytes\n' $t $(ls "$here/corpus/$t" | wc -l) \
    $(cat "$here/corpus/$t"/* | wc -c)
done
