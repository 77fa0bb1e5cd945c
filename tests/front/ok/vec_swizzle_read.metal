#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 v = float4(1.0f, 2.0f, 3.0f, 4.0f);
  float2 a = v.zx;
  float4 b = v.xxyy;
  float3 c = v.bgr;
  out[tid] = a.x + b.w + c.z;
}
