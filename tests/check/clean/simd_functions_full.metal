// SIMD-group functions with every lane active: broadcast from a valid lane, xor
// butterflies, rotations, prefix sums; and divisions by nonzero divisors.
// run: --threadgroups 2 --threads 64 data=rand:int32:128:1:100 out=zeros:128
#include <metal_stdlib>
using namespace metal;

kernel void simd_mix(device const int *data [[buffer(0)]],
                     device int *out [[buffer(1)]],
                     uint gid [[thread_position_in_grid]],
                     uint lane [[thread_index_in_simdgroup]])
{
    int v = data[gid];
    int b = simd_broadcast(v, (ushort)5);
    int x = v;
    for (ushort m = 1; m < 32; m *= 2)
        x += simd_shuffle_xor(x, m);
    int r = simd_shuffle_rotate_down(v, (ushort)3);
    int p = simd_prefix_exclusive_sum(v);
    out[gid] = b / v + x % v + r - p / (int(lane) + 1);
}
