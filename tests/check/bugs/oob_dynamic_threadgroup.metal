// [[threadgroup(0)]] memory of exactly one int per thread; the neighbour read of the last
// thread runs past it.
// run: --threadgroups 2 --threads 64 --tgmem 0=256 data=rand:int32:128 out=zeros:128
#include <metal_stdlib>
using namespace metal;

kernel void neighbour(device const int *data [[buffer(0)]],
                      device int *out [[buffer(1)]],
                      threadgroup int *shared_data [[threadgroup(0)]],
                      uint gid [[thread_position_in_grid]],
                      uint lid [[thread_position_in_threadgroup]])
{
    shared_data[lid] = data[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = shared_data[lid] - shared_data[lid + 1]; // expect: out-of-bounds
}
