#include <metal_stdlib>
using namespace metal;
#line 100
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = 2.0f;
}
