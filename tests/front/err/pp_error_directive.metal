#include <metal_stdlib>
using namespace metal;
#ifndef TILE
#error TILE must be defined
#endif
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = 1.0f;
}
