// Lanes past the data's end return early; the survivors' shuffle_down reduction then
// reads lanes that have returned.
// run: --threadgroups 1 --threads 32 data=rand:float32:32 out=zeros:1 count=20
#include <metal_stdlib>
using namespace metal;

kernel void ragged_sum(device const float *data [[buffer(0)]],
                       device float *out [[buffer(1)]],
                       constant uint &count [[buffer(2)]],
                       uint gid [[thread_position_in_grid]])
{
    if (gid >= count)
        return;
    float v = data[gid];
    for (ushort offset = 16; offset > 0; offset /= 2)
        v += simd_shuffle_down(v, offset); // expect: inactive-lane
    if (gid == 0)
        out[0] = v;
}
