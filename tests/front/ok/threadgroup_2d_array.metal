#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  threadgroup float tile[8][8];
  tile[tid % 8][tid / 8 % 8] = out[tid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = tile[0][tid % 8];
}
