// Every lane of the SIMD group stores its own index into one threadgroup variable in the
// same statement: a write-write race between lanes, whatever lockstep gives.
// run: --threadgroups 1 --threads 32 out=zeros:32
#include <metal_stdlib>
using namespace metal;

kernel void last_writer(device uint *out [[buffer(0)]],
                        uint lane [[thread_index_in_simdgroup]],
                        uint lid [[thread_position_in_threadgroup]])
{
    threadgroup uint winner;
    winner = lane; // expect: data-race
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[lid] = winner;
}
