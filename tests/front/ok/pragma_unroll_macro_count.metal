#include <metal_stdlib>
using namespace metal;
#define N 4
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < N; ++i) { s += out[i]; }
  out[tid] = s;
}
