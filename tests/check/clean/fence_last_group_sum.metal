// The last threadgroup to arrive sums the others' partial sums: each publishes its partial
// with a release fence before counting itself on an atomic; the last reads the count, then
// an acquire fence orders every partial before its reads (C++'s fence rules, which Metal's
// follow). Correct: no report.
// run: --threadgroups 12 --threads 64 x=rand:int32:768 partial=zeros:12 arrived=zeros:1 total=zeros:1
#include <metal_stdlib>
using namespace metal;

kernel void last_group_sum(device const int* x [[buffer(0)]], device int* partial [[buffer(1)]],
                           device atomic_uint* arrived [[buffer(2)]], device int* total [[buffer(3)]],
                           uint tid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]],
                           uint groups [[threadgroups_per_grid]], uint i [[thread_position_in_grid]]) {
    threadgroup int sums[64];
    threadgroup bool last;
    sums[tid] = x[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (tid == 0) {
        int s = 0;
        for (uint k = 0; k < 64; k++) s += sums[k];
        partial[group] = s;
        atomic_thread_fence(mem_flags::mem_device, memory_order_release, thread_scope_device);
        last = atomic_fetch_add_explicit(arrived, 1u, memory_order_relaxed) == groups - 1;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (last && tid == 0) {
        atomic_thread_fence(mem_flags::mem_device, memory_order_acquire);
        int t = 0;
        for (uint g = 0; g < groups; g++) t += partial[g];
        total[0] = t;
    }
}
