# Writes a small tree shaped as intel/llvm's (our own tests, not intel's) for intel_lit.py:
# a sycl-post-link test that passes, one that fails, one that needs a tool that is not here,
# one that REQUIRES a feature this machine lacks, an Inputs/ file that is no test, and three
# clang-linker-wrapper SYCL tests, two needing intel's clang. The RUN keyword is assembled so
# that lit does not take these lines for this test's own.
import os
import sys

root = sys.argv[1]
R = "R" + "UN:"
KERNELS = """target triple = "spir64-unknown-unknown"
define spir_kernel void @K1() #0 {
  ret void
}
define spir_kernel void @K2() #0 {
  ret void
}
attributes #0 = { "sycl-module-id"="a.cpp" }
"""
files = {
    "llvm/test/tools/sycl-post-link/split/pass.ll":
        "; %s sycl-post-link -symbols -split=kernel %%s -o %%t.table\n"
        "; %s FileCheck %%s --check-prefix=SYM < %%t_0.sym\n; SYM: K{{[12]}}\n" % (R, R) + KERNELS,
    "llvm/test/tools/sycl-post-link/fail.ll":
        "; %s sycl-post-link -symbols -split=kernel %%s -o %%t.table\n"
        "; %s FileCheck %%s < %%t_0.sym\n; CHECK: NoSuchKernel\n" % (R, R) + KERNELS,
    "llvm/test/tools/sycl-post-link/needs-tool.ll":
        "; %s sycl-module-split -split=kernel %%s -o %%t\n" % R + KERNELS,
    # --by-hand: the sycl-module-split line and the one reading its output skipped, -json=0
    # dropped.
    "llvm/test/tools/sycl-post-link/split/by-hand.ll":
        "; %s sycl-post-link -properties -json=0 -symbols -split=kernel %%s -o %%t.table\n"
        "; %s FileCheck %%s --check-prefix=SYM < %%t_0.sym\n"
        "; %s sycl-module-split -split=kernel %%s -o %%t2\n"
        "; %s FileCheck %%s --check-prefix=SYM < %%t2_0.sym\n; SYM: K{{[12]}}\n" % (R, R, R, R) + KERNELS,
    "llvm/test/tools/sycl-post-link/requires.ll":
        "; REQUIRES: asserts\n; %s sycl-post-link -symbols %%s -o %%t.table\n" % R + KERNELS,
    "llvm/test/tools/sycl-post-link/Inputs/helper.ll":
        "; %s false\n" % R,
    # lit takes a RUN line wherever the keyword is in it: '//// RUN:' too.
    "clang/test/Driver/linker-wrapper-sycl-help.cpp":
        "// SYCL: the wrapper's help\n//// %s clang-linker-wrapper --help | FileCheck %%s\n"
        "// CHECK: --sycl-post-link-options\n" % R,
    # Device code only intel's clang makes a kernel of.
    "clang/test/Driver/linker-wrapper-sycl-kernel-attribute.cpp":
        "// %s %%clang -cc1 -fsycl-is-device -triple=spir64-unknown-unknown %%s -emit-llvm-bc -o %%t.bc\n"
        "// %s clang-linker-wrapper --help\n"
        "template <typename T, typename F>\n"
        "__attribute__((sycl_kernel)) void kernel(const F &f) { f(); }\n" % (R, R),
    "clang/test/Driver/linker-wrapper-sycl-intel-clang.cpp":
        "// %s %%clangxx -fsycl -fsycl-targets=spir64 -c %%s -o %%t.o\n"
        "// %s clang-linker-wrapper --linker-path=/usr/bin/ld %%t.o -o %%t\n" % (R, R),
    "clang/test/Driver/unrelated.cpp":
        "// %s clang-linker-wrapper --help\n" % R,
}
for path, text in files.items():
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
