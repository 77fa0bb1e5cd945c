#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 a = float4(1.0f);
  float3 b = float3(1.0f);
  float4 c = a + b;
  out[tid] = c.x;
}
