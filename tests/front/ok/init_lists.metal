#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 v = {1.0f, 2.0f, 3.0f, 4.0f};
  int a[3] = {1, 2, 3};
  float2 z = {};
  out[tid] = v.y + float(a[2]) + z.x;
}
