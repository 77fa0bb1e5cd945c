// A left-neighbour read with no guard for the first thread: gid - 1 wraps around.
// run: --grid 128 --threads 64 data=rand:float32:128 out=zeros:128
#include <metal_stdlib>
using namespace metal;

kernel void diff(device const float *data [[buffer(0)]],
                 device float *out [[buffer(1)]],
                 uint gid [[thread_position_in_grid]])
{
    out[gid] = data[gid] - data[gid - 1]; // expect: out-of-bounds
}
