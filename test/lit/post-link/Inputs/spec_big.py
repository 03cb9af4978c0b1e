# A module reading one specialization constant of N i32s (a zeroinitializer array, returned
# through sret), as DPC++'s front end leaves it; or, with --check-last PROP N, checks that the
# .prop's last descriptor of uid_big is {N-1, 4(N-1), 4}.
import sys

def intel_base64_decode(text):
    # intel's variant: standard alphabet, 6 bits a character, least significant first.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    value, bits, out = 0, 0, bytearray()
    for c in text:
        value |= alphabet.index(c) << bits
        bits += 6
        while bits >= 8:
            out.append(value & 0xff)
            value >>= 8
            bits -= 8
    return bytes(out)

if sys.argv[1] == "--check-last":
    n = int(sys.argv[3])
    for line in open(sys.argv[2]):
        if line.startswith("uid_big=2|"):
            raw = intel_base64_decode(line.strip().split("|", 1)[1])[8:]
            last = [int.from_bytes(raw[-12 + 4 * k:len(raw) - 8 + 4 * k], "little") for k in range(3)]
            want = [n - 1, 4 * (n - 1), 4]
            sys.exit(0 if last == want else "last descriptor %s, expected %s" % (last, want))
    sys.exit("no uid_big property")

n = int(sys.argv[1])
print('''target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"
%%"spec_id.big" = type { [%d x i32] }
@__usid_str = private unnamed_addr constant [8 x i8] c"uid_big\\00", align 1
@big_id = internal addrspace(1) constant %%"spec_id.big" zeroinitializer, align 4
define spir_kernel void @K(ptr addrspace(1) %%out) #0 {
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueIA_iET_PKcPKvS4_(ptr addrspace(1) sret([%d x i32]) align 4 %%out, ptr addrspace(4) addrspacecast (ptr @__usid_str to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @big_id to ptr addrspace(4)), ptr addrspace(4) null)
  ret void
}
declare spir_func void @_Z40__sycl_getComposite2020SpecConstantValueIA_iET_PKcPKvS4_(ptr addrspace(1) sret([%d x i32]) align 4, ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
attributes #0 = { "sycl-module-id"="a.cpp" }''' % (n, n, n))
