#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]]) {
  threadgroup float t[64];
  if (lid < 32) {
    t[lid] = out[tid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  out[tid] = t[0];
}
