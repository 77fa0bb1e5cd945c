// Seed 003's ORIGINAL kernel (the Metal specification's reduction example): the first
// read input[gid + lsize] runs past the end of the input for every thread of the last
// threadgroup, because the grid covers the whole input.
// run: --threadgroups 4 --threads 256 --tgmem 0=1024 input=rand:int32:1024 output=zeros:1
#include <metal_stdlib>
using namespace metal;

kernel void reduce(const device int *input [[buffer(0)]],
                   device atomic_int *output [[buffer(1)]],
                   threadgroup int *ldata [[threadgroup(0)]],
                   uint gid [[thread_position_in_grid]],
                   uint lid [[thread_position_in_threadgroup]],
                   uint lsize [[threads_per_threadgroup]],
                   uint simd_size [[threads_per_simdgroup]],
                   uint simd_lane_id [[thread_index_in_simdgroup]],
                   uint simd_group_id [[simdgroup_index_in_threadgroup]])
{
    // Perform the first level of reduction.
    // Read from device memory, write to threadgroup memory.
    int val = input[gid]
            + input[gid + lsize]; // expect: out-of-bounds
    for (uint s = lsize / simd_size; s > simd_size; s /= simd_size) {
        // Perform per-SIMD partial reduction.
        for (uint offset = simd_size / 2; offset > 0; offset /= 2)
            val += simd_shuffle_down(val, offset);
        // Write per-SIMD partial reduction value to threadgroup memory.
        if (simd_lane_id == 0)
            ldata[simd_group_id] = val;
        // Wait for all partial reductions to complete.
        threadgroup_barrier(mem_flags::mem_threadgroup);
        val = (lid < s) ? ldata[lid] : 0;
    }
    // Perform final per-SIMD partial reduction to calculate the threadgroup partial result.
    for (uint offset = simd_size / 2; offset > 0; offset /= 2)
        val += simd_shuffle_down(val, offset);
    // Atomically update the reduction result.
    if (lid == 0)
        atomic_fetch_add_explicit(output, val, memory_order_relaxed);
}
