// simd_broadcast from lane 40, outside the SIMD group's 32 lanes.
// run: --threadgroups 1 --threads 64 data=rand:float32:64 out=zeros:64 src=40
#include <metal_stdlib>
using namespace metal;

kernel void broadcast_far(device const float *data [[buffer(0)]],
                          device float *out [[buffer(1)]],
                          constant uint &src [[buffer(2)]],
                          uint gid [[thread_position_in_grid]])
{
    out[gid] = simd_broadcast(data[gid], (ushort)src); // expect: inactive-lane
}
