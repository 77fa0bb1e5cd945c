#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float2 a = float2(1.0f, 2.0f);
  float4 b = float4(a, 3.0f, 4.0f);
  float4 c = float4(0.5f, a.yx, 1.0f);
  float3 d = float3(b.xy, c.z);
  out[tid] = d.x + c.w;
}
