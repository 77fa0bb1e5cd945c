// What the cuda backend proves about simdgroup_load/store addresses (src/cuda/align.c), as
// the level it passes to the prelude: 0 tested at run time, 1 each lane's pair aligned, 2
// rows on 16 bytes of threadgroup memory too. "cuda: TEXT" above a kernel: its generated
// CUDA contains TEXT (checked by `test_cuda shapes`).
#include <metal_stdlib>
using namespace metal;

// cuda: en_matrix_load<half, 2>(
// cuda: en_matrix_store<0>(
kernel void rows_of_32_bytes(device half *out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]]) {
    threadgroup half stage[16 * 16];
    for (uint i = lid; i < 256; i += 32) stage[i] = half(i);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_half8x8 m;
    simdgroup_load(m, stage, 16, ulong2(8, 8), true);
    simdgroup_store(m, out, 8);
}

// cuda: en_matrix_load<half, 2>(
kernel void loop_counter_offsets(device half *out [[buffer(0)]], ushort sg [[simdgroup_index_in_threadgroup]]) {
    threadgroup half stage[2][64 * 40];
    simdgroup_half8x8 m = make_filled_simdgroup_matrix<half, 8, 8>(0.0h);
    const ushort sr = (sg / 2) * 32;
    for (uint k0 = 0; k0 < 64; k0 += 32) {
        threadgroup const half *as = &stage[(k0 / 32) & 1u][0];
        for (short kk = 0; kk < 32; kk += 8)
            for (short i = 0; i < 4; i++) simdgroup_load(m, as + (sr + i * 8) * 40 + kk, 40);
    }
    simdgroup_store(m, out, 8);
}

// cuda: en_matrix_load<float, 1>(
kernel void pairs_only(device float *out [[buffer(0)]]) {
    threadgroup float stage[8 * 10];
    simdgroup_float8x8 m;
    simdgroup_load(m, stage + 2, 10);
    simdgroup_store(m, out, 8);
}

// cuda: en_matrix_load<half, 0>(
kernel void odd_row(device half *out [[buffer(0)]]) {
    threadgroup half stage[8 * 17];
    simdgroup_half8x8 m;
    simdgroup_load(m, stage, 17);
    simdgroup_store(m, out, 8);
}

// cuda: en_matrix_load<half, 0>(
kernel void origin_from_a_buffer(device half *out [[buffer(0)]], constant uint &ox [[buffer(1)]]) {
    threadgroup half stage[8 * 32];
    simdgroup_half8x8 m;
    simdgroup_load(m, stage, 16, ulong2(ox, 0));
    simdgroup_store(m, out, 8);
}

// cuda: en_matrix_load<half, 0>(
kernel void odd_counter(device half *out [[buffer(0)]]) {
    threadgroup half stage[8 * 64];
    simdgroup_half8x8 m;
    for (uint k = 0; k < 32; k += 3) simdgroup_load(m, stage + k, 64);
    simdgroup_store(m, out, 8);
}

// cuda: en_matrix_load<half, 0>(
kernel void device_memory(device const half *in [[buffer(0)]], device half *out [[buffer(1)]]) {
    simdgroup_half8x8 m;
    simdgroup_load(m, in, 8);
    simdgroup_store(m, out, 8);
}
