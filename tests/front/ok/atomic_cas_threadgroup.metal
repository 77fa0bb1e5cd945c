#include <metal_stdlib>
using namespace metal;
kernel void k(device int* out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]]) {
  threadgroup atomic_int flag;
  if (lid == 0) atomic_store_explicit(&flag, 0, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  int expected = 0;
  bool won = atomic_compare_exchange_weak_explicit(&flag, &expected, int(lid) + 1, memory_order_relaxed, memory_order_relaxed);
  if (won) out[0] = int(lid);
}
