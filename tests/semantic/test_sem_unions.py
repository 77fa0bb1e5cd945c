"""Unions and anonymous members as quantized-block formats use them: a struct in a device
buffer holding an anonymous union of an anonymous struct {half d, m} and a half2, read
both ways; a union in thread memory written as one member and read as another (the bits
of a half as a ushort); and the MSL size of such blocks."""
import numpy as np

from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

SRC = HEADER + """
typedef struct {
    __extension__ union {
        struct {
            half d;
            half m;
        };
        half2 dm;
    };
    uchar qs[6];
} blk;
static_assert(sizeof(blk) == 12, "half2-aligned union, 6 bytes, padded to 4");

typedef union {
    half f16;
    ushort u16;
} bits_t;

kernel void k(device blk *b [[buffer(0)]], device float *o [[buffer(1)]], device ushort *w [[buffer(2)]],
              uint i [[thread_position_in_grid]]) {
    half2 dm = b[i].dm;
    o[i] = float(b[i].d) * 10.0f + float(b[i].m) + float(dm.y) * 100.0f + float(b[i].qs[i % 6]);
    bits_t s;
    s.f16 = b[i].m;
    w[i] = s.u16;
    b[i].dm = half2(dm.y, dm.x);      // written through the other member
}
"""

BLK = np.dtype({"names": ["d", "m", "qs"], "formats": ["<f2", "<f2", ("u1", 6)],
                "offsets": [0, 2, 4], "itemsize": 12})


def test_union_members_alias(run, rng, tmp_path):
    n = 200
    b = np.zeros(n, dtype=BLK)
    b["d"] = floats(rng, n, -4, 4).astype(np.float16)
    b["m"] = floats(rng, n, -4, 4).astype(np.float16)
    b["qs"] = ints(rng, (n, 6), 1, 255, np.uint8)
    raw = tmp_path / "b.bin"
    raw.write_bytes(b.tobytes())
    outb = tmp_path / "b_out.bin"
    r = run(SRC, {"b": f"@{raw}", "o": garbage(rng, n), "w": garbage(rng, n, np.uint16)}, ["o", "w"],
            grid=n, threads=32, extra=["-o", f"b={outb}"])
    d = b["d"].astype(np.float64)
    m = b["m"].astype(np.float64)
    q = b["qs"][np.arange(n), np.arange(n) % 6].astype(np.float64)
    close(r["o"], d * 10 + m + m * 100 + q, rtol=1e-6, atol=1e-4, what="d, m and dm.y name the same bytes")
    exact(r["w"], b["m"].view(np.uint16), "the bits of a half read as ushort")
    back = np.frombuffer(outb.read_bytes(), dtype=BLK)
    exact(back["d"].view(np.uint16), b["m"].view(np.uint16), "dm written: d now holds m")
    exact(back["m"].view(np.uint16), b["d"].view(np.uint16), "dm written: m now holds d")
    exact(back["qs"], b["qs"], "bytes after the union untouched")
