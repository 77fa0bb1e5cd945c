#include <metal_stdlib>
using namespace metal;
float apply(float (*fn)(float), float x) { return fn(x); }
float twice(float x) { return 2.0f * x; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = apply(twice, 1.0f);
}
