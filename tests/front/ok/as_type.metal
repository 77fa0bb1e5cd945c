#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  uint bits = as_type<uint>(out[tid]);
  float back = as_type<float>(bits ^ 0x80000000u);
  half2 hh = as_type<half2>(bits);
  out[tid] = back + float(hh.x);
}
