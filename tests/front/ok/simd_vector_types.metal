#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 v = float4(out[tid]);
  int2 i = int2(int(tid));
  half3 h = half3(1.0h);
  float4 s = simd_sum(v);
  int2 m = simd_max(i);
  half3 p = simd_shuffle_down(h, 1);
  out[tid] = s.x + float(m.y) + float(p.z);
}
