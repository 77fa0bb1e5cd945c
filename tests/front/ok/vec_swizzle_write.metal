#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 v = float4(0.0f);
  v.yx = float2(1.0f, 2.0f);
  v.w = 3.0f;
  v.rb += 1.0f;
  out[tid] = v.x;
}
