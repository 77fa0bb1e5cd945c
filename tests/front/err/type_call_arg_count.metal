#include <metal_stdlib>
using namespace metal;
float add(float a, float b) { return a + b; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = add(1.0f);
}
