#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(3)]], device float* b [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
  a[tid] = b[tid];
}
