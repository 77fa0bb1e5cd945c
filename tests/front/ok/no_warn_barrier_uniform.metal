#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], constant uint& n [[buffer(1)]], uint tid [[thread_position_in_grid]], uint tg [[threadgroup_position_in_grid]]) {
  threadgroup float t[32];
  if (n > 4u) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  for (uint i = 0; i < n; i++) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (tg == 0u) threadgroup_barrier(mem_flags::mem_threadgroup);
  if (tid > 100u) return;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = t[0];
}
