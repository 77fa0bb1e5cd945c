#include <metal_stdlib>
using namespace metal;
typedef struct {
    __extension__ union {
        struct {
            half d;
            half m;
        };
        half2 dm;
    };
    uchar qs[16];
} blk;
static_assert(sizeof(blk) == 20, "blk size");
typedef union {
    half f16;
    ushort u16;
} bits_t;
kernel void u(device const blk *b [[buffer(0)]], device float *o [[buffer(1)]], device ushort *w [[buffer(2)]],
              uint i [[thread_position_in_grid]]) {
    half2 dm = b[i].dm;
    o[i] = float(b[i].d) * 10.0f + float(b[i].m) + float(dm.y - dm.x) + float(b[i].qs[3]);
    bits_t s;
    s.f16 = b[i].m;
    w[i] = s.u16;
}
