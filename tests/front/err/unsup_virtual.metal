#include <metal_stdlib>
using namespace metal;
struct Base { virtual float get() { return 1.0f; } };
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = 1.0f;
}
