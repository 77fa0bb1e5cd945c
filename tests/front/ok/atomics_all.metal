#include <metal_stdlib>
using namespace metal;
kernel void k(device atomic_int* a [[buffer(0)]], device int* out [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
  int x = atomic_load_explicit(a, memory_order_relaxed);
  atomic_store_explicit(a, x + 1, memory_order_relaxed);
  int old = atomic_exchange_explicit(a, 5, memory_order_relaxed);
  int expected = old;
  bool done = atomic_compare_exchange_weak_explicit(a, &expected, 6, memory_order_relaxed, memory_order_relaxed);
  int s = atomic_fetch_add_explicit(a, 1, memory_order_relaxed) + atomic_fetch_sub_explicit(a, 1, memory_order_relaxed) + atomic_fetch_min_explicit(a, 1, memory_order_relaxed) + atomic_fetch_max_explicit(a, 1, memory_order_relaxed) + atomic_fetch_and_explicit(a, 1, memory_order_relaxed) + atomic_fetch_or_explicit(a, 1, memory_order_relaxed) + atomic_fetch_xor_explicit(a, 1, memory_order_relaxed);
  out[tid] = done ? s : 0;
}
