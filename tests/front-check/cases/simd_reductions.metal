#include <metal_stdlib>
using namespace metal;
kernel void k(device float *f [[buffer(0)]], device int *i [[buffer(1)]], device half2 *h [[buffer(2)]],
              uint tid [[thread_position_in_grid]]) {
    float x = f[tid];
    int n = i[tid];
    f[tid] = simd_sum(x) + simd_product(x) + simd_min(x) + simd_max(x);
    i[tid] = simd_and(n) | simd_or(n) ^ simd_xor(n);
    f[tid] += simd_prefix_inclusive_sum(x) + simd_prefix_exclusive_sum(x) +
              simd_prefix_inclusive_product(x) + simd_prefix_exclusive_product(x);
    h[tid] = simd_sum(h[tid]);
    uint u = simd_max(uint(n));
    i[tid] += int(u) + simd_broadcast_first(n);
}
