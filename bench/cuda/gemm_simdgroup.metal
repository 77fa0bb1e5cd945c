// gemm_simdgroup.metal — the GEMM shape of llama.cpp's kernel_mul_mm and MLX's steel GEMM on
// simdgroup matrices, for bench_gemm.cu: C = A x B, row-major, A is M x K, B is K x N, C float.
//
// A threadgroup of 4 SIMD groups computes a 64x64 tile of C; each SIMD group owns a 32x32
// quarter as 4x4 simdgroup_float8x8 accumulators. K advances 32 at a time through threadgroup
// memory: each thread copies 16-byte chunks of the 64x32 slice of A and the 32x64 slice of B,
// then each SIMD group loads 4 a and 4 b 8x8 matrices per 8 of K and does 16
// multiply-accumulates. Rows of the staging tiles are padded by 16 or 32 bytes so that a
// SIMD group's 8 rows of one matrix fall in different banks. M, N multiples of 64, K of 32.
//
// gemm_*: as llama.cpp and MLX write it: copy, barrier, multiply, barrier.
// gemm_*_pipelined: the same tiles and multiplies, with the next K step's copy in flight
// during this one's multiplies (read into registers first, written to the other of two
// threadgroup buffers after), one barrier per K step: what a GPU that hides less latency
// per thread than Apple's needs from the kernel.
// gemm_*_prefetch2: the same, with the copies two K steps ahead (K a multiple of 64).
#include <metal_stdlib>
using namespace metal;

#define BM 64
#define BN 64
#define BK 32

// T: the element type of A and B; CHUNK: a 16-byte type; PAD: elements added to each row
#define GEMM_KERNEL(NAME, T, CHUNK, PAD)                                                          \
kernel void NAME(device const T *A [[buffer(0)]], device const T *B [[buffer(1)]],                \
                 device float *C [[buffer(2)]], constant uint &M [[buffer(3)]],                   \
                 constant uint &N [[buffer(4)]], constant uint &K [[buffer(5)]],                  \
                 uint2 tg [[threadgroup_position_in_grid]],                                       \
                 ushort sg [[simdgroup_index_in_threadgroup]],                                    \
                 ushort tid [[thread_index_in_threadgroup]]) {                                    \
    const ushort AP = BK + PAD, BP = BN + PAD, PER_CHUNK = 16 / sizeof(T);                        \
    threadgroup T As[BM * (BK + PAD)];                                                            \
    threadgroup T Bs[BK * (BN + PAD)];                                                            \
    const uint row0 = tg.y * BM, col0 = tg.x * BN;                                                \
    const ushort sr = (sg / 2) * 32, sc = (sg % 2) * 32;                                          \
    simdgroup_float8x8 acc[4][4];                                                                 \
    for (short i = 0; i < 4; i++)                                                                 \
        for (short j = 0; j < 4; j++)                                                             \
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);                          \
    for (uint k0 = 0; k0 < K; k0 += BK) {                                                         \
        for (ushort c = tid; c < BM * BK / PER_CHUNK; c += 128) {                                 \
            ushort r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK;              \
            *(threadgroup CHUNK *)(As + r * AP + k) = *(device const CHUNK *)(A + (row0 + r) * K + k0 + k); \
        }                                                                                         \
        for (ushort c = tid; c < BK * BN / PER_CHUNK; c += 128) {                                 \
            ushort r = c / (BN / PER_CHUNK), n = (c % (BN / PER_CHUNK)) * PER_CHUNK;              \
            *(threadgroup CHUNK *)(Bs + r * BP + n) = *(device const CHUNK *)(B + (k0 + r) * N + col0 + n); \
        }                                                                                         \
        threadgroup_barrier(mem_flags::mem_threadgroup);                                          \
        for (short kk = 0; kk < BK; kk += 8) {                                                    \
            simdgroup_matrix<T, 8, 8> a[4], b[4];                                                 \
            for (short i = 0; i < 4; i++) simdgroup_load(a[i], As + (sr + i * 8) * AP + kk, AP);  \
            for (short j = 0; j < 4; j++) simdgroup_load(b[j], Bs + kk * BP + sc + j * 8, BP);    \
            for (short i = 0; i < 4; i++)                                                         \
                for (short j = 0; j < 4; j++)                                                     \
                    simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);              \
        }                                                                                         \
        threadgroup_barrier(mem_flags::mem_threadgroup);                                          \
    }                                                                                             \
    for (short i = 0; i < 4; i++)                                                                 \
        for (short j = 0; j < 4; j++)                                                             \
            simdgroup_store(acc[i][j], C + (row0 + sr + i * 8) * N + col0 + sc + j * 8, N);       \
}

// the pipelined form: chunks of the next A and B slices wait in registers (ra, rb)
#define GEMM_PIPELINED(NAME, T, CHUNK, PAD)                                                       \
kernel void NAME(device const T *A [[buffer(0)]], device const T *B [[buffer(1)]],                \
                 device float *C [[buffer(2)]], constant uint &M [[buffer(3)]],                   \
                 constant uint &N [[buffer(4)]], constant uint &K [[buffer(5)]],                  \
                 uint2 tg [[threadgroup_position_in_grid]],                                       \
                 ushort sg [[simdgroup_index_in_threadgroup]],                                    \
                 ushort tid [[thread_index_in_threadgroup]]) {                                    \
    const ushort AP = BK + PAD, BP = BN + PAD, PER_CHUNK = 16 / sizeof(T);                        \
    const ushort A_CHUNKS = BM * BK / PER_CHUNK / 128, B_CHUNKS = BK * BN / PER_CHUNK / 128;      \
    threadgroup T As[2][BM * (BK + PAD)];                                                         \
    threadgroup T Bs[2][BK * (BN + PAD)];                                                         \
    const uint row0 = tg.y * BM, col0 = tg.x * BN;                                                \
    const ushort sr = (sg / 2) * 32, sc = (sg % 2) * 32;                                          \
    CHUNK ra[BM * BK / (16 / sizeof(T)) / 128], rb[BK * BN / (16 / sizeof(T)) / 128];             \
    for (ushort u = 0; u < A_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
        ra[u] = *(device const CHUNK *)(A + (row0 + r) * K + k);                                  \
    }                                                                                             \
    for (ushort u = 0; u < B_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 128, r = c / (BN / PER_CHUNK), n = (c % (BN / PER_CHUNK)) * PER_CHUNK; \
        rb[u] = *(device const CHUNK *)(B + r * N + col0 + n);                                    \
    }                                                                                             \
    for (ushort u = 0; u < A_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
        *(threadgroup CHUNK *)(&As[0][r * AP + k]) = ra[u];                                       \
    }                                                                                             \
    for (ushort u = 0; u < B_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 128, r = c / (BN / PER_CHUNK), n = (c % (BN / PER_CHUNK)) * PER_CHUNK; \
        *(threadgroup CHUNK *)(&Bs[0][r * BP + n]) = rb[u];                                       \
    }                                                                                             \
    threadgroup_barrier(mem_flags::mem_threadgroup);                                              \
    simdgroup_float8x8 acc[4][4];                                                                 \
    for (short i = 0; i < 4; i++)                                                                 \
        for (short j = 0; j < 4; j++)                                                             \
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);                          \
    for (uint k0 = 0; k0 < K; k0 += BK) {                                                         \
        const uint cur = (k0 / BK) & 1u;                                                          \
        const bool more = k0 + BK < K;                                                            \
        if (more) {                                                                               \
            for (ushort u = 0; u < A_CHUNKS; u++) {                                               \
                ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
                ra[u] = *(device const CHUNK *)(A + (row0 + r) * K + k0 + BK + k);                \
            }                                                                                     \
            for (ushort u = 0; u < B_CHUNKS; u++) {                                               \
                ushort c = tid + u * 128, r = c / (BN / PER_CHUNK), n = (c % (BN / PER_CHUNK)) * PER_CHUNK; \
                rb[u] = *(device const CHUNK *)(B + (k0 + BK + r) * N + col0 + n);                \
            }                                                                                     \
        }                                                                                         \
        threadgroup const T *as = &As[cur][0], *bs = &Bs[cur][0];                                 \
        for (short kk = 0; kk < BK; kk += 8) {                                                    \
            simdgroup_matrix<T, 8, 8> a[4], b[4];                                                 \
            for (short i = 0; i < 4; i++) simdgroup_load(a[i], as + (sr + i * 8) * AP + kk, AP);  \
            for (short j = 0; j < 4; j++) simdgroup_load(b[j], bs + kk * BP + sc + j * 8, BP);    \
            for (short i = 0; i < 4; i++)                                                         \
                for (short j = 0; j < 4; j++)                                                     \
                    simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);              \
        }                                                                                         \
        if (more) {                                                                               \
            for (ushort u = 0; u < A_CHUNKS; u++) {                                               \
                ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
                *(threadgroup CHUNK *)(&As[cur ^ 1u][r * AP + k]) = ra[u];                        \
            }                                                                                     \
            for (ushort u = 0; u < B_CHUNKS; u++) {                                               \
                ushort c = tid + u * 128, r = c / (BN / PER_CHUNK), n = (c % (BN / PER_CHUNK)) * PER_CHUNK; \
                *(threadgroup CHUNK *)(&Bs[cur ^ 1u][r * BP + n]) = rb[u];                        \
            }                                                                                     \
        }                                                                                         \
        threadgroup_barrier(mem_flags::mem_threadgroup);                                          \
    }                                                                                             \
    for (short i = 0; i < 4; i++)                                                                 \
        for (short j = 0; j < 4; j++)                                                             \
            simdgroup_store(acc[i][j], C + (row0 + sr + i * 8) * N + col0 + sc + j * 8, N);       \
}

// the pipelined form two K steps deep: two sets of registers, each holding a slice loaded two
// steps before the multiplies that use it (at 4 threadgroups an SM, one step of multiplies is
// shorter than a load's round trip through a busy L2). K a multiple of 2 * BK.
#define GEMM_FETCH(CHUNK, ra, rb, KOFF)                                                           \
    for (ushort u = 0; u < A_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
        ra[u] = *(device const CHUNK *)(A + (row0 + r) * K + (KOFF) + k);                         \
    }                                                                                             \
    for (ushort u = 0; u < B_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 128, r = c / (BN / PER_CHUNK), n = (c % (BN / PER_CHUNK)) * PER_CHUNK; \
        rb[u] = *(device const CHUNK *)(B + ((KOFF) + r) * N + col0 + n);                         \
    }
#define GEMM_STAGE(CHUNK, ra, rb, BUF)                                                            \
    for (ushort u = 0; u < A_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
        *(threadgroup CHUNK *)(&As[BUF][r * AP + k]) = ra[u];                                     \
    }                                                                                             \
    for (ushort u = 0; u < B_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 128, r = c / (BN / PER_CHUNK), n = (c % (BN / PER_CHUNK)) * PER_CHUNK; \
        *(threadgroup CHUNK *)(&Bs[BUF][r * BP + n]) = rb[u];                                     \
    }
#define GEMM_MULTIPLY(T, BUF)                                                                     \
    for (short kk = 0; kk < BK; kk += 8) {                                                        \
        simdgroup_matrix<T, 8, 8> a[4], b[4];                                                     \
        for (short i = 0; i < 4; i++) simdgroup_load(a[i], &As[BUF][(sr + i * 8) * AP + kk], AP); \
        for (short j = 0; j < 4; j++) simdgroup_load(b[j], &Bs[BUF][kk * BP + sc + j * 8], BP);   \
        for (short i = 0; i < 4; i++)                                                             \
            for (short j = 0; j < 4; j++)                                                         \
                simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);                  \
    }
#define GEMM_PREFETCH2(NAME, T, CHUNK, PAD)                                                       \
kernel void NAME(device const T *A [[buffer(0)]], device const T *B [[buffer(1)]],                \
                 device float *C [[buffer(2)]], constant uint &M [[buffer(3)]],                   \
                 constant uint &N [[buffer(4)]], constant uint &K [[buffer(5)]],                  \
                 uint2 tg [[threadgroup_position_in_grid]],                                       \
                 ushort sg [[simdgroup_index_in_threadgroup]],                                    \
                 ushort tid [[thread_index_in_threadgroup]]) {                                    \
    const ushort AP = BK + PAD, BP = BN + PAD, PER_CHUNK = 16 / sizeof(T);                        \
    const ushort A_CHUNKS = BM * BK / PER_CHUNK / 128, B_CHUNKS = BK * BN / PER_CHUNK / 128;      \
    threadgroup T As[2][BM * (BK + PAD)];                                                         \
    threadgroup T Bs[2][BK * (BN + PAD)];                                                         \
    const uint row0 = tg.y * BM, col0 = tg.x * BN;                                                \
    const ushort sr = (sg / 2) * 32, sc = (sg % 2) * 32;                                          \
    CHUNK ra0[BM * BK / (16 / sizeof(T)) / 128], rb0[BK * BN / (16 / sizeof(T)) / 128];           \
    CHUNK ra1[BM * BK / (16 / sizeof(T)) / 128], rb1[BK * BN / (16 / sizeof(T)) / 128];           \
    GEMM_FETCH(CHUNK, ra0, rb0, 0)                                                                \
    GEMM_STAGE(CHUNK, ra0, rb0, 0)                                                                \
    GEMM_FETCH(CHUNK, ra1, rb1, BK)                                                               \
    threadgroup_barrier(mem_flags::mem_threadgroup);                                              \
    simdgroup_float8x8 acc[4][4];                                                                 \
    for (short i = 0; i < 4; i++)                                                                 \
        for (short j = 0; j < 4; j++)                                                             \
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);                          \
    for (uint k0 = 0; k0 < K; k0 += 2 * BK) {                                                     \
        /* step k0 from buffer 0, while k0 + 2 BK comes into ra0/rb0 */                           \
        if (k0 + 2 * BK < K) { GEMM_FETCH(CHUNK, ra0, rb0, k0 + 2 * BK) }                         \
        GEMM_MULTIPLY(T, 0)                                                                       \
        GEMM_STAGE(CHUNK, ra1, rb1, 1)                                                            \
        threadgroup_barrier(mem_flags::mem_threadgroup);                                          \
        /* step k0 + BK from buffer 1, while k0 + 3 BK comes into ra1/rb1 */                      \
        if (k0 + 3 * BK < K) { GEMM_FETCH(CHUNK, ra1, rb1, k0 + 3 * BK) }                         \
        GEMM_MULTIPLY(T, 1)                                                                       \
        if (k0 + 2 * BK < K) { GEMM_STAGE(CHUNK, ra0, rb0, 0) }                                   \
        threadgroup_barrier(mem_flags::mem_threadgroup);                                          \
    }                                                                                             \
    for (short i = 0; i < 4; i++)                                                                 \
        for (short j = 0; j < 4; j++)                                                             \
            simdgroup_store(acc[i][j], C + (row0 + sr + i * 8) * N + col0 + sc + j * 8, N);       \
}

// Not the issue's shape, for comparison: the pipelined form with a 128x128 threadgroup tile,
// 8 SIMD groups of 64x32 (8x4 accumulators each), 256 threads. Each 8 of K, a SIMD group
// loads 8 a and 4 b for 32 multiplies (the 64x64 tile: 4 and 4 for 16), so shared memory
// carries 1.5x less per multiply.
#define GEMM_WIDE(NAME, T, CHUNK, PAD)                                                            \
kernel void NAME(device const T *A [[buffer(0)]], device const T *B [[buffer(1)]],                \
                 device float *C [[buffer(2)]], constant uint &M [[buffer(3)]],                   \
                 constant uint &N [[buffer(4)]], constant uint &K [[buffer(5)]],                  \
                 uint2 tg [[threadgroup_position_in_grid]],                                       \
                 ushort sg [[simdgroup_index_in_threadgroup]],                                    \
                 ushort tid [[thread_index_in_threadgroup]]) {                                    \
    const ushort WM = 128, WN = 128, AP = BK + PAD, BP = WN + PAD, PER_CHUNK = 16 / sizeof(T);    \
    const ushort A_CHUNKS = WM * BK / PER_CHUNK / 256, B_CHUNKS = BK * WN / PER_CHUNK / 256;      \
    threadgroup T As[2][128 * (BK + PAD)];                                                        \
    threadgroup T Bs[2][BK * (128 + PAD)];                                                        \
    const uint row0 = tg.y * WM, col0 = tg.x * WN;                                                \
    const ushort sr = (sg / 4) * 64, sc = (sg % 4) * 32;                                          \
    CHUNK ra[128 * BK / (16 / sizeof(T)) / 256], rb[BK * 128 / (16 / sizeof(T)) / 256];           \
    for (ushort u = 0; u < A_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 256, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
        ra[u] = *(device const CHUNK *)(A + (row0 + r) * K + k);                                  \
    }                                                                                             \
    for (ushort u = 0; u < B_CHUNKS; u++) {                                                       \
        ushort c = tid + u * 256, r = c / (WN / PER_CHUNK), n = (c % (WN / PER_CHUNK)) * PER_CHUNK; \
        rb[u] = *(device const CHUNK *)(B + r * N + col0 + n);                                    \
    }                                                                                             \
    simdgroup_float8x8 acc[8][4];                                                                 \
    for (short i = 0; i < 8; i++)                                                                 \
        for (short j = 0; j < 4; j++)                                                             \
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);                          \
    for (uint k0 = 0; k0 < K; k0 += BK) {                                                         \
        const uint cur = (k0 / BK) & 1u;                                                          \
        for (ushort u = 0; u < A_CHUNKS; u++) {                                                   \
            ushort c = tid + u * 256, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
            *(threadgroup CHUNK *)(&As[cur][r * AP + k]) = ra[u];                                 \
        }                                                                                         \
        for (ushort u = 0; u < B_CHUNKS; u++) {                                                   \
            ushort c = tid + u * 256, r = c / (WN / PER_CHUNK), n = (c % (WN / PER_CHUNK)) * PER_CHUNK; \
            *(threadgroup CHUNK *)(&Bs[cur][r * BP + n]) = rb[u];                                 \
        }                                                                                         \
        threadgroup_barrier(mem_flags::mem_threadgroup);                                          \
        if (k0 + BK < K) {                                                                        \
            for (ushort u = 0; u < A_CHUNKS; u++) {                                               \
                ushort c = tid + u * 256, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK; \
                ra[u] = *(device const CHUNK *)(A + (row0 + r) * K + k0 + BK + k);                \
            }                                                                                     \
            for (ushort u = 0; u < B_CHUNKS; u++) {                                               \
                ushort c = tid + u * 256, r = c / (WN / PER_CHUNK), n = (c % (WN / PER_CHUNK)) * PER_CHUNK; \
                rb[u] = *(device const CHUNK *)(B + (k0 + BK + r) * N + col0 + n);                \
            }                                                                                     \
        }                                                                                         \
        for (short kk = 0; kk < BK; kk += 8) {                                                    \
            simdgroup_matrix<T, 8, 8> a[8], b[4];                                                 \
            for (short i = 0; i < 8; i++) simdgroup_load(a[i], &As[cur][(sr + i * 8) * AP + kk], AP); \
            for (short j = 0; j < 4; j++) simdgroup_load(b[j], &Bs[cur][kk * BP + sc + j * 8], BP); \
            for (short i = 0; i < 8; i++)                                                         \
                for (short j = 0; j < 4; j++)                                                     \
                    simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);              \
        }                                                                                         \
    }                                                                                             \
    for (short i = 0; i < 8; i++)                                                                 \
        for (short j = 0; j < 4; j++)                                                             \
            simdgroup_store(acc[i][j], C + (row0 + sr + i * 8) * N + col0 + sc + j * 8, N);       \
}

GEMM_KERNEL(gemm_f16, half, uint4, 8)
GEMM_KERNEL(gemm_bf16, bfloat, uint4, 8)
GEMM_KERNEL(gemm_f32, float, float4, 8)
GEMM_PIPELINED(gemm_f16_pipelined, half, uint4, 8)
GEMM_PIPELINED(gemm_bf16_pipelined, bfloat, uint4, 8)
GEMM_PIPELINED(gemm_f32_pipelined, float, float4, 8)
GEMM_PREFETCH2(gemm_f16_prefetch2, half, uint4, 8)
GEMM_PREFETCH2(gemm_bf16_prefetch2, bfloat, uint4, 8)
GEMM_PREFETCH2(gemm_f32_prefetch2, float, float4, 8)
GEMM_WIDE(gemm_f16_wide, half, uint4, 8)
GEMM_WIDE(gemm_bf16_wide, bfloat, uint4, 8)
