#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  out[tid] = precise::sqrt(x) + fast::sqrt(x) + precise::exp(x) + fast::log(x);
}
