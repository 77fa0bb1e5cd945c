// seed004_two_stage_reduction.metal — seed 004's "Pattern 5: Two-Stage Reduction
// (Cross-SIMD-Group)", completed into a kernel: each threadgroup of 128 threads (4 SIMD
// groups) sums its slice of `data` and writes one partial sum per threadgroup.
// Stage 2 runs simd_sum inside the divergent branch `simd_id == 0 && simd_lane < 4`:
// over the 4 active lanes only, as in Metal. This is what `make demo` runs.
//
//   enigma run examples/seed004_two_stage_reduction.metal --threadgroups 8 --threads 128 \
//       data=@x.npy count=1000 sums=zeros:8 --print sums
#include <metal_stdlib>
using namespace metal;

kernel void two_stage_sum(device const float* data [[buffer(0)]],
                          device float* sums [[buffer(1)]],
                          constant uint& count [[buffer(2)]],
                          uint tid [[thread_position_in_grid]],
                          uint lid [[thread_index_in_threadgroup]],
                          uint group [[threadgroup_position_in_grid]],
                          uint simd_lane [[thread_index_in_simdgroup]],
                          uint simd_id [[simdgroup_index_in_threadgroup]])
{
    // Assume threadgroup size = 128 (4 SIMD groups)
    threadgroup float partials[4];
    float my_value = 0.0f;
    if (tid < count) {
        my_value = data[tid];
    }

    // Stage 1: Each SIMD group reduces its 32 values
    float local_sum = simd_sum(my_value);
    // One thread per SIMD group writes to shared memory
    if (simd_lane == 0) {
        partials[simd_id] = local_sum;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // Stage 2: First SIMD group reduces the partial sums
    float total = 0.0f;
    if (simd_id == 0 && simd_lane < 4) {
        total = simd_sum(partials[simd_lane]);
    }

    // Broadcast to all threads if needed
    threadgroup float shared_total;
    if (lid == 0) {
        shared_total = total;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    total = shared_total;

    if (lid == 0) {
        sums[group] = total;
    }
}
