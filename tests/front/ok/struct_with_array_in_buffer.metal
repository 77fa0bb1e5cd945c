#include <metal_stdlib>
using namespace metal;
struct Block { float v[4]; int count; };
kernel void k(device Block* b [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  b[tid].v[b[tid].count % 4] = 1.0f;
}
