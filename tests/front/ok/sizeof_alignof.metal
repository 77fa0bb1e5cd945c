#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[0] = float(sizeof(float4));
  out[1] = float(alignof(float3));
  out[2] = float(sizeof(packed_float3));
  out[3] = float(sizeof(int));
}
