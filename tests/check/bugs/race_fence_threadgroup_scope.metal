// Release and acquire fences of threadgroup scope order nothing between threadgroups: the
// hand-off of the partial sums needs device scope.
// run: --threadgroups 12 --threads 64 x=rand:int32:768 partial=zeros:12 arrived=zeros:1 total=zeros:1
#include <metal_stdlib>
using namespace metal;

kernel void last_group_sum(device const int* x [[buffer(0)]], device int* partial [[buffer(1)]],
                           device atomic_uint* arrived [[buffer(2)]], device int* total [[buffer(3)]],
                           uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]],
                           uint groups [[threadgroups_per_grid]], uint i [[thread_position_in_grid]]) {
    if (tid != 0) return;
    partial[group] = x[i];
    atomic_thread_fence(mem_flags::mem_device, memory_order_release, thread_scope_threadgroup);
    if (atomic_fetch_add_explicit(arrived, 1u, memory_order_relaxed) == groups - 1) {
        atomic_thread_fence(mem_flags::mem_device, memory_order_acquire, thread_scope_threadgroup);
        int t = 0;
        for (uint g = 0; g < groups; g++) t += partial[g]; // expect: data-race
        total[0] = t;
    }
}
