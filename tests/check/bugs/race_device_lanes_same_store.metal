// Pairs of lanes store into one output element in the same statement.
// run: --grid 64 --threads 64 data=rand:float32:64 out=zeros:32
#include <metal_stdlib>
using namespace metal;

kernel void halve(device const float *data [[buffer(0)]],
                  device float *out [[buffer(1)]],
                  uint gid [[thread_position_in_grid]])
{
    out[gid / 2] = data[gid]; // expect: data-race
}
