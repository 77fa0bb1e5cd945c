// seed004_simd_patterns.metal — seed 004's SIMD-group patterns as kernels:
// "Pattern 4" (a 1D stencil from simd_shuffle_up/down; the edge lanes keep their own
// value, as Metal's shuffles do for out-of-range sources), "Pattern 3" (an inclusive
// prefix sum per SIMD group) and "Pattern 2" (a broadcast from lane 0).
//
//   enigma run examples/seed004_simd_patterns.metal -k stencil --grid 256 --threads 64 \
//       data=@x.npy out=zeros:256 --print out
#include <metal_stdlib>
using namespace metal;

kernel void stencil(device const float* data [[buffer(0)]],
                    device float* out [[buffer(1)]],
                    uint tid [[thread_position_in_grid]])
{
    float my_val = data[tid];
    float left = simd_shuffle_up(my_val, 1);    // lane i gets lane (i-1)'s value
    float right = simd_shuffle_down(my_val, 1); // lane i gets lane (i+1)'s value
    out[tid] = 0.25f * left + 0.5f * my_val + 0.25f * right;
}

kernel void prefix_sum(device const int* data [[buffer(0)]],
                       device int* out [[buffer(1)]],
                       uint tid [[thread_position_in_grid]])
{
    out[tid] = simd_prefix_inclusive_sum(data[tid]);
}

kernel void broadcast_first(device const float* data [[buffer(0)]],
                            device float* out [[buffer(1)]],
                            uint tid [[thread_position_in_grid]],
                            uint simd_lane [[thread_index_in_simdgroup]])
{
    float value = 0.0f;
    if (simd_lane == 0) {
        value = data[tid] * 2.0f;
    }
    out[tid] = simd_broadcast_first(value);
}
