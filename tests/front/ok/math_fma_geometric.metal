#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float3 a = float3(out[tid]);
  float3 b = float3(1.0f, 2.0f, 3.0f);
  float r = fma(a.x, b.y, 1.0f) + mad(a.y, 2.0f, 3.0f) + dot(a, b) + length(a) + distance(a, b);
  float3 n = normalize(b) + cross(a, b);
  out[tid] = r + n.x;
}
