#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], device int* io [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  int n = io[tid];
  out[tid] = simd_sum(x) + simd_product(x) + simd_min(x) + simd_max(x);
  io[tid] = simd_and(n) + simd_or(n) + simd_xor(n);
}
