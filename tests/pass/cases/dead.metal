// Rule 4 of the fold pass: locals never read go with their assignments; stores through
// pointers, atomics, barriers and SIMD functions stay.
#include <metal_stdlib>
using namespace metal;

struct pair { int a; float b; };

// unused, unread: loaded, assigned, partly assigned; only out's store stays
kernel void unread_locals(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
                          uint gid [[thread_position_in_grid]]) {
    float unused = in[gid] * 2.0f;
    float written;
    written = in[gid + 1];
    pair p;
    p.a = 3;
    p.b = in[0];
    float4 v = float4(1.0f);
    v.y = 2.0f;
    out[gid] = in[gid];
}

// stay: the atomic (its result unread), the SIMD sum, the store through a pointer local,
// the barrier
kernel void effects_stay(device atomic_uint* counter [[buffer(0)]], device float* out [[buffer(1)]],
                         uint gid [[thread_position_in_grid]]) {
    uint old = atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed);
    float s = simd_sum(out[gid]);
    device float* p = out + gid;
    *p = 5.0f;
    threadgroup_barrier(mem_flags::mem_device);
}
