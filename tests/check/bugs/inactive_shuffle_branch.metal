// simd_shuffle reads a lane that the branch made inactive: lanes 0..15 ask for lanes
// 16..31, which are not executing the call.
// run: --threadgroups 2 --threads 32 data=rand:float32:64 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void upper_half(device const float *data [[buffer(0)]],
                       device float *out [[buffer(1)]],
                       uint gid [[thread_position_in_grid]],
                       uint lane [[thread_index_in_simdgroup]])
{
    float v = data[gid];
    if (lane < 16) {
        out[gid] = simd_shuffle(v, (ushort)(lane + 16)); // expect: inactive-lane
    }
}
