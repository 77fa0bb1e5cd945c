// A butterfly exchange inside `if (lane % 2 == 0)`: every partner lane is odd, so it is
// inactive.
// run: --threadgroups 1 --threads 32 data=rand:int32:32 out=zeros:32
#include <metal_stdlib>
using namespace metal;

kernel void pair_sum(device const int *data [[buffer(0)]],
                     device int *out [[buffer(1)]],
                     uint gid [[thread_position_in_grid]],
                     uint lane [[thread_index_in_simdgroup]])
{
    int v = data[gid];
    if (lane % 2 == 0) {
        int partner = simd_shuffle_xor(v, (ushort)1); // expect: inactive-lane
        out[gid] = v + partner;
    }
}
