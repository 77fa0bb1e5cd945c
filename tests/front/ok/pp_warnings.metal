#include <metal_stdlib>
using namespace metal;
#warning tuning needed
#define SCALE 2.0f
#define SCALE 3.0f
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = SCALE;
}
