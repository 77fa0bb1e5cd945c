#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float4 a = float4(out[tid]);
  bool4 n = isnan(a);
  bool any_nan = any(n);
  bool all_pos = all(a > 0.0f);
  out[tid] = any_nan ? 0.0f : (all_pos ? 1.0f : 2.0f);
}
