# A module reading one specialization constant of N i32s (a zeroinitializer array, returned
# through sret), as DPC++'s front end leaves it; or, with --check PROP N, checks the .prop's
# properties of it: uid_big's descriptors are {i, 4i, 4} for i below N, and the defaults are
# 4N zero bytes, each property after its 64-bit size in bits.
import sys
from array import array

ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def lane(values, f):
    # f applied to each 6-bit value, as one big integer of bytes (C speed: no loop per byte).
    table = bytes(f(v) & 0xFF if v < 64 else 0 for v in range(256))
    return int.from_bytes(values.translate(table), "little")


def intel_base64_decode(text):
    # intel's variant: the standard alphabet, 6 bits a character, least significant first; 4
    # characters make 3 bytes.
    values = bytes(text, "ascii").translate(bytes.maketrans(ALPHABET, bytes(range(64))))
    values += bytes(-len(values) % 4)
    d = [values[k::4] for k in range(4)]
    out = bytearray(3 * len(d[0]))
    n = len(d[0])
    byte0 = lane(d[0], lambda v: v) | lane(d[1], lambda v: v << 6)
    byte1 = lane(d[1], lambda v: v >> 2) | lane(d[2], lambda v: v << 4)
    byte2 = lane(d[2], lambda v: v >> 4) | lane(d[3], lambda v: v << 2)
    out[0::3] = byte0.to_bytes(n, "little")
    out[1::3] = byte1.to_bytes(n, "little")
    out[2::3] = byte2.to_bytes(n, "little")
    return bytes(out)


def property_bytes(prop, name):
    for line in open(prop):
        if line.startswith(name + "=2|"):
            raw = intel_base64_decode(line.strip().split("|", 1)[1])
            size = int.from_bytes(raw[:8], "little") // 8
            return raw[8 : 8 + size]
    sys.exit("no property %s" % name)


if sys.argv[1] == "--check":
    prop, n = sys.argv[2], int(sys.argv[3])
    want = array("I", bytes(12 * n))
    want[0::3] = array("I", range(n))
    want[1::3] = array("I", range(0, 4 * n, 4))
    want[2::3] = array("I", [4]) * n
    if sys.byteorder != "little":
        want.byteswap()
    got, want = property_bytes(prop, "uid_big"), want.tobytes()
    if got != want:
        at = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), min(len(got), len(want)))
        sys.exit("uid_big: %d bytes, expected %d; the first difference at byte %d" % (len(got), len(want), at))
    defaults = property_bytes(prop, "all")
    if defaults != bytes(4 * n):
        sys.exit("defaults: %d bytes, expected %d zero bytes" % (len(defaults), 4 * n))
    sys.exit(0)

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
