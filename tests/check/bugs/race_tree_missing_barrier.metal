// A tree reduction in threadgroup memory whose loop lost its barrier: a thread reads
// ldata[lid + s] that another SIMD group writes in the same phase.
// run: --threadgroups 2 --threads 256 --tgmem 0=1024 input=rand:int32:512 output=zeros:2
#include <metal_stdlib>
using namespace metal;

kernel void tree_sum(const device int *input [[buffer(0)]],
                     device int *output [[buffer(1)]],
                     threadgroup int *ldata [[threadgroup(0)]],
                     uint gid [[thread_position_in_grid]],
                     uint lid [[thread_position_in_threadgroup]],
                     uint lsize [[threads_per_threadgroup]],
                     uint group [[threadgroup_position_in_grid]])
{
    ldata[lid] = input[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint s = lsize / 2; s > 0; s /= 2) {
        if (lid < s) {
            int mine = ldata[lid];
            ldata[lid] = mine + ldata[lid + s]; // expect: data-race
        }
        // the barrier that belongs here is missing
    }
    if (lid == 0)
        output[group] = ldata[0];
}
