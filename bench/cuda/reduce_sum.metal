// reduce_sum.metal — the CUDA benchmark's reduction: the sum of n floats in ONE dispatch.
// Grid-stride over float4 (16-byte loads, four in flight per thread), simd_sum, then one
// partial per threadgroup; the last threadgroup to finish (an atomic ticket) adds the
// partials and resets the ticket, so the dispatch can be repeated without clearing.
#include <metal_stdlib>
using namespace metal;

kernel void reduce_sum(device const float4 *in [[buffer(0)]],
                       device float *partials [[buffer(1)]],
                       device atomic_uint *ticket [[buffer(2)]],
                       device float *out [[buffer(3)]],
                       constant uint &n4 [[buffer(4)]],      // n / 4 (n is a multiple of 4)
                       uint gid [[thread_position_in_grid]],
                       uint grid [[threads_per_grid]],
                       uint group [[threadgroup_position_in_grid]],
                       uint groups [[threadgroups_per_grid]],
                       uint lid [[thread_index_in_threadgroup]],
                       uint lane [[thread_index_in_simdgroup]],
                       uint sg [[simdgroup_index_in_threadgroup]],
                       uint sgs [[simdgroups_per_threadgroup]])
{
    threadgroup float sg_sums[32];
    threadgroup bool last;
    float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    uint i = gid;
    for (; i + 3 * grid < n4; i += 4 * grid) {
        float4 a = in[i], b = in[i + grid], c = in[i + 2 * grid], d = in[i + 3 * grid];
        acc0 += (a.x + a.y) + (a.z + a.w);
        acc1 += (b.x + b.y) + (b.z + b.w);
        acc2 += (c.x + c.y) + (c.z + c.w);
        acc3 += (d.x + d.y) + (d.z + d.w);
    }
    for (; i < n4; i += grid) {
        float4 a = in[i];
        acc0 += (a.x + a.y) + (a.z + a.w);
    }
    float acc = simd_sum((acc0 + acc1) + (acc2 + acc3));
    if (lane == 0)
        sg_sums[sg] = acc;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
        float v = lane < sgs ? sg_sums[lane] : 0.0f;
        v = simd_sum(v);
        if (lane == 0)
            partials[group] = v;
    }
    // mem_device: this group's partial is visible to every group before its ticket is
    threadgroup_barrier(mem_flags::mem_device);
    if (lid == 0)
        last = atomic_fetch_add_explicit(ticket, 1u, memory_order_relaxed) == groups - 1;
    threadgroup_barrier(mem_flags::mem_device);
    if (last) {
        float s = 0.0f;
        for (uint g = lid; g < groups; g += 32 * sgs)
            s += partials[g];
        s = simd_sum(s);
        if (lane == 0)
            sg_sums[sg] = s;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (lid == 0) {
            float total = 0.0f;
            for (uint k = 0; k < sgs; k++)
                total += sg_sums[k];
            out[0] = total;
            atomic_store_explicit(ticket, 0u, memory_order_relaxed);
        }
    }
}

// The smallest kernel: per-dispatch host overhead is measured on it.
kernel void empty_kernel(device float *out [[buffer(0)]], uint gid [[thread_position_in_grid]])
{
    if (gid == 0xffffffffu)
        out[0] = 1.0f;
}
