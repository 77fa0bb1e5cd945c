#include <metal_stdlib>
using namespace metal;
kernel void k(device float *f [[buffer(0)]], device long *l [[buffer(1)]], device bool *b [[buffer(2)]],
              uint tid [[thread_position_in_grid]]) {
    simd_and(f[tid]);
    simd_sum(l[tid]);
    simd_max(b[tid]);
    popcount(f[tid]);
    cross(float4(0), float4(0));
    sqrt(int2(1));
    simd_shuffle(f[tid], 1.5f);
    simd_shuffle_and_fill_up(f[tid], f[tid], 1, 3);
}
