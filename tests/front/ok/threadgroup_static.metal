#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  threadgroup float tile[64];
  tile[tid % 64] = out[tid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = tile[(tid + 1) % 64];
}
