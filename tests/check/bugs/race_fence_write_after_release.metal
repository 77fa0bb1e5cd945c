// A threadgroup writes its partial sum after its release: the acquiring threadgroup's read
// of it is not ordered (only what comes before the release is published).
// run: --threadgroups 12 --threads 64 x=rand:int32:768 partial=zeros:12 arrived=zeros:1 total=zeros:1
#include <metal_stdlib>
using namespace metal;

kernel void last_group_sum(device const int* x [[buffer(0)]], device int* partial [[buffer(1)]],
                           device atomic_uint* arrived [[buffer(2)]], device int* total [[buffer(3)]],
                           uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]],
                           uint groups [[threadgroups_per_grid]], uint i [[thread_position_in_grid]]) {
    if (tid != 0) return;
    atomic_thread_fence(mem_flags::mem_device, memory_order_release, thread_scope_device);
    bool last = atomic_fetch_add_explicit(arrived, 1u, memory_order_relaxed) == groups - 1;
    partial[group] = x[i];
    if (last) {
        atomic_thread_fence(mem_flags::mem_device, memory_order_acquire, thread_scope_device);
        int t = 0;
        for (uint g = 0; g < groups; g++) t += partial[g]; // expect: data-race
        total[0] = t;
    }
}
