#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 v = float4(1.0f, 2.0f, 3.0f, 4.0f);
  v[2] = 9.0f;
  out[tid] = v[tid % 4];
}
