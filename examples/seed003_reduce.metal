// seed003_reduce.metal — seed 003's corrected reduction: a tree reduction in dynamic
// threadgroup memory, then one atomic add per threadgroup. The threadgroup size must be
// a power of two and the grid must cover exactly the input (the seed assumes both), and
// [[threadgroup(0)]] needs 4 bytes per thread:
//
//   enigma run examples/seed003_reduce.metal --threadgroups 4 --threads 256 --tgmem 0=1024 \
//       input=@x.npy output=zeros:1 --print output
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
            // Read from the upper half of the active threads
            val += ldata[lid + active_threads];
            // Write back to the lower half
            ldata[lid] = val;
        }
        // Barrier is needed after each stage of the reduction
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }

    // 4. Atomically update the global result
    // Only thread 0 of the threadgroup holds the final sum for this threadgroup
    if (lid == 0) {
        atomic_fetch_add_explicit(output, val, memory_order_relaxed);
    }
}
