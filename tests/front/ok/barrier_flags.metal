#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  threadgroup_barrier(mem_flags::mem_none);
  threadgroup_barrier(mem_flags::mem_device);
  threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);
  simdgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = 1.0f;
}
