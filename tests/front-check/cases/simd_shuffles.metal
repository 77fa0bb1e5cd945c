#include <metal_stdlib>
using namespace metal;
kernel void k(device float *f [[buffer(0)]], uint tid [[thread_position_in_grid]],
              ushort lane [[thread_index_in_simdgroup]]) {
    float x = f[tid];
    float a = simd_shuffle(x, lane ^ 1);
    float b = simd_shuffle_up(x, 1) + simd_shuffle_down(x, 2);
    float c = simd_shuffle_xor(x, 4) + simd_shuffle_rotate_up(x, 1) + simd_shuffle_rotate_down(x, 3);
    float d = simd_shuffle_and_fill_up(x, 0.0f, 2) + simd_shuffle_and_fill_down(x, x, 1, 8);
    float e = simd_broadcast(x, 0);
    f[tid] = a + b + c + d + e;
}
