// Seed 003's corrected reduction: a threadgroup tree reduction, then one atomic add per
// threadgroup.
#include <metal_stdlib>
using namespace metal;

kernel void reduce(const device int *input [[buffer(0)]],
                   device atomic_int *output [[buffer(1)]],
                   threadgroup int *ldata [[threadgroup(0)]],
                   uint gid [[thread_position_in_grid]],
                   uint lid [[thread_position_in_threadgroup]],
                   uint lsize [[threads_per_threadgroup]])
{
    int val = input[gid];
    ldata[lid] = val;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint active_threads = lsize / 2; active_threads > 0; active_threads /= 2) {
        if (lid < active_threads) {
            val += ldata[lid + active_threads];
            ldata[lid] = val;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (lid == 0) {
        atomic_fetch_add_explicit(output, val, memory_order_relaxed);
    }
}
