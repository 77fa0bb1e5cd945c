#include <metal_stdlib>
using namespace metal;
[[visible]] float helper(float x) { return x; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = helper(1.0f);
}
