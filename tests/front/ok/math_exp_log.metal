#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  out[tid] = exp(x) + exp2(x) + exp10(x) + log(x) + log2(x) + log10(x) + pow(x, 2.0f) + powr(x, 2.0f) + sqrt(x) + rsqrt(x);
}
