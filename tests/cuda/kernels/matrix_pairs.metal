// Nests and runs of simdgroup multiplies, and how many pairs the cuda backend must fuse into
// one tensor-core instruction each (src/cuda/matrix_pairs.c): "pairs: N" above each kernel
// is checked against the generated CUDA by `test_cuda pairs`, and every kernel's results
// against NumPy by tests/semantic/test_sem_simdgroup_matrix.py (on every backend).
//
// Every kernel reads 8x8 matrices from A and B (operands: half, bfloat or float, as its
// matrices are) and C (accumulators), row-major one after another, and writes eight to D.
#include <metal_stdlib>
using namespace metal;

#define LOAD(m, p, i) simdgroup_load(m, p + 64 * (i), 8)
#define STORE(m, i) simdgroup_store(m, D + 64 * (i), 8)
#define PARAMS(TA, TC) device const TA *A [[buffer(0)]], device const TA *B [[buffer(1)]], \
                       device const TC *C [[buffer(2)]], device TC *D [[buffer(3)]]

// pairs: 8  (the GEMM tile: acc[i][j] += a[i] * b[j]; a[0]/a[1] and a[2]/a[3] share each b[j])
kernel void gemm_tile(PARAMS(half, float)) {
    simdgroup_half8x8 a[4], b[4];
    simdgroup_float8x8 acc[4][4];
    for (short i = 0; i < 4; i++) { LOAD(a[i], A, i); LOAD(b[i], B, i); }
    for (short i = 0; i < 4; i++)
        for (short j = 0; j < 4; j++) acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(float(i - j));
    for (short i = 0; i < 4; i++)
        for (short j = 0; j < 4; j++)
            simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);
    for (short i = 0; i < 4; i++) { STORE(acc[i][i], i); STORE(acc[i][3 - i], 4 + i); }
}

// pairs: 4  (llama.cpp's kernel_mul_mm: mc[i] += mb[i/4] * ma[i%4]; i and i+4 share ma[i%4])
kernel void llama_style(PARAMS(float, float)) {
    simdgroup_float8x8 ma[4], mb[2], mc[8];
    for (short i = 0; i < 4; i++) LOAD(ma[i], B, i);
    for (short i = 0; i < 2; i++) LOAD(mb[i], A, i);
    for (short i = 0; i < 8; i++) mc[i] = make_filled_simdgroup_matrix<float, 8, 8>(0.5f);
    for (short i = 0; i < 8; i++)
        simdgroup_multiply_accumulate(mc[i], mb[i / 4], ma[i % 4], mc[i]);
    for (short i = 0; i < 8; i++) STORE(mc[i], i);
}

// pairs: 0  (a chain: each multiply reads the one before it)
kernel void chain(PARAMS(float, float)) {
    simdgroup_float8x8 a[4], b, x[5];
    for (short i = 0; i < 4; i++) LOAD(a[i], A, i);
    LOAD(b, B, 0);
    LOAD(x[0], C, 0);
    for (short i = 0; i < 4; i++)
        simdgroup_multiply_accumulate(x[i + 1], a[i], b, x[i]);
    for (short i = 0; i < 5; i++) STORE(x[i], i);
}

// pairs: 2  (straight-line, as tinygrad writes its tiles; float operands: 3xTF32)
kernel void straight(PARAMS(float, float)) {
    simdgroup_float8x8 a0, a1, a2, a3, b0, b1, c0, c1, c2, c3;
    LOAD(a0, A, 0); LOAD(a1, A, 1); LOAD(a2, A, 2); LOAD(a3, A, 3);
    LOAD(b0, B, 0); LOAD(b1, B, 1);
    LOAD(c0, C, 0); LOAD(c1, C, 1); LOAD(c2, C, 2); LOAD(c3, C, 3);
    simdgroup_multiply_accumulate(c0, a0, b0, c0);
    simdgroup_multiply_accumulate(c1, a1, b1, c1);
    simdgroup_multiply_accumulate(c2, a2, b0, c2);
    simdgroup_multiply_accumulate(c3, a3, b1, c3);
    STORE(c0, 0); STORE(c1, 1); STORE(c2, 2); STORE(c3, 3);
}

// pairs: 1  (the second multiply reads the first's result and stays; the third joins the first)
kernel void in_between(PARAMS(bfloat, float)) {
    simdgroup_bfloat8x8 a0, a1, a2, b, c;
    simdgroup_float8x8 d0, d1, d2;
    LOAD(a0, A, 0); LOAD(a1, A, 1); LOAD(a2, A, 2); LOAD(b, B, 0); LOAD(c, B, 1);
    LOAD(d0, C, 0); LOAD(d2, C, 1);
    simdgroup_multiply_accumulate(d0, a0, b, d0);
    simdgroup_multiply_accumulate(d1, a1, c, d0);
    simdgroup_multiply_accumulate(d2, a2, b, d2);
    STORE(d0, 0); STORE(d1, 1); STORE(d2, 2);
}

// pairs: 0  (the third multiply reads what the second writes, so it cannot join the first)
kernel void hazard(PARAMS(half, float)) {
    simdgroup_half8x8 a0, a1, a2, b, x;
    simdgroup_float8x8 d0, t, d2;
    LOAD(a0, A, 0); LOAD(a1, A, 1); LOAD(a2, A, 2); LOAD(b, B, 0); LOAD(x, B, 1);
    LOAD(d0, C, 0); LOAD(t, C, 1);
    simdgroup_multiply_accumulate(d0, a0, b, d0);
    simdgroup_multiply_accumulate(t, a1, x, t);
    simdgroup_multiply_accumulate(d2, a2, b, t);
    STORE(d0, 0); STORE(t, 1); STORE(d2, 2);
}

// pairs: 2  (half accumulators, rounded to half after each multiply-accumulate)
kernel void half_accumulators(PARAMS(half, half)) {
    simdgroup_half8x8 a[4], b, acc[4];
    for (short i = 0; i < 4; i++) { LOAD(a[i], A, i); LOAD(acc[i], C, i); }
    LOAD(b, B, 0);
    for (short i = 0; i < 4; i++)
        simdgroup_multiply_accumulate(acc[i], a[i], b, acc[i]);
    for (short i = 0; i < 4; i++) STORE(acc[i], i);
}

// A GEMM's K loop, as the bench's kernels write it: each step loads its a and b from
// threadgroup memory and multiplies. K pairs (src/cuda/matrix_pairs.c): the two steps of
// each accumulator pair run as one m16n8k16; b is only ever a B operand, so it is held in
// mma.sync's B layout; four loads of one shape are one ldmatrix.x4.
// A is a 32x16 tile (row-major, 512 values), B a 16x32 one; acc[i][j] = (i - j) + A rows
// 8i.. times B columns 8j..
#define K_STEPS(NAME, T, ACC)                                                                  \
kernel void NAME(PARAMS(T, ACC), ushort lid [[thread_index_in_threadgroup]]) {                 \
    threadgroup T As[32 * 24], Bs[16 * 40];                                                     \
    for (ushort i = lid; i < 512; i += 32) {                                                    \
        As[(i / 16) * 24 + i % 16] = A[i];                                                      \
        Bs[(i / 32) * 40 + i % 32] = B[i];                                                      \
    }                                                                                           \
    threadgroup_barrier(mem_flags::mem_threadgroup);                                            \
    simdgroup_matrix<ACC, 8, 8> acc[4][4];                                                      \
    for (short i = 0; i < 4; i++)                                                               \
        for (short j = 0; j < 4; j++) acc[i][j] = make_filled_simdgroup_matrix<ACC, 8, 8>(ACC(i - j)); \
    for (short kk = 0; kk < 16; kk += 8) {                                                      \
        simdgroup_matrix<T, 8, 8> a[4], b[4];                                                   \
        for (short i = 0; i < 4; i++) simdgroup_load(a[i], As + i * 8 * 24 + kk, 24);          \
        for (short j = 0; j < 4; j++) simdgroup_load(b[j], Bs + kk * 40 + j * 8, 40);          \
        for (short i = 0; i < 4; i++)                                                           \
            for (short j = 0; j < 4; j++)                                                       \
                simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);               \
    }                                                                                           \
    for (short i = 0; i < 4; i++) { STORE(acc[i][i], i); STORE(acc[i][3 - i], 4 + i); }       \
}

// pairs: 0
// k pairs: 8
// cuda: en_matrix_load_x4<half>(
// cuda: en_matrix_load_b_x4<half>(
// cuda: en_private<en_matrix_b<half>, 4> b_u1;
K_STEPS(k_steps, half, float)

// pairs: 16  (half accumulators are rounded after each step: no K pairs, the row pairs stay)
// k pairs: 0
K_STEPS(k_steps_half_acc, half, half)

// pairs: 16  (float operands: 3xTF32 has no K pairs, and no B layout)
// k pairs: 0
// cuda: en_private<simdgroup_float8x8, 4> b_u0;
K_STEPS(k_steps_float, float, float)

// One a per step, the b matrices loaded transposed (B is stored as the transpose of the 16x32
// tile): K pairs without row pairs (m16n8k16 with rows 8-15 unused), and an ldmatrix.x4 that
// reads b's transposes without .trans. acc[j] = A rows 0-7 times B^T columns 8j..
// pairs: 0
// k pairs: 4
// cuda: en_matrix_multiply_accumulate1k(
// cuda: en_matrix_load_b_x4<bfloat>(
kernel void k_steps_transposed(PARAMS(bfloat, float), ushort lid [[thread_index_in_threadgroup]]) {
    threadgroup bfloat As[8 * 24], Bs[32 * 24];
    for (ushort i = lid; i < 512; i += 32) {
        if (i < 128) As[(i / 16) * 24 + i % 16] = A[i];
        Bs[(i / 16) * 24 + i % 16] = B[i];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_float8x8 acc[4];
    for (short j = 0; j < 4; j++) simdgroup_load(acc[j], C + 64 * j, 8);
    for (short kk = 0; kk < 16; kk += 8) {
        simdgroup_bfloat8x8 a, b[4];
        simdgroup_load(a, As + kk, 24);
        for (short j = 0; j < 4; j++) simdgroup_load(b[j], Bs + j * 8 * 24 + kk, 24, ulong2(0, 0), true);
        for (short j = 0; j < 4; j++) simdgroup_multiply_accumulate(acc[j], a, b[j], acc[j]);
    }
    for (short j = 0; j < 4; j++) STORE(acc[j], j);
}

// pairs: 2  (each step's row pair; no K pairs: a multiply reads acc[1] between the two steps,
// so the first step cannot wait for the second)
// k pairs: 0
kernel void k_steps_read_between(PARAMS(half, float), ushort lid [[thread_index_in_threadgroup]]) {
    threadgroup half As[16 * 24], Bs[16 * 24];
    for (ushort i = lid; i < 256; i += 32) {
        As[(i / 16) * 24 + i % 16] = A[i];
        Bs[(i / 16) * 24 + i % 16] = B[i];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_float8x8 acc[2], seen[2];
    for (short i = 0; i < 2; i++) acc[i] = make_filled_simdgroup_matrix<float, 8, 8>(float(i + 1));
    for (short kk = 0; kk < 16; kk += 8) {
        simdgroup_half8x8 a[2], b;
        for (short i = 0; i < 2; i++) simdgroup_load(a[i], As + i * 8 * 24 + kk, 24);
        simdgroup_load(b, Bs + kk * 24, 24);
        for (short i = 0; i < 2; i++) simdgroup_multiply_accumulate(acc[i], a[i], b, acc[i]);
        simdgroup_multiply_accumulate(seen[kk / 8], a[0], b, acc[1]);
    }
    STORE(acc[0], 0); STORE(acc[1], 1); STORE(seen[0], 2); STORE(seen[1], 3);
}
