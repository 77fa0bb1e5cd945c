// Stencil with guarded neighbours, a local pointer that stays inside its buffer, a
// uniform parameter read by every lane, and halves written by neighbouring threads
// (two threads per 4-byte word: no conflict at byte granularity).
// run: --grid 200 --threads 64 data=rand:float32:200 out=zeros:200 halves=zeros:200 n=200
#include <metal_stdlib>
using namespace metal;

kernel void stencil3(device const float *data [[buffer(0)]],
                     device float *out [[buffer(1)]],
                     device half *halves [[buffer(2)]],
                     constant uint &n [[buffer(3)]],
                     uint gid [[thread_position_in_grid]])
{
    device const float *row = data + (gid / 100) * 100;
    uint i = gid % 100;
    float left = i > 0 ? row[i - 1] : 0.0f;
    float right = i + 1 < 100 ? row[i + 1] : 0.0f;
    if (gid < n) {
        out[gid] = left + row[i] + right;
        halves[gid] = half(row[i]);
    }
}
