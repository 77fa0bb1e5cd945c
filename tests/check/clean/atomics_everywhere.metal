// Every thread of every threadgroup adds into one device counter and one threadgroup
// counter atomically; atomics never race with atomics.
// run: --threadgroups 4 --threads 64 values=rand:uint32:256:0:50 total=zeros:1 per_group=zeros:4
#include <metal_stdlib>
using namespace metal;

kernel void count_all(device const uint *values [[buffer(0)]],
                      device atomic_uint *total [[buffer(1)]],
                      device uint *per_group [[buffer(2)]],
                      uint gid [[thread_position_in_grid]],
                      uint lid [[thread_position_in_threadgroup]],
                      uint group [[threadgroup_position_in_grid]])
{
    threadgroup atomic_uint local;
    if (lid == 0)
        atomic_store_explicit(&local, 0u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    atomic_fetch_add_explicit(&local, values[gid], memory_order_relaxed);
    atomic_fetch_add_explicit(total, values[gid], memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0)
        per_group[group] = atomic_load_explicit(&local, memory_order_relaxed);
}
