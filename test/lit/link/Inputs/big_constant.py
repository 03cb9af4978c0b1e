# big_constant.py KERNEL.LL: KERNEL.LL with a 1.5 MB constant of pseudo-random bytes that its
# kernel reads, on standard output: a module whose split output is larger than 1 MiB.
import random
import sys

random.seed(1)
n = 1500000
data = "".join("\\%02X" % random.randrange(256) for _ in range(n))
src = open(sys.argv[1]).read()
head = "define spir_kernel void @_ZTS2K1(ptr addrspace(1) %p) {\n"
assert head in src
src = src.replace(
    head,
    '@big = addrspace(1) constant [%d x i8] c"%s"\n\n' % (n, data) + head +
    "  %b = load i8, ptr addrspace(1) getelementptr (i8, ptr addrspace(1) @big, i64 7)\n"
    "  store i8 %b, ptr addrspace(1) %p\n")
sys.stdout.write(src)
