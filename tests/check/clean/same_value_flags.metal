// Many threads, of one SIMD group and of different threadgroups, store the same value to
// one flag ("found = 1"): the result does not depend on their order, so it is no race.
// run: --threadgroups 4 --threads 64 data=rand:int32:256:0:4 found=zeros:1 lane_flags=zeros:4
#include <metal_stdlib>
using namespace metal;

kernel void any_zero(device const int *data [[buffer(0)]],
                     device int *found [[buffer(1)]],
                     device uint *lane_flags [[buffer(2)]],
                     uint gid [[thread_position_in_grid]],
                     uint group [[threadgroup_position_in_grid]])
{
    threadgroup uint seen;
    seen = 7u;
    if (data[gid] == 0)
        found[0] = 1;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    lane_flags[group] = seen;
}
