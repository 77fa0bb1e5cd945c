// seed 002: C = A x B, row-major. naive_gemm computes one element per thread;
// tiled_gemm stages 16x16 tiles of A and B in threadgroup memory; simd_gemm uses
// 8x8 simdgroup matrices.
#include <metal_stdlib>
using namespace metal;

kernel void naive_gemm(device const float *A [[buffer(0)]],
                       device const float *B [[buffer(1)]],
                       device float *C [[buffer(2)]],
                       constant uint &K [[buffer(3)]],
                       constant uint &N [[buffer(4)]],
                       uint2 pos [[thread_position_in_grid]]) {
    uint row = pos.y, col = pos.x;
    float acc = 0.0f;
    for (uint k = 0; k < K; ++k) {
        acc = fma(A[row * K + k], B[k * N + col], acc);
    }
    C[row * N + col] = acc;
}

constant constexpr uint TILE = 16;

kernel void tiled_gemm(device const float *A [[buffer(0)]],
                       device const float *B [[buffer(1)]],
                       device float *C [[buffer(2)]],
                       constant uint &M [[buffer(3)]],
                       constant uint &K [[buffer(4)]],
                       constant uint &N [[buffer(5)]],
                       uint2 gid [[thread_position_in_grid]],
                       uint2 lid [[thread_position_in_threadgroup]]) {
    threadgroup float As[TILE][TILE];
    threadgroup float Bs[TILE][TILE];
    float acc = 0.0f;
    for (uint k0 = 0; k0 < K; k0 += TILE) {
        uint ak = k0 + lid.x, bk = k0 + lid.y;
        As[lid.y][lid.x] = (gid.y < M && ak < K) ? A[gid.y * K + ak] : 0.0f;
        Bs[lid.y][lid.x] = (bk < K && gid.x < N) ? B[bk * N + gid.x] : 0.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k = 0; k < TILE; ++k) {
            acc += As[lid.y][k] * Bs[k][lid.x];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (gid.y < M && gid.x < N) {
        C[gid.y * N + gid.x] = acc;
    }
}

kernel void simd_gemm(device const float *A [[buffer(0)]],
                      device const float *B [[buffer(1)]],
                      device float *C [[buffer(2)]],
                      constant uint &K [[buffer(3)]],
                      constant uint &N [[buffer(4)]],
                      uint2 tile [[threadgroup_position_in_grid]]) {
    simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    simdgroup_float8x8 a, b;
    for (uint k = 0; k < K; k += 8) {
        simdgroup_load(a, A, K, ulong2(k, tile.y * 8));
        simdgroup_load(b, B, N, ulong2(tile.x * 8, k));
        simdgroup_multiply_accumulate(acc, a, b, acc);
    }
    simdgroup_store(acc, C, N, ulong2(tile.x * 8, tile.y * 8));
}
