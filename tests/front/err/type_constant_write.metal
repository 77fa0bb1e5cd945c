#include <metal_stdlib>
using namespace metal;
kernel void k(constant float* c [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  c[tid] = 1.0f;
}
