// coherent(device) device pointers; a threadgroup array written `= {0}` (accepted, ignored, with a warning)
#include <metal_stdlib>
using namespace metal;
kernel void k(volatile coherent(device) device uint* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  threadgroup float tg[32] = {0};
  tg[i % 32] = float(x[i]);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  x[i] = uint(tg[i % 32]) + 1u;
}
