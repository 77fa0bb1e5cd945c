#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]], uint2 gid [[thread_position_in_grid]]) {
  out[tid] = 1.0f;
}
