#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float partial[32];
  float v = simd_sum(out[lid]);
  if (lane == 0) partial[sg] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (sg == 0) out[0] = simd_sum(partial[lane]);
}
