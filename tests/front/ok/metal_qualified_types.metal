#include <metal_stdlib>
kernel void k(device metal::float4* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  metal::float4 v = metal::float4(1.0f);
  out[tid] = metal::abs(v);
}
