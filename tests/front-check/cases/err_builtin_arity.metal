#include <metal_stdlib>
using namespace metal;
kernel void k(device float *f [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    f[tid] = simd_sum(f[tid], f[tid]);
    f[tid] = clamp(f[tid], 0.0f);
    f[tid] = dot(f[tid]);
    simd_is_first(1);
    threadgroup_barrier();
}
