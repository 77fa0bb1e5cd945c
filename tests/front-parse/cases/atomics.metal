#include <metal_stdlib>
using namespace metal;
kernel void k(device atomic_uint *counter [[buffer(0)]],
              device atomic<int> *values [[buffer(1)]],
              device atomic_float *sum [[buffer(2)]],
              threadgroup atomic_int *local_count [[threadgroup(0)]]) {
    uint old = atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed);
    int expected = 0;
    atomic_compare_exchange_weak_explicit(&values[0], &expected, 1, memory_order_relaxed, memory_order_relaxed);
    atomic_store_explicit(local_count, 0, memory_order_relaxed);
    float v = atomic_load_explicit(sum, memory_order_relaxed);
    atomic_fetch_add_explicit(sum, v + float(old), memory_order::memory_order_relaxed);
}
