// an 8x8-tile GEMM with simdgroup matrices and a threadgroup staging buffer
#include <metal_stdlib>
using namespace metal;

kernel void gemm(device const half *A [[buffer(0)]], device const half *B [[buffer(1)]],
                 device float *C [[buffer(2)]], constant uint3 &dims [[buffer(3)]],
                 uint2 tg [[threadgroup_position_in_grid]],
                 ushort sid [[simdgroup_index_in_threadgroup]],
                 ushort lane [[thread_index_in_simdgroup]]) {
    const uint M = dims.x, N = dims.y, K = dims.z;
    threadgroup half As[8 * 8], Bs[8 * 8];
    simdgroup_half8x8 a, b;
    simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint k = 0; k < K; k += 8) {
        for (ushort i = lane; i < 64; i += 32) {
            As[i] = A[(tg.y * 8 + i / 8) * K + k + i % 8];
            Bs[i] = B[(k + i / 8) * N + tg.x * 8 + i % 8];
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_load(a, As, 8);
        simdgroup_load(b, Bs, 8);
        simdgroup_multiply_accumulate(acc, a, b, acc);
        simdgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (sid == 0 && tg.y * 8 < M)
        simdgroup_store(acc, C + tg.y * 8 * N + tg.x * 8, N);
}
