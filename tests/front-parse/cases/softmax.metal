// a row softmax in the two-stage reduction style of seed 004
#include <metal_stdlib>
using namespace metal;

constant constexpr uint TG = 256;

template <typename T>
inline T tg_reduce_max(T v, threadgroup T *scratch, uint lid, uint simd_lane, uint simd_id) {
    v = simd_max(v);
    if (simd_lane == 0) scratch[simd_id] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v = (lid < TG / 32) ? scratch[lid] : -1.0e30f;
    return simd_max(v);
}

[[max_total_threads_per_threadgroup(TG)]]
kernel void softmax(device const float *x [[buffer(0)]],
                    device float *y [[buffer(1)]],
                    constant uint &cols [[buffer(2)]],
                    uint row [[threadgroup_position_in_grid]],
                    uint lid [[thread_position_in_threadgroup]],
                    uint simd_lane [[thread_index_in_simdgroup]],
                    uint simd_id [[simdgroup_index_in_threadgroup]]) {
    threadgroup float scratch[TG / 32];
    device const float *in = x + row * cols;
    float m = -1.0e30f;
    for (uint c = lid; c < cols; c += TG) m = max(m, in[c]);
    m = tg_reduce_max(m, scratch, lid, simd_lane, simd_id);
    float s = 0.0f;
    for (uint c = lid; c < cols; c += TG) s += fast::exp(in[c] - m);
    s = simd_sum(s);
    for (uint c = lid; c < cols; c += TG) {
        y[row * cols + c] = precise::exp(in[c] - m) / s;
    }
}
