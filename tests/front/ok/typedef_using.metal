#include <metal_stdlib>
using namespace metal;
typedef float real;
using vec = float4;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  real r = 2.0f;
  vec v = vec(r);
  out[tid] = v.x;
}
