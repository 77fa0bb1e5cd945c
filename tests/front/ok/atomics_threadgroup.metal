#include <metal_stdlib>
using namespace metal;
kernel void k(device uint* out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]]) {
  threadgroup atomic_uint counter;
  if (lid == 0) atomic_store_explicit(&counter, 0u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  atomic_fetch_add_explicit(&counter, 1u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (lid == 0) out[0] = atomic_load_explicit(&counter, memory_order_relaxed);
}
