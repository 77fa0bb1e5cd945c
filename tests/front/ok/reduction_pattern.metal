#include <metal_stdlib>
using namespace metal;
kernel void reduce(device const float* in [[buffer(0)]], device atomic_float* total [[buffer(1)]], threadgroup float* partial [[threadgroup(0)]], uint tid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]], uint nsg [[simdgroups_per_threadgroup]]) {
  float v = simd_sum(in[tid]);
  if (lane == 0) partial[sg] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (sg == 0) {
    float w = lane < nsg ? partial[lane] : 0.0f;
    w = simd_sum(w);
    if (lane == 0) atomic_fetch_add_explicit(total, w, memory_order_relaxed);
  }
}
