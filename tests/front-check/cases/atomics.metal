#include <metal_stdlib>
using namespace metal;
kernel void k(device atomic_uint *cnt [[buffer(0)]], device atomic_float *fsum [[buffer(1)]],
              device atomic<int> *imax [[buffer(2)]], device uint *out [[buffer(3)]],
              uint tid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]]) {
    threadgroup atomic_int local;
    if (lid == 0) atomic_store_explicit(&local, 0, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    atomic_fetch_add_explicit(&local, 1, memory_order_relaxed);
    uint old = atomic_fetch_add_explicit(cnt, 1u, memory_order_relaxed);
    atomic_fetch_sub_explicit(&cnt[1], 1u, memory_order_relaxed);
    atomic_fetch_or_explicit(cnt + 2, 4u, memory_order_relaxed);
    atomic_fetch_add_explicit(fsum, 0.5f, memory_order_relaxed);
    atomic_fetch_max_explicit(imax, int(tid), memory_order_relaxed);
    int expected = 0;
    bool swapped = atomic_compare_exchange_weak_explicit(imax, &expected, 7, memory_order_relaxed, memory_order_relaxed);
    uint seen = atomic_load_explicit(cnt, memory_order_relaxed);
    int prev = atomic_exchange_explicit(&local, 3, memory_order_relaxed);
    out[tid] = old + seen + uint(swapped) + uint(prev) + uint(expected);
}
