#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int4 i = int4(1, -2, 3, -4);
  float4 f = float4(i);
  uint2 u = uint2(f.xy);
  half3 h = half3(f.xyz);
  out[tid] = f.y + float(u.x) + float(h.z);
}
