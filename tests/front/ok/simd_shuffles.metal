#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  ushort d = 1;
  float a = simd_shuffle(x, d) + simd_shuffle_up(x, d) + simd_shuffle_down(x, d) + simd_shuffle_xor(x, d);
  float b = simd_shuffle_rotate_up(x, d) + simd_shuffle_rotate_down(x, d);
  float c = simd_shuffle_and_fill_up(x, 0.0f, d) + simd_shuffle_and_fill_down(x, 0.0f, d, 4);
  out[tid] = a + b + c;
}
