#include <metal_stdlib>
using namespace metal;
inline float twice(float x) { return 2.0f * x; }
static float thrice(float x) { return 3.0f * x; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = twice(out[tid]) + thrice(1.0f);
}
