#include <metal_stdlib>
using namespace metal;
kernel void k(device atomic_float *f [[buffer(0)]], device atomic_uint *u [[buffer(1)]],
              device uint *plain [[buffer(2)]], threadgroup atomic_float *tf [[threadgroup(0)]],
              device atomic_bool *b [[buffer(3)]]) {
    atomic_fetch_add_explicit(u, 1u, memory_order_seq_cst);
    atomic_fetch_min_explicit(f, 1.0f, memory_order_relaxed);
    atomic_fetch_add_explicit(tf, 1.0f, memory_order_relaxed);
    atomic_fetch_add_explicit(plain, 1u, memory_order_relaxed);
    atomic_fetch_add_explicit(b, true, memory_order_relaxed);
    uint expected = 0;
    device uint *dev = plain;
    atomic_compare_exchange_weak_explicit(u, dev, 1u, memory_order_relaxed, memory_order_relaxed);
    atomic_uint local;
    u[0] = 3u;
}
