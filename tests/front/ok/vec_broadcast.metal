#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float3 v = float3(1.0f, 2.0f, 3.0f);
  v = 1.0f - v;
  v = v / 2.0f;
  out[tid] = v.y;
}
