// Seed 003's corrected tree reduction, then a SIMD-shuffle tail over full SIMD groups.
// run: --threadgroups 4 --threads 128 --tgmem 0=512 input=rand:int32:512 output=zeros:4
#include <metal_stdlib>
using namespace metal;

kernel void tree(const device int *input [[buffer(0)]],
                 device int *output [[buffer(1)]],
                 threadgroup int *ldata [[threadgroup(0)]],
                 uint gid [[thread_position_in_grid]],
                 uint lid [[thread_position_in_threadgroup]],
                 uint lsize [[threads_per_threadgroup]],
                 uint group [[threadgroup_position_in_grid]])
{
    int val = input[gid];
    ldata[lid] = val;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = lsize / 2; s >= 32; s /= 2) {
        if (lid < s) {
            val += ldata[lid + s];
            ldata[lid] = val;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (lid < 32) {
        for (ushort offset = 16; offset > 0; offset /= 2)
            val += simd_shuffle_down(val, offset);
        if (lid == 0)
            output[group] = val;
    }
}
