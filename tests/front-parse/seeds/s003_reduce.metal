// seed 003: the corrected reduction kernel, as the seed gives it (the seed's text lost
// the "<metal_stdlib>" and the two '*' of the pointer parameters; restored here).
#include <metal_stdlib>
using namespace metal;

kernel void reduce(const device int *input [[buffer(0)]],
device atomic_int *output [[buffer(1)]],
threadgroup int *ldata [[threadgroup(0)]],
uint gid [[thread_position_in_grid]],
uint lid [[thread_position_in_threadgroup]],
uint lsize [[threads_per_threadgroup]])
{
// 1. Load data into threadgroup memory (coalesced access)
int val = input[gid];
ldata[lid] = val;

// 2. Synchronize to ensure all threads have written to threadgroup memory
threadgroup_barrier(mem_flags::mem_threadgroup);

// 3. Perform reduction in threadgroup memory
for (uint active_threads = lsize / 2; active_threads > 0; active_threads /= 2) {
    if (lid < active_threads) {
        val += ldata[lid + active_threads];
        ldata[lid] = val;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
}

// 4. Atomically update the global result
if (lid == 0) {
    atomic_fetch_add_explicit(output, val, memory_order_relaxed);
}

}
