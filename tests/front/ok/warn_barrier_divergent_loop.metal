#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]]) {
  for (uint i = 0; i < lid; i++) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  out[lid] = 1.0f;
}
