#include <metal_stdlib>
using namespace metal;
kernel void k(device atomic_int* ai [[buffer(0)]], device atomic_uint* au [[buffer(1)]], device atomic_float* af [[buffer(2)]], device atomic<int>* at [[buffer(3)]], device atomic_bool* ab [[buffer(4)]]) {
  atomic_fetch_add_explicit(ai, 1, memory_order_relaxed);
  atomic_fetch_or_explicit(au, 2u, memory_order_relaxed);
  atomic_fetch_add_explicit(af, 1.5f, memory_order_relaxed);
  atomic_fetch_max_explicit(at, 4, memory_order_relaxed);
  atomic_store_explicit(ab, true, memory_order_relaxed);
}
