// A per-threadgroup histogram that goes wrong in several ways in many threadgroups. Its
// only device writes are atomic, so its threadgroups are checked on several workers at
// once; test_corpus.py also runs it on one worker and on three and wants the same text.
// Groups 1, 4, 7, ... write their first 32 slots from both SIMD groups with no barrier
// between; groups 2, 7, 12, ... read a slot nobody wrote; odd groups shift their bins past
// the end. Group 1 is slow, so that later groups reach the bins first when several workers
// run. (Nothing it computes depends on the unwritten slot's content, which is whatever the
// worker's previous threadgroup left there.)
// run: --threadgroups 40 --threads 64 --tgmem 0=512 values=rand:uint32:2560:0:64 bins=zeros:64 seen=zeros:40
#include <metal_stdlib>
using namespace metal;

kernel void group_histogram(device const uint *values [[buffer(0)]],
                            device atomic_uint *bins [[buffer(1)]],
                            device atomic_uint *seen [[buffer(2)]],
                            threadgroup uint *slots [[threadgroup(0)]],
                            uint gid [[thread_position_in_grid]],
                            uint lid [[thread_position_in_threadgroup]],
                            uint group [[threadgroup_position_in_grid]])
{
    slots[lid] = values[gid];
    if (group % 3 == 1)
        slots[lid % 32] = values[gid] / 2; // expect: data-race
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint v = slots[lid];
    if (group % 5 == 2 && lid == 7)
        atomic_store_explicit(&seen[group], slots[64 + lid], memory_order_relaxed); // expect: uninitialized-read
    uint acc = 0;
    for (uint i = 0; i < (group == 1 ? 3000u : 1u); i++)
        acc += values[(gid + i * 64u) % 2560u];
    atomic_fetch_add_explicit(&seen[group], acc, memory_order_relaxed);
    uint bin = v + (group & 1u) * 8u;
    atomic_fetch_add_explicit(&bins[bin], 1u, memory_order_relaxed); // expect: out-of-bounds
}
