// Seed 002's naive GEMM (one thread per element of C) and a threadgroup-tiled GEMM.
// C = A x B, row-major, A is M x K, B is K x N.
#include <metal_stdlib>
using namespace metal;

kernel void naive_gemm(device const float *A [[buffer(0)]],
                       device const float *B [[buffer(1)]],
                       device float *C [[buffer(2)]],
                       constant uint &K [[buffer(3)]],
                       constant uint &N [[buffer(4)]],
                       uint2 pos [[thread_position_in_grid]])
{
    uint row = pos.y, col = pos.x;
    float acc = 0.0f;
    for (uint k = 0; k < K; k++)
        acc = fma(A[row * K + k], B[k * N + col], acc);
    C[row * N + col] = acc;
}

#define TILE 16

// Each 16x16 threadgroup computes a 16x16 tile of C, staging tiles of A and B in
// threadgroup memory. M, N and K are multiples of 16.
kernel void tiled_gemm(device const float *A [[buffer(0)]],
                       device const float *B [[buffer(1)]],
                       device float *C [[buffer(2)]],
                       constant uint &K [[buffer(3)]],
                       constant uint &N [[buffer(4)]],
                       uint2 pos [[thread_position_in_grid]],
                       uint2 lpos [[thread_position_in_threadgroup]])
{
    threadgroup float a_tile[TILE][TILE];
    threadgroup float b_tile[TILE][TILE];
    uint row = pos.y, col = pos.x;
    float acc = 0.0f;
    for (uint k0 = 0; k0 < K; k0 += TILE) {
        a_tile[lpos.y][lpos.x] = A[row * K + k0 + lpos.x];
        b_tile[lpos.y][lpos.x] = B[(k0 + lpos.y) * N + col];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k = 0; k < TILE; k++)
            acc = fma(a_tile[lpos.y][k], b_tile[k][lpos.x], acc);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    C[row * N + col] = acc;
}
