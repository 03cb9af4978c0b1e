#!/bin/bash
# Device side of issue 33's whole --arch link, second call (pack: issue33-aot-pack.sh, ours at
# 109ff4c: guided batches): which CPUs are distinct cores; the ocloc stage on one pinned core,
# 20 images as 20 processes against one `ocloc multi` (the cost of a process); then the whole
# link on 2 pinned distinct cores: upstream's flow once, ours and base (main's, one ocloc
# process an image) twice each, cold and relink. Recorded in bench/RESULTS.md.
set -u
R=$PWD/.devpack-aot2
x() { tar xJf "$1" -C "$2" 2>/dev/null || python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$1" "$2"; }
mkdir -p /tmp/d /tmp/w
x .devpack/libs.tar.xz /tmp/d || exit 3
x $R/ocloc14.tar.xz /tmp/d || exit 3
x $R/work.tar.xz /tmp/w || exit 3
export LD_LIBRARY_PATH=/tmp/d/lib PATH=/tmp/d/bin:/tmp/w/bin:$PATH
cd /tmp/w
for c in 0 1 2 8; do echo "cpu$c siblings: $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null) core_id $(cat /sys/devices/system/cpu/cpu$c/topology/core_id 2>/dev/null)"; done
lscpu 2>/dev/null | grep -Ei "^(thread|core|socket|model name|numa node)" 
pair=$(python3 -c '
def cpus(t):
    s=set()
    for part in t.strip().split(","):
        a,_,b=part.partition("-"); s.update(range(int(a),int(b or a)+1))
    return s
sib=cpus(open("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list").read())
c=min(i for i in range(1,64) if i not in sib)
print("0,%d"%c)' 2>/dev/null || echo 0,1)
echo "pair: $pair" | tee $OUT/pair.txt
A="-spirv_input -device pvc -output_no_suffix -internal_options -cl-intel-allow-zebin -q"
mkdir -p zs zm
for i in $(seq 0 19); do echo "-file spv/spv/ours.bin.$i.spv $A -output z$i -out_dir /tmp/w/zm"; done > list20.txt
/usr/bin/time -f "one core, 20 images as 20 processes: %e s wall %U user %S sys" taskset -c 0 sh -c "for i in \$(seq 0 19); do ocloc compile -file spv/spv/ours.bin.\$i.spv $A -output zs/z\$i; done" 2>&1 | tail -1 | tee $OUT/micro.txt
/usr/bin/time -f "one core, 20 images in one ocloc multi: %e s wall %U user %S sys" taskset -c 0 ocloc multi list20.txt 2>&1 | tail -1 | tee -a $OUT/micro.txt
ls zs | wc -l; ls zm | wc -l; cmp zs/z7 zm/z7 && echo zebin-same
BASE=/tmp/w/bin/sycl-thinlto-base CORES=2 CPUS=$pair RUNS=2 UPSTREAM=once bash aot.sh /tmp/w 40 4 pvc /tmp/w 2>&1 | tee $OUT/aot2b.txt
