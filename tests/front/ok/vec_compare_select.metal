#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 a = float4(1.0f, 2.0f, 3.0f, 4.0f);
  bool4 m = a > 2.0f;
  float4 r = select(a, float4(0.0f), m);
  out[tid] = r.z;
}
