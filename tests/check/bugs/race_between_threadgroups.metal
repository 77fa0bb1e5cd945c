// Each threadgroup adds its partial sum into total[0] with a plain read-modify-write:
// threads of different threadgroups are not ordered by any barrier.
// run: --threadgroups 4 --threads 64 data=rand:float32:256 total=zeros:1
#include <metal_stdlib>
using namespace metal;

kernel void group_sums(const device float *data [[buffer(0)]],
                       device float *total [[buffer(1)]],
                       uint gid [[thread_position_in_grid]],
                       uint lid [[thread_position_in_threadgroup]],
                       uint simd_lane [[thread_index_in_simdgroup]],
                       uint simd_id [[simdgroup_index_in_threadgroup]])
{
    threadgroup float partial[2];
    float s = simd_sum(data[gid]);
    if (simd_lane == 0)
        partial[simd_id] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) {
        float group_total = partial[0] + partial[1];
        // should be an atomic add: other threadgroups do the same at the same time
        total[0] = total[0] + group_total; // expect: data-race
    }
}
