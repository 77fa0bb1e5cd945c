#include <metal_stdlib>
using namespace metal;
kernel void k(device float *f [[buffer(0)]], device uint *u [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    float x = f[tid];
    f[tid] = quad_sum(x) + quad_max(x) + quad_shuffle(x, 1) + quad_shuffle_xor(x, 2) +
             quad_broadcast(x, 0) + quad_prefix_exclusive_sum(x) + quad_shuffle_and_fill_down(x, x, 1);
    u[tid] = quad_or(u[tid]) + uint(quad_all(x > 0.0f)) + uint(quad_is_first());
}
