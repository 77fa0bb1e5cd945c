// The half-input simdgroup_matrix GEMM of llama.cpp's kernel_mul_mm and MLX's steel GEMM
// (bench/cuda/gemm_simdgroup.metal's gemm_f16): C = A x B, A and B half, C float, row-major.
// A threadgroup of 4 SIMD groups computes a 64x64 tile of C, each SIMD group a 32x32 quarter
// as 4x4 simdgroup_float8x8 accumulators; K advances 32 at a time through threadgroup
// memory. M, N multiples of 64, K of 32.
#include <metal_stdlib>
using namespace metal;

#define BM 64
#define BN 64
#define BK 32
#define PAD 8

kernel void gemm_f16(device const half *A [[buffer(0)]], device const half *B [[buffer(1)]],
                     device float *C [[buffer(2)]], constant uint &M [[buffer(3)]],
                     constant uint &N [[buffer(4)]], constant uint &K [[buffer(5)]],
                     uint2 tg [[threadgroup_position_in_grid]],
                     ushort sg [[simdgroup_index_in_threadgroup]],
                     ushort tid [[thread_index_in_threadgroup]])
{
    const ushort AP = BK + PAD, BP = BN + PAD, PER_CHUNK = 8;
    threadgroup half As[BM * (BK + PAD)];
    threadgroup half Bs[BK * (BN + PAD)];
    const uint row0 = tg.y * BM, col0 = tg.x * BN;
    const ushort sr = (sg / 2) * 32, sc = (sg % 2) * 32;
    simdgroup_float8x8 acc[4][4];
    for (short i = 0; i < 4; i++)
        for (short j = 0; j < 4; j++)
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint k0 = 0; k0 < K; k0 += BK) {
        for (ushort c = tid; c < BM * BK / PER_CHUNK; c += 128) {
            ushort r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK;
            *(threadgroup uint4 *)(As + r * AP + k) = *(device const uint4 *)(A + (row0 + r) * K + k0 + k);
        }
        for (ushort c = tid; c < BK * BN / PER_CHUNK; c += 128) {
            ushort r = c / (BN / PER_CHUNK), n = (c % (BN / PER_CHUNK)) * PER_CHUNK;
            *(threadgroup uint4 *)(Bs + r * BP + n) = *(device const uint4 *)(B + (k0 + r) * N + col0 + n);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (short kk = 0; kk < BK; kk += 8) {
            simdgroup_half8x8 a[4], b[4];
            for (short i = 0; i < 4; i++) simdgroup_load(a[i], As + (sr + i * 8) * AP + kk, AP);
            for (short j = 0; j < 4; j++) simdgroup_load(b[j], Bs + kk * BP + sc + j * 8, BP);
            for (short i = 0; i < 4; i++)
                for (short j = 0; j < 4; j++)
                    simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    for (short i = 0; i < 4; i++)
        for (short j = 0; j < 4; j++)
            simdgroup_store(acc[i][j], C + (row0 + sr + i * 8) * N + col0 + sc + j * 8, N);
}
