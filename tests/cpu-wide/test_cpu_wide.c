/* test_cpu_wide.c — wide mode (emit_wide.c: the threadgroup as one gang, uniform control
 * flow once, per-thread statements as loops over the threads) gives the results Metal
 * defines, for what it must get right:
 *   tree     a tree reduction in threadgroup memory (`if (lid < s)` as a thread range),
 *            one atomic per group (`lid == 0`), edge groups of a dispatch by threads
 *   bounds   range tests against uniform values at the ends of uint: `lid <= u` with
 *            u = 2^32 - 1 (u + 1 passes 2^32: every thread), `lid < u`, `lid == u`,
 *            `u > lid`, and a test of another attribute (a byte mask)
 *   wrap     an index lid + base that wraps as a uint: the 64-bit fast form must not be
 *            taken (the exact form reads in[lid - 8])
 *   rows     a row softmax: grid-stride loops in lock step (rows shorter than the group,
 *            not a multiple of it, a start offset), two reductions, fast::exp
 *   tiled    a threadgroup-tiled GEMM on 2-D groups (an odd number of rows too): rows of
 *            threads interleaved in blocks of 8, then the rows left one at a time
 *   diverge  a divergent if and a loop whose trip count differs per thread, between
 *            barriers (byte masks)
 *   mma      simdgroup matrices (kept once per SIMD group): a half GEMM whose A tile goes
 *            through threadgroup memory between barriers inside the K loop, B loaded
 *            transposed from device memory, a filled accumulator, a store at an origin,
 *            a half product (rounded), a loop of matrix operations only on an array of
 *            matrices, SIMD-group attributes in per-thread code; 1-D
 *            groups of 1 to 3 SIMD groups and a 2-D group
 *   colsum   a loop inside the loop over threads whose counter indexes device memory
 *            (`B[k * N + col]`, a run-time and a constant trip count): the index moves
 *            with k, so it must not take a form computed once per row
 *   strided_rows  rows `stride` apart read twice up to `cols`: no next-row prefetch (rows
 *            fetches the next group's row in its second pass, checked in the C)
 *   mat_vec  ggml's matrix times vector: loops the same in every thread inside a loop
 *            whose trip count differs per thread, left by break and continue together
 *   copy4    float4s loaded and stored at float addresses (rows of 70 and 33 floats)
 *   mma_pairs  loops of simdgroup products that share their a: an odd count (a 2 x 3
 *            block), multiply-only (1 x 2), and a loop whose d is its b (not a block)
 *   runs     tile copies by `c / D` and `c % D`, run in runs of D threads where the group
 *            size and the loop's start allow it (and not where they do not)
 *   mma_block  loops of products as one block (enk_mat_block): i and j loops of 4 x 4
 *            that accumulate, 2 x 4 that only multiply, 3 x 2; one loop of 12 by i / 4 and
 *            i % 4 (3 x 4); and one that writes each matrix twice (not a block)
 *   sg_blocks  attention's shape: a loop whose tests are the same within each SIMD group
 *            (no head; break, a continue after simd_max, a second break) around matrix
 *            operations and per-thread stores; 1-D and (32, nsg) groups
 *   publish  lanes in lock step: all read a slot that lane 0 then rewrites, with no
 *            barrier between (one loop over the threads for both would be wrong)
 *   wrap_rows  2-D tile copies in a loop stepped by a constant (`k0 += 16`), each row two
 *            steps ahead prefetched through the index with k0 advanced: an index that
 *            wraps as a uint inside a row of the group (base near 2^32: every row takes
 *            the exact form, found from the bound at the last row; the threads before the
 *            wrap are masked off) or in none (base 0: the 64-bit form), and an index with
 *            a subtraction (no bound: each row tested)
 *   wrap_checked  checked mode in wide mode: an index that wraps in one SIMD group of the
 *            group is not taken as consecutive from the first thread's address
 *   steps    grid-stride loops 4 steps a pass (the indices each thread takes, in order;
 *            an if per step), and a loop that stores and one with a loop inside, not
 *   neighbours  lanes passing values through threadgroup memory with no barrier: a SIMD
 *            group's scan (`t[lid] += t[lid - d]` in a loop), a shift that reads the slot
 *            its neighbour writes in the same statement, a store read back by the partner
 *            lane; and blocks of their own per thread (`u[lid * 4 + i]`), which may share
 *            one loop over the threads
 * References are computed here from fresh random inputs (never zeros). The generated C is
 * checked too, so a test cannot pass by wide mode silently not being used: these kernels
 * have the wide block, checked mode and a kernel with a SIMD-group function do not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enigma.h"
#include "../test_util.h"

static float rndf(void) { return (float)((double)(rnd() % 2000001) / 1000000.0 - 1.0); }
static int32_t rndi(void) { return (int32_t)(rnd() % 2001) - 1000; }

static const char *source =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void tree(device const int *in [[buffer(0)]], device atomic_int *total [[buffer(1)]],\n"
    "                 device int *partial [[buffer(2)]], constant uint &n [[buffer(3)]],\n"
    "                 uint gid [[thread_position_in_grid]], uint lid [[thread_position_in_threadgroup]],\n"
    "                 uint lsize [[threads_per_threadgroup]], uint group [[threadgroup_position_in_grid]]) {\n"
    "    threadgroup int t[1024];\n"
    "    int v = gid < n ? in[gid] : 0;\n"
    "    t[lid] = v;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (uint s = 512; s > 0; s /= 2) {\n"
    "        if (lid < s && lid + s < lsize) t[lid] += t[lid + s];\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    if (lid == 0) {\n"
    "        atomic_fetch_add_explicit(total, t[0], memory_order_relaxed);\n"
    "        partial[group] = t[0];\n"
    "    }\n"
    "}\n"
    "kernel void bounds(device uint *out [[buffer(0)]], constant uint &u [[buffer(1)]],\n"
    "                   uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]],\n"
    "                   uint lsize [[threads_per_threadgroup]]) {\n"
    "    threadgroup uint t[1024];\n"
    "    t[lid] = 0u;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    /* one test between barriers each: a lone if on the thread index is a thread range */
    "    if (lid <= u) t[lid] += 1u;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    if (lid < u) t[lid] += 2u;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    if (lid == u) t[lid] += 4u;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    if (u > lid) t[lid] += 8u;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    if (lid > u) t[lid] += 16u;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    if (u == lid) t[lid] += 32u;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[gid] = t[lsize - 1u - lid];\n"
    "}\n"
    "kernel void wrap(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                 constant uint &base [[buffer(2)]], uint lid [[thread_position_in_threadgroup]]) {\n"
    "    threadgroup float t[1024];\n"
    "    t[lid] = -1.0f;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    if (lid >= 8u) t[lid] = in[lid + base];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[lid] = t[lid];\n"
    "}\n"
    "kernel void rows(device const float *x [[buffer(0)]], device float *y [[buffer(1)]],\n"
    "                 constant uint &cols [[buffer(2)]], constant uint &start [[buffer(3)]],\n"
    "                 uint row [[threadgroup_position_in_grid]], uint lid [[thread_position_in_threadgroup]],\n"
    "                 uint lsize [[threads_per_threadgroup]]) {\n"
    "    threadgroup float part[1024];\n"
    "    device const float *xr = x + row * cols;\n"
    "    float m = -INFINITY;\n"
    "    for (uint i = lid + start; i < cols; i += lsize) m = fmax(m, xr[i]);\n"
    "    part[lid] = m;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (uint s = lsize / 2; s > 0; s /= 2) {\n"
    "        if (lid < s) part[lid] = fmax(part[lid], part[lid + s]);\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    m = part[0];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    float sum = 0.0f;\n"
    "    for (uint i = lid + start; i < cols; i += lsize) sum += exp(xr[i] - m);\n"
    "    part[lid] = sum;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (uint s = lsize / 2; s > 0; s /= 2) {\n"
    "        if (lid < s) part[lid] += part[lid + s];\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    float inv = 1.0f / part[0];\n"
    "    for (uint i = lid + start; i < cols; i += lsize) y[row * cols + i] = exp(xr[i] - m) * inv;\n"
    "}\n"
    "kernel void tiled(device const float *A [[buffer(0)]], device const float *B [[buffer(1)]],\n"
    "                  device float *C [[buffer(2)]], constant uint &K [[buffer(3)]], constant uint &N [[buffer(4)]],\n"
    "                  uint2 pos [[thread_position_in_grid]], uint2 lpos [[thread_position_in_threadgroup]],\n"
    "                  uint2 tsize [[threads_per_threadgroup]]) {\n"
    "    threadgroup float at[32][32];\n"
    "    threadgroup float bt[32][32];\n"
    "    uint row = pos.y, col = pos.x;\n"
    "    float acc = 0.0f;\n"
    "    for (uint k0 = 0; k0 < K; k0 += 8) {\n"
    "        for (uint k = lpos.x; k < 8; k += tsize.x) at[lpos.y][k] = A[row * K + k0 + k];\n"
    "        for (uint k = lpos.y; k < 8; k += tsize.y) bt[k][lpos.x] = B[(k0 + k) * N + col];\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "        for (uint k = 0; k < 8; k++) acc = fma(at[lpos.y][k], bt[k][lpos.x], acc);\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    C[row * N + col] = acc;\n"
    "}\n"
    "kernel void diverge(device const int *in [[buffer(0)]], device int *out [[buffer(1)]],\n"
    "                    uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]],\n"
    "                    uint lsize [[threads_per_threadgroup]]) {\n"
    "    threadgroup int t[1024];\n"
    "    int v = in[gid];\n"
    "    int acc = 0;\n"
    "    if (v > 0) acc = v * 3; else acc = -v + 1;\n"
    "    for (uint k = 0; k < (uint(v) & 7u); k++) acc += int(k) * v;\n"
    "    t[lid] = acc;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    int other = t[(lid + 1u) % lsize];\n"
    "    if (other % 3 == 0) acc += other; else acc -= 1;\n"
    "    out[gid] = acc;\n"
    "}\n"
    /* a grid-stride loop whose test is not `i < U`: every step tests each thread */
    "kernel void strided_le(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                       constant uint &end [[buffer(2)]], uint lid [[thread_index_in_threadgroup]],\n"
    "                       uint lsize [[threads_per_threadgroup]], uint group [[threadgroup_position_in_grid]]) {\n"
    "    threadgroup float t[1024];\n"
    "    float acc = 0.0f;\n"
    "    for (uint i = lid; i <= end; i += lsize) acc += in[i] * float(i % 5u);\n"
    "    t[lid] = acc;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[group * lsize + lid] = t[lsize - 1u - lid];\n"
    "}\n"
    /* a SIMD-group function: wide mode runs it once the arguments of every thread are in */
    "kernel void with_simd(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                      uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]]) {\n"
    "    threadgroup float t[1024];\n"
    "    t[lid] = simd_sum(in[gid]);\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[gid] = t[lid];\n"
    "}\n"
    /* C = 0.5 + A x B (A M x K, Bt = B transposed, N x K, half), each SIMD group one 8x8
     * block; D = 1 + p x b with p = a x b as half (rounded), a and b the last K step's blocks;
     * E = sg * 100 + lane per thread */
    "kernel void mma(device const half *A [[buffer(0)]], device const half *Bt [[buffer(1)]],\n"
    "                device float *C [[buffer(2)]], device float *D [[buffer(3)]], device uint *E [[buffer(4)]],\n"
    "                constant uint &K [[buffer(5)]], constant uint &N [[buffer(6)]],\n"
    "                uint2 tg [[threadgroup_position_in_grid]], ushort sg [[simdgroup_index_in_threadgroup]],\n"
    "                ushort lane [[thread_index_in_simdgroup]], ushort tid [[thread_index_in_threadgroup]],\n"
    "                ushort nsg [[simdgroups_per_threadgroup]], ushort nt [[threads_per_threadgroup]]) {\n"
    "    threadgroup half at[64];\n"
    "    const uint row0 = tg.y * 8, col0 = (tg.x * nsg + sg) * 8;\n"
    "    simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.5f);\n"
    "    simdgroup_half8x8 a, b;\n"
    "    for (uint k0 = 0; k0 < K; k0 += 8) {\n"
    /* the tile staged as half2 copies, a grid-stride loop over 32 of them */
    "        for (ushort i = tid; i < 32; i += nt)\n"
    "            *(threadgroup half2 *)(at + 2 * i) = *(device const half2 *)(A + (row0 + i / 4) * K + k0 + (i % 4) * 2);\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "        simdgroup_load(a, at, 8);\n"
    "        simdgroup_load(b, Bt + col0 * K + k0, K, ulong2(0, 0), true);\n"
    "        simdgroup_multiply_accumulate(acc, a, b, acc);\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    simdgroup_store(acc, C, N, ulong2(col0, row0));\n"
    "    simdgroup_half8x8 p;\n"
    "    simdgroup_multiply(p, a, b);\n"
    /* a loop of matrix operations only: each SIMD group runs it whole, from t = 0 */
    "    simdgroup_float8x8 q[2];\n"
    "    for (short t = 0; t < 2; t++) {\n"
    "        q[t] = make_filled_simdgroup_matrix<float, 8, 8>(float(t));\n"
    "        simdgroup_multiply_accumulate(q[t], p, b, q[t]);\n"
    "    }\n"
    "    simdgroup_store(q[1], D + row0 * N + col0, N);\n"
    "    E[(tg.y * (N / 8 / nsg) + tg.x) * (uint(nsg) * 32u) + tid] = uint(sg) * 100u + lane;\n"
    "}\n"
    "kernel void colsum(device const float *B [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                   constant uint &K [[buffer(2)]], constant uint &N [[buffer(3)]],\n"
    "                   uint2 pos [[thread_position_in_grid]], uint2 lpos [[thread_position_in_threadgroup]]) {\n"
    "    threadgroup float t[1024];\n"
    "    float acc = 0.0f;\n"
    "    for (uint k = 0; k < K; k++) acc += B[k * N + pos.x];\n"
    "    for (uint k = 0; k < 4; k++) acc += 2.0f * B[k * N + pos.x];\n"
    "    t[lpos.y * 32 + lpos.x] = acc;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[pos.y * N + pos.x] = t[lpos.y * 32 + lpos.x];\n"
    "}\n"
    /* rows `stride` apart, read up to `cols`: the next group's row is not at xr + cols */
    "kernel void strided_rows(device const float *x [[buffer(0)]], device float *y [[buffer(1)]],\n"
    "                         constant uint &cols [[buffer(2)]], constant uint &stride [[buffer(3)]],\n"
    "                         uint row [[threadgroup_position_in_grid]], uint lid [[thread_position_in_threadgroup]],\n"
    "                         uint lsize [[threads_per_threadgroup]]) {\n"
    "    threadgroup float part[1024];\n"
    "    device const float *xr = x + row * stride;\n"
    "    float s = 0.0f;\n"
    "    for (uint i = lid; i < cols; i += lsize) s += xr[i];\n"
    "    part[lid] = s;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    float t = part[0];\n"
    "    for (uint i = lid; i < cols; i += lsize) t += xr[i] * xr[i];\n"
    "    y[row * lsize + lid] = t;\n"
    "}\n"
    /* SIMD-group functions in wide mode: over the whole group after a grid-stride loop on
     * the position in the grid, and over the threads of each side of a divergent if */
    "kernel void simd_mix(device const float *in [[buffer(0)]], device float4 *out [[buffer(1)]],\n"
    "                     device uint4 *bits [[buffer(2)]], constant uint &n [[buffer(3)]],\n"
    "                     uint gid [[thread_position_in_grid]], uint grid [[threads_per_grid]],\n"
    "                     uint lid [[thread_index_in_threadgroup]], uint lsize [[threads_per_threadgroup]],\n"
    "                     device const float *scale [[buffer(4)]]) {\n"
    "    threadgroup float t[1024];\n"
    "    float acc = 0.0f;\n"
    "    for (uint i = gid; i < n; i += grid) acc += in[i] * scale[i];\n"
    "    t[lid] = acc;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    float other = t[(lid + 1) % lsize];\n"
    "    float4 r = float4(simd_sum(acc), simd_max(other), simd_prefix_exclusive_sum(acc), simd_shuffle_up(acc, 1u));\n"
    "    uint4 b = uint4(0u);\n"
    "    if (acc > 0.0f) {\n"
    "        r.y = simd_sum(acc);\n"
    "        b.x = uint(simd_vote::vote_t(simd_ballot(other > 0.0f)));\n"
    "        b.y = simd_all(other > -1.0f) ? 1u : 0u;\n"
    "        b.z = as_type<uint>(simd_broadcast_first(other));\n"
    "    } else {\n"
    "        r.w = simd_min(acc);\n"
    "        b.w = uint(simd_vote::vote_t(simd_active_threads_mask()));\n"
    "    }\n"
    "    out[gid] = r;\n"
    "    bits[gid] = b;\n"
    "}\n"
    /* 2-D groups: SIMD groups are 32 consecutive linear thread indices */
    "kernel void simd_2d(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                    uint2 pos [[thread_position_in_grid]], uint2 gsize [[threads_per_grid]],\n"
    "                    uint lid [[thread_index_in_threadgroup]]) {\n"
    "    threadgroup float t[1024];\n"
    "    uint idx = pos.y * gsize.x + pos.x;\n"
    "    float v = in[idx];\n"
    "    t[lid] = v * 3.0f;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[idx] = simd_sum(v) * 2.0f + simd_prefix_inclusive_sum(t[lid]);\n"
    "}\n"
    /* a per-thread variable filled through a reference (its address taken) and read after
     * a barrier; parameters the kernel assigns, the same in every thread (in) and not (gid) */
    "void fill4(thread float4 &r, device const float *p, uint i) { r = float4(p[i], 2.0f * p[i], p[i] + 1.0f, -p[i]); }\n"
    "kernel void by_ref(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                   uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]]) {\n"
    "    threadgroup float t[1024];\n"
    "    in += 1;\n"
    "    float4 v;\n"
    "    fill4(v, in, gid);\n"
    "    t[lid] = v.x + v.y;\n"
    "    gid = gid * 2u;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[gid] = t[lid] + v.z * v.w;\n"
    "    out[gid + 1u] = float(lid);\n"
    "}\n"
    /* ggml's shape: int indices from tpitg.x, an argument struct, a pointer that may be null
     * tested inside the loops (`mr ? mr[i] : 0.0f`), a reduction across SIMD groups only when
     * the group has more than one */
    "struct row_args { int ne00; float scale; };\n"
    "kernel void int_rows(constant row_args &args [[buffer(0)]], device const float *x [[buffer(1)]],\n"
    "                     device const float *maybe [[buffer(2)]], device float *y [[buffer(3)]],\n"
    "                     uint3 tgpig [[threadgroup_position_in_grid]], uint3 tpitg [[thread_position_in_threadgroup]],\n"
    "                     uint3 tptg [[threads_per_threadgroup]], uint sgitg [[simdgroup_index_in_threadgroup]],\n"
    "                     uint tiisg [[thread_index_in_simdgroup]]) {\n"
    "    threadgroup float buf[32];\n"
    "    device const float *xr = x + tgpig.x * args.ne00;\n"
    "    device const float *mr = maybe != x ? maybe + tgpig.x * args.ne00 : nullptr;\n"
    "    float lmax = -INFINITY;\n"
    "    for (int i = tpitg.x; i < args.ne00; i += tptg.x) lmax = max(lmax, xr[i] * args.scale + (mr ? mr[i] : 0.0f));\n"
    "    float m = simd_max(lmax);\n"
    "    if (tptg.x > 32) {\n"
    "        if (sgitg == 0) buf[tiisg] = -INFINITY;\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "        if (tiisg == 0) buf[sgitg] = m;\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "        m = simd_max(buf[tiisg]);\n"
    "    }\n"
    "    for (int i = tpitg.x; i < args.ne00; i += tptg.x) y[tgpig.x * args.ne00 + i] = xr[i] * args.scale + (mr ? mr[i] : 0.0f) - m;\n"
    "}\n"
    /* ggml's matrix times vector: a loop whose trip count differs per thread (lock step)
     * holds loops the same in every thread, left by their head, by a uniform break and
     * by a uniform continue; NR rows per group, the last group's second row past the end;
     * 2-D groups (32, nsg) */
    "kernel void mat_vec(device const half *a [[buffer(0)]], device const float *x [[buffer(1)]],\n"
    "                    device float *y [[buffer(2)]], constant int &rows [[buffer(3)]], constant int &cols [[buffer(4)]],\n"
    "                    uint3 tgpig [[threadgroup_position_in_grid]], ushort tiisg [[thread_index_in_simdgroup]],\n"
    "                    ushort sgitg [[simdgroup_index_in_threadgroup]], ushort nsg [[simdgroups_per_threadgroup]]) {\n"
    "    threadgroup float part[2][32];\n"
    "    const int NR = 2, NF = 8;\n"
    "    const int r0 = tgpig.x * NR;\n"
    "    float sum[NR] = {0.f, 0.f};\n"
    "    const int nb = cols / 32;\n"
    "    for (int ib = sgitg * 8 + tiisg / 4; ib < nb; ib += nsg * 8) {\n"
    "        float xl[NF];\n"
    "        for (short i = 0; i < NF; ++i) xl[i] = x[ib * 32 + (tiisg % 4) * NF + i];\n"
    "        for (short r = 0; r < NR; r++) {\n"
    "            if (r0 + r >= rows) break;\n"
    "            if (cols < 0) continue;\n"
    "            device const half *ar = a + (r0 + r) * cols + ib * 32 + (tiisg % 4) * NF;\n"
    "            float s = 0.f;\n"
    "            for (short i = 0; i < NF; ++i) s += float(ar[i]) * xl[i];\n"
    "            sum[r] += s;\n"
    "        }\n"
    "    }\n"
    "    for (int i = nb * 32 + sgitg * 32 + tiisg; i < cols; i += 32 * nsg)\n"
    "        for (short r = 0; r < NR && r0 + r < rows; r++) sum[r] += float(a[(r0 + r) * cols + i]) * x[i];\n"
    "    for (short r = 0; r < NR; r++) {\n"
    "        if (sgitg == 0) part[r][tiisg] = 0.f;\n"
    "        sum[r] = simd_sum(sum[r]);\n"
    "    }\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (short r = 0; r < NR; r++) if (tiisg == 0) part[r][sgitg] = sum[r];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (short r = 0; r < NR && r0 + r < rows; r++) {\n"
    "        float t = simd_sum(part[r][tiisg]);\n"
    "        if (tiisg == 0 && sgitg == 0) y[r0 + r] = t;\n"
    "    }\n"
    "}\n"
    /* float4s stored at float addresses (rows of an odd length), as Apple's GPUs allow */
    "kernel void copy4(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                  constant int &cols [[buffer(2)]], uint3 tg [[threadgroup_position_in_grid]],\n"
    "                  ushort lid [[thread_index_in_threadgroup]]) {\n"
    "    threadgroup float t[256];\n"
    "    t[lid] = lid < cols ? 2.0f * in[tg.x * cols + lid] : 0.0f;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    device float4 *row = (device float4 *)(out + tg.x * cols);\n"
    "    if (lid < cols / 4) row[lid] = ((threadgroup float4 *)t)[lid] + *((device const float4 *)(in + tg.x * cols) + lid);\n"
    "}\n"
    /* attention's shape: each SIMD group takes its own blocks (a loop whose test is the same
     * within a SIMD group only), left by a break with no loop head, a continue after a
     * simd_max and a second break, around simdgroup_matrix operations and per-thread stores */
    "kernel void sg_blocks(device const float *a [[buffer(0)]], device const float *b [[buffer(1)]],\n"
    "                      device float *c [[buffer(2)]], device float *t [[buffer(3)]],\n"
    "                      constant int &nblocks [[buffer(4)]], constant int &limit [[buffer(5)]],\n"
    "                      ushort lid [[thread_index_in_threadgroup]], ushort2 tsz [[threads_per_threadgroup]],\n"
    "                      ushort tiisg [[thread_index_in_simdgroup]], ushort sgitg [[simdgroup_index_in_threadgroup]],\n"
    "                      ushort nsg [[simdgroups_per_threadgroup]], ushort2 tpos [[thread_position_in_threadgroup]]) {\n"
    "    threadgroup float bs[64];\n"
    "    for (uint i = lid; i < 64; i += tsz.x * tsz.y) bs[i] = b[i];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    simdgroup_float8x8 mb;\n"
    "    simdgroup_load(mb, bs, 8);\n"
    "    for (int blk = sgitg; ; blk += nsg) {\n"
    "        if (blk >= nblocks) break;\n"
    "        float v = a[blk * 64 + tiisg];\n"
    "        if (simd_max(v) < -0.9f) continue;\n"
    "        if (blk >= limit) break;\n"
    "        simdgroup_float8x8 ma, mc;\n"
    "        simdgroup_load(ma, a + blk * 64, 8);\n"
    "        simdgroup_multiply(mc, ma, mb);\n"
    "        simdgroup_store(mc, c + blk * 64, 8);\n"
    "        t[blk * 32 + tiisg] = v * 2.0f + float(tpos.x * 3 + tpos.y * 1000);\n"
    "    }\n"
    "}\n"
    /* lanes in lock step: every lane reads its SIMD group's slot, then lane 0 rewrites it
     * (no barrier between): the other lanes must still see the old value */
    "kernel void publish(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                    uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]],\n"
    "                    uint tiisg [[thread_index_in_simdgroup]], uint sgitg [[simdgroup_index_in_threadgroup]]) {\n"
    "    threadgroup float ss[1024];\n"
    "    ss[lid] = in[gid];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    float a = ss[sgitg * 32 + 5];\n"
    "    if (tiisg == 0) ss[sgitg * 32 + 5] = a * 3.0f;\n"
    "    out[gid] = a + ss[lid] * 0.5f;\n"
    "}\n"
    "kernel void neighbours(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                       uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]],\n"
    "                       uint lane [[thread_index_in_simdgroup]]) {\n"
    "    threadgroup float t[1024];\n"
    "    threadgroup float u[4096];\n"
    "    t[lid] = in[gid];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (uint d = 1; d < 32; d *= 2) {\n"
    "        float o = lane >= d ? t[lid - d] : 0.0f;\n"
    "        t[lid] += o;\n"
    "    }\n"
    "    if (lane > 0) t[lid] = t[lid - 1] * 0.5f;\n"
    "    float x = t[lid] + 1.0f;\n"
    "    t[lid] = x;\n"
    "    float y = t[lid ^ 1u];\n"
    "    for (int i = 0; i < 4; i++) u[lid * 4 + i] = x + float(i);\n"
    "    float s = 0.0f;\n"
    "    for (int i = 0; i < 4; i++) s += u[lid * 4 + i] * float(i + 1);\n"
    "    out[gid] = y + s;\n"
    "}\n"
    /* products sharing their a: a j loop of 3 (a pair, then one) inside an i loop, a
     * multiply-only loop on its own, and a loop whose destination is its own b (w[j] = a x
     * w[j] + w[j]: not a block) */
    "kernel void mma_pairs(device const half *A [[buffer(0)]], device const half *B [[buffer(1)]],\n"
    "                      device float *C [[buffer(2)]], device float *M [[buffer(3)]], device float *W [[buffer(4)]],\n"
    "                      ushort tid [[thread_index_in_threadgroup]]) {\n"
    "    threadgroup half at[128];\n"
    "    for (ushort i = tid; i < 128; i += 32) at[i] = A[i];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    simdgroup_half8x8 a[2], b[3];\n"
    "    for (short i = 0; i < 2; i++) simdgroup_load(a[i], at + i * 64, 8);\n"
    "    for (short j = 0; j < 3; j++) simdgroup_load(b[j], B + j * 8, 24);\n"
    "    simdgroup_float8x8 acc[2][3];\n"
    "    for (short i = 0; i < 2; i++)\n"
    "        for (short j = 0; j < 3; j++) acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(float(i * 10 + j));\n"
    "    for (short i = 0; i < 2; i++)\n"
    "        for (short j = 0; j < 3; j++) simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);\n"
    "    simdgroup_float8x8 m[2], w[2];\n"
    "    for (ushort j = 0; j < 2; j++) simdgroup_multiply(m[j], a[0], b[j]);\n"
    "    for (short j = 0; j < 2; j++) w[j] = make_filled_simdgroup_matrix<float, 8, 8>(float(1 + j));\n"
    "    for (short j = 0; j < 2; j++) simdgroup_multiply_accumulate(w[j], a[1], w[j], w[j]);\n"
    "    for (short i = 0; i < 2; i++)\n"
    "        for (short j = 0; j < 3; j++) simdgroup_store(acc[i][j], C + i * 8 * 24 + j * 8, 24);\n"
    "    for (short j = 0; j < 2; j++) {\n"
    "        simdgroup_store(m[j], M + j * 8, 16);\n"
    "        simdgroup_store(w[j], W + j * 8, 16);\n"
    "    }\n"
    "}\n"
    /* tile copies by `c / D` and `c % D` (threads in runs of D, split_lanes): a ushort
     * index by 4 and a uint one by 8 from an offset; runs taken or not by the group size
     * and the offset */
    "kernel void runs(device const float4 *src [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                 constant uint &off [[buffer(2)]], ushort tid [[thread_index_in_threadgroup]],\n"
    "                 ushort ntg [[threads_per_threadgroup]], uint grp [[threadgroup_position_in_grid]]) {\n"
    "    threadgroup float t[640], u[640];\n"
    "    for (ushort i = tid; i < 640; i += ntg) { t[i] = -1.0f; u[i] = -2.0f; }\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (ushort c = tid; c < 160; c += ntg) {\n"
    "        ushort r = c / 4, k = (c % 4) * 4;\n"
    "        *(threadgroup float4 *)(t + r * 16 + k) = src[grp * 160 + c];\n"
    "    }\n"
    "    for (uint c = tid + off; c < 160; c += ntg) {\n"
    "        uint r = c / 8, k = (c % 8) * 4;\n"
    "        *(threadgroup float4 *)(u + r * 32 + k) = src[grp * 160 + c] * 2.0f;\n"
    "    }\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (ushort i = tid; i < 640; i += ntg) {\n"
    "        out[grp * 1280 + i] = t[i];\n"
    "        out[grp * 1280 + 640 + i] = u[i];\n"
    "    }\n"
    "}\n"
    /* blocks of products (enk_mat_block): a 4 x 4 block that accumulates, a 2 x 4 one that
     * only multiplies, a 3 x 2 one (pairs only), llama.cpp's one loop (`f[i] = a[i / 4] x
     * b[i % 4] + f[i]`: 3 x 4), and a loop whose a's and b's would make a 2 x 2 block but
     * that adds two products into each h[i % 2] (no block: each h is written twice, in
     * order); each SIMD group its own fragments */
    "kernel void mma_block(device const half *A [[buffer(0)]], device const half *B [[buffer(1)]],\n"
    "                      device float *C [[buffer(2)]], device float *D [[buffer(3)]], device float *E [[buffer(4)]],\n"
    "                      device float *F [[buffer(5)]], device float *H [[buffer(6)]],\n"
    "                      ushort tid [[thread_index_in_threadgroup]], ushort sg [[simdgroup_index_in_threadgroup]]) {\n"
    "    threadgroup half at[512];\n"
    "    for (ushort i = tid; i < 512; i += 64) at[i] = A[i];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    simdgroup_half8x8 a[4], b[4];\n"
    "    for (short i = 0; i < 4; i++) simdgroup_load(a[i], at + sg * 256 + i * 64, 8);\n"
    "    for (short j = 0; j < 4; j++) simdgroup_load(b[j], B + sg * 256 + j * 8, 32);\n"
    "    simdgroup_float8x8 acc[4][4], m[2][4], e[3][2];\n"
    "    for (short i = 0; i < 4; i++)\n"
    "        for (short j = 0; j < 4; j++) acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(float(i * 4 + j) * 0.25f);\n"
    "    for (short i = 0; i < 3; i++)\n"
    "        for (short j = 0; j < 2; j++) e[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(float(i - j));\n"
    "    for (short i = 0; i < 4; i++)\n"
    "        for (short j = 0; j < 4; j++) simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);\n"
    "    for (short i = 0; i < 2; i++)\n"
    "        for (short j = 0; j < 4; j++) simdgroup_multiply(m[i][j], a[i + 2], b[j]);\n"
    "    for (short i = 0; i < 3; i++)\n"
    "        for (short j = 0; j < 2; j++) simdgroup_multiply_accumulate(e[i][j], a[i], b[j + 2], e[i][j]);\n"
    "    simdgroup_float8x8 f[12], h[2];\n"
    "    for (short i = 0; i < 12; i++) f[i] = make_filled_simdgroup_matrix<float, 8, 8>(float(i) * 0.5f);\n"
    "    for (short i = 0; i < 2; i++) h[i] = make_filled_simdgroup_matrix<float, 8, 8>(1.0f);\n"
    "    for (short i = 0; i < 12; i++) simdgroup_multiply_accumulate(f[i], a[i / 4], b[i % 4], f[i]);\n"
    "    for (short i = 0; i < 4; i++) simdgroup_multiply_accumulate(h[i % 2], a[i / 2], b[i % 2], h[i % 2]);\n"
    "    for (short i = 0; i < 12; i++) simdgroup_store(f[i], F + sg * 768 + i * 64, 8);\n"
    "    for (short i = 0; i < 2; i++) simdgroup_store(h[i], H + sg * 128 + i * 64, 8);\n"
    "    for (short i = 0; i < 4; i++)\n"
    "        for (short j = 0; j < 4; j++) {\n"
    "            simdgroup_store(acc[i][j], C + sg * 1024 + i * 256 + j * 8, 32);\n"
    "            if (i < 2) simdgroup_store(m[i][j], D + sg * 512 + i * 256 + j * 8, 32);\n"
    "            if (i < 3 && j < 2) simdgroup_store(e[i][j], E + sg * 384 + i * 128 + j * 8, 16);\n"
    "        }\n"
    "}\n"
    "kernel void wrap_rows(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                      constant uint &base [[buffer(2)]], constant uint &K [[buffer(3)]],\n"
    "                      constant uint &back [[buffer(4)]], constant uint &skip [[buffer(5)]],\n"
    "                      uint2 lpos [[thread_position_in_threadgroup]], uint2 tsize [[threads_per_threadgroup]]) {\n"
    "    threadgroup float t[16][16];\n"
    "    threadgroup float u[16][16];\n"
    "    float acc = 0.0f;\n"
    "    for (uint k0 = 0; k0 < K; k0 += 16) {\n"
    "        if (lpos.y * K + k0 + lpos.x >= skip) t[lpos.y][lpos.x] = in[base + lpos.y * K + k0 + lpos.x];\n"
    "        else t[lpos.y][lpos.x] = -1.0f;\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "        u[lpos.y][lpos.x] = in[lpos.y * K + k0 + 16u - back + lpos.x];\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "        acc += t[lpos.y][lpos.x] * 2.0f + u[tsize.y - 1u - lpos.y][lpos.x];\n"
    "        threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    }\n"
    "    out[lpos.y * tsize.x + lpos.x] = acc;\n"
    "}\n"
    /* grid-stride loops several steps a pass (blocked_steps): each thread's steps in order
     * (h hashes the indices it took, in order), an if per step, a temporary; a loop that
     * stores and one with a loop inside stay a step a pass */
    "kernel void steps(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                  device uint *hash [[buffer(2)]], device float *twice [[buffer(3)]], constant uint &n [[buffer(4)]],\n"
    "                  uint gid [[thread_position_in_grid]], uint grid [[threads_per_grid]],\n"
    "                  uint lid [[thread_index_in_threadgroup]], uint lsize [[threads_per_threadgroup]]) {\n"
    "    threadgroup float t[1024];\n"
    "    float acc = 0.0f;\n"
    "    uint h = 7u;\n"
    "    for (uint i = gid; i < n; i += grid) {\n"
    "        float v = in[i];\n"
    "        if (v > 0.25f) h = h * 31u + i;\n"
    "        else acc += v * float(i % 5u);\n"
    "    }\n"
    "    for (uint i = gid; i < n; i += grid) twice[i] = in[i] * 2.0f;\n"
    "    uint odd = 0u;\n"
    "    for (uint i = gid; i < n; i += grid)\n"
    "        for (uint k = 0u; k < (i & 3u); k++) odd += k;\n"
    "    t[lid] = acc;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[gid] = acc + t[lsize - 1u - lid];\n"
    "    hash[gid] = h + odd;\n"
    "}\n";

/* how often `text` stands in kernel `index`'s C */
static int kernel_count(const char *c, int index, const char *text) {
    char from[64], to[64];
    snprintf(from, sizeof from, "void enk_kernel_%d(", index);
    snprintf(to, sizeof to, "void enk_kernel_%d(", index + 1);
    const char *start = strstr(c, from), *end = start ? strstr(start, to) : NULL;
    int n = 0;
    for (const char *hit = start ? strstr(start, text) : NULL; hit && (!end || hit < end); hit = strstr(hit + 1, text)) n++;
    return n;
}

/* does kernel `index`'s C hold the wide block? */
static bool kernel_is_wide(const char *c, int index) { return kernel_count(c, index, "wide mode (emit_wide.c)") > 0; }

static void check_emitted(enigma_device *dev) {
    enigma_library *lib = NULL;
    OK(enigma_library_create_from_source(dev, source, strlen(source), "wide.metal", NULL, &lib));
    char *c = NULL;
    if (lib) OK(enigma_library_emit(lib, "c", &c));
    if (c) {
        static const char *names[] = {"tree", "bounds", "wrap", "rows", "tiled", "diverge", "strided_le"};
        for (int k = 0; k < 7; k++) CHECK(kernel_is_wide(c, k), "kernel %s is not in wide mode", names[k]);
        CHECK(kernel_is_wide(c, 7), "kernel with_simd (a SIMD-group function) is not in wide mode");
        CHECK(kernel_is_wide(c, 11), "kernel simd_mix is not in wide mode");
        CHECK(kernel_is_wide(c, 12), "kernel simd_2d is not in wide mode");
        CHECK(kernel_is_wide(c, 13), "kernel by_ref is not in wide mode");
        CHECK(kernel_is_wide(c, 14), "kernel int_rows is not in wide mode");
        CHECK(kernel_count(c, 14, "int64_t _ib") == 2, "int_rows: its int grid-stride loops have no base index");
        CHECK(kernel_count(c, 14, "taken out of the loop over threads") >= 2, "int_rows: `mr ?` is not taken out of the loops");
        CHECK(kernel_count(c, 14, "constant: read once") == 1, "int_rows: args is not read once");
        CHECK(kernel_is_wide(c, 15), "kernel mat_vec (uniform loops inside a lock-step loop) is not in wide mode");
        CHECK(kernel_is_wide(c, 16), "kernel copy4 is not in wide mode");
        CHECK(kernel_is_wide(c, 17) && kernel_count(c, 17, "its tests are the same within a SIMD group") == 1,
              "kernel sg_blocks does not run its block loop a SIMD group at a time");
        CHECK(kernel_is_wide(c, 18), "kernel publish is not in wide mode");
        CHECK(kernel_is_wide(c, 19), "kernel neighbours is not in wide mode");
        CHECK(kernel_count(c, 19, "every thread's loads before any thread's store") == 1,
              "neighbours: the shift is not run as the loads, then the stores");
        CHECK(kernel_count(c, 19, "u[lid * 4 + i] = x + float(i);: unrolled") == 1,
              "neighbours: the threads' own blocks do not share one loop over the threads");
        CHECK(kernel_count(c, 11, "the threads part") == 1, "simd_mix: no divergent if around its SIMD functions");
        CHECK(kernel_count(c, 11, "the step skips memory") == 1 && kernel_count(c, 11, "__builtin_prefetch((const char *)(_pa") == 2,
              "simd_mix: not one prefetch for each load of its grid stride");
        CHECK(kernel_count(c, 11, "256 threads at a time") == 1, "simd_mix: its grid-stride step is not in chunks");
        CHECK(kernel_count(c, 4, "interleaved, a statement at a time") == 1,
              "tiled: its unrolled k loop does not run rows of threads interleaved");
        CHECK(kernel_count(c, 9, "interleaved, a statement at a time") == 1,
              "colsum: rows not interleaved in its constant loop, or interleaved around its run-time one");
        CHECK(kernel_is_wide(c, 8), "kernel mma (simdgroup matrices) is not in wide mode");
        CHECK(kernel_is_wide(c, 20) && kernel_count(c, 20, "the 2 x 3 products as one block") == 1 &&
                  kernel_count(c, 20, "the 1 x 2 products as one block") == 1 &&
                  kernel_count(c, 20, "products as one block") == 2,
              "mma_pairs: its i and j loops or its multiply-only loop are not a block, or its w loop is");
        CHECK(kernel_is_wide(c, 21) && kernel_count(c, 21, "threads in runs of 4") == 1 &&
                  kernel_count(c, 21, "threads in runs of 8") == 1,
              "runs: its tile copies do not run in runs of 4 and of 8 threads");
        CHECK(kernel_is_wide(c, 22) && kernel_count(c, 22, "the 4 x 4 products as one block") == 1 &&
                  kernel_count(c, 22, "the 2 x 4 products as one block") == 1 &&
                  kernel_count(c, 22, "the 3 x 2 products as one block") == 1 &&
                  kernel_count(c, 22, "the 3 x 4 products as one block") == 1 &&
                  kernel_count(c, 22, "products as one block") == 4,
              "mma_block: its loops of products are not blocks");
        CHECK(kernel_is_wide(c, 9), "kernel colsum is not in wide mode");
        CHECK(strstr(c, "prefetch: last address per index value") != NULL, "no prefetch for mma's staged copies");
        /* rows: the second pass re-reads xr and stores nothing, so it fetches the next
         * group's row; the first pass (from DRAM) and the third (it stores) do not */
        /* tree loads in[gid], then reduces behind barriers in a loop: the first barrier fetches
         * the next group's share of in; diverge and with_simd (a barrier, no loop of them
         * after it) and wrap (in[lid + base]) get none */
        const char *next_group = "the next threadgroup's in[gid]";
        CHECK(kernel_count(c, 0, next_group) == 1 && kernel_count(c, 0, "(in_0 + (uint64_t)_g0 + _sx)") == 1,
              "tree: %d prefetches of the next group's in[gid], expected 1", kernel_count(c, 0, next_group));
        CHECK(kernel_count(c, 2, next_group) == 0 && kernel_count(c, 5, next_group) == 0 && kernel_count(c, 7, next_group) == 0,
              "a next-group prefetch in wrap, diverge or with_simd");
        const char *next_row = "fetch the next threadgroup's row";
        CHECK(kernel_count(c, 3, next_row) == 1, "rows: %d next-row prefetches, expected 1", kernel_count(c, 3, next_row));
        /* grid-stride loops over the whole grid run several steps a pass; a row's passes
         * (rows: from the position in the group) and loops that store do not */
        CHECK(kernel_count(c, 3, "4 steps a pass") == 0, "rows: a row's pass 4 steps a pass");
        CHECK(kernel_count(c, 11, "4 steps a pass") == 1, "simd_mix: its grid-stride loop is not 4 steps a pass");
        CHECK(kernel_is_wide(c, 24) && kernel_count(c, 24, "4 steps a pass") == 1 && kernel_count(c, 24, "step 4 of 4") == 1,
              "steps: %d loops 4 steps a pass, expected 1 (not the one that stores nor the one with a loop inside)",
              kernel_count(c, 24, "4 steps a pass"));
        CHECK(kernel_is_wide(c, 10), "kernel strided_rows is not in wide mode");
        CHECK(kernel_count(c, 10, next_row) == 0, "strided_rows: a next-row prefetch though rows are `stride` apart");
        CHECK(strstr(c, "each SIMD group: simdgroup_matrix operations") != NULL, "no loop over SIMD groups in the C");
        /* wrap_rows: its masked copy's rows are tested at once, from the bound at the last row;
         * the copy with a subtraction row by row; both prefetch through k0 + 32 */
        CHECK(kernel_is_wide(c, 23), "kernel wrap_rows is not in wide mode");
        CHECK(kernel_count(c, 23, "at the last row, the largest") >= 1, "wrap_rows: no bound at the last row");
        CHECK(kernel_count(c, 23, "for (uint32_t _y = 0; _y < _sy; _y++) _rows_ok &=") == 1,
              "wrap_rows: its copy with a subtraction is not tested row by row");
        CHECK(kernel_count(c, 23, "__builtin_prefetch((const void *)((uintptr_t)in_0 + ") == 2 &&
                  kernel_count(c, 23, "w_k0_") && kernel_count(c, 23, " + 32u)") == 2 && kernel_count(c, 23, "_pf0[") == 0,
              "wrap_rows: its copies do not prefetch through k0 two steps on");
        /* the forms the fast paths rest on */
        CHECK(strstr(c, "no index of any row wraps") != NULL, "no 64-bit index form in the C");
        CHECK(strstr(c, "the threads step through this loop together") != NULL, "no lock-step loop in the C");
        CHECK(strstr(c, "for (size_t l = 0u; l < _r") != NULL, "no thread range in the C");
    }
    enigma_free(c);
    enigma_library_destroy(lib);
    enigma_compile_options checked = {.checked = true};
    lib = NULL;
    OK(enigma_library_create_from_source(dev, source, strlen(source), "wide.metal", &checked, &lib));
    c = NULL;
    if (lib) OK(enigma_library_emit(lib, "c", &c));
    /* checked mode takes wide mode's straight statements, each access through access_span,
     * and leaves lock-step loops and SIMD-group functions to the region code */
    if (c) {
        CHECK(strstr(c, "checked (access_span)") != NULL, "no kernel of checked mode's C in checked wide form");
        CHECK(strstr(c, "the threads step through this loop together") == NULL, "a lock-step loop in checked mode's C");
    }
    enigma_free(c);
    enigma_library_destroy(lib);
}

typedef struct slot {
    void *host;
    size_t bytes;
} slot;

/* binds slots[i] to [[buffer(i)]], dispatches, reads every slot back */
static void dispatch(enigma_device *dev, enigma_pipeline *p, slot *slots, int count, enigma_dispatch_mode kind,
                     enigma_size3 grid, enigma_size3 group) {
    enigma_buffer *b[8] = {0};
    enigma_command *cmd = NULL;
    OK(enigma_command_create(p, &cmd));
    int same[8]; /* slots of one host array bind one buffer (a kernel may compare the pointers) */
    for (int i = 0; i < count; i++) {
        same[i] = i;
        for (int j = 0; j < i; j++)
            if (slots[j].host == slots[i].host) same[i] = same[i] == i ? j : same[i];
    }
    for (int i = 0; i < count && cmd; i++) {
        if (same[i] == i) OK(enigma_buffer_create_with_data(dev, slots[i].host, slots[i].bytes, &b[i]));
        OK(enigma_command_set_buffer(cmd, i, b[same[i]], 0));
    }
    if (cmd) OK(enigma_command_dispatch(cmd, kind, grid, group));
    for (int i = 0; i < count; i++) {
        if (same[i] != i) continue;
        if (b[i]) OK(enigma_buffer_read(b[i], 0, slots[i].host, slots[i].bytes));
        enigma_buffer_destroy(b[i]);
    }
    enigma_command_destroy(cmd);
}

static void run_tree(enigma_device *dev, enigma_pipeline *p, uint32_t n, uint32_t tsize) {
    uint32_t groups = (n + tsize - 1) / tsize;
    int32_t *in = malloc((size_t)n * 4), total = 0, *partial = calloc(groups, 4);
    for (uint32_t i = 0; i < n; i++) in[i] = rndi();
    slot s[] = {{in, (size_t)n * 4}, {&total, 4}, {partial, (size_t)groups * 4}, {&n, 4}};
    dispatch(dev, p, s, 4, ENIGMA_DISPATCH_THREADS, (enigma_size3){n, 1, 1}, (enigma_size3){tsize, 1, 1});
    int64_t want = 0;
    for (uint32_t g = 0; g < groups; g++) {
        int64_t part = 0;
        for (uint32_t i = g * tsize; i < n && i < (g + 1) * tsize; i++) part += in[i];
        want += part;
        if (partial[g] != part) {
            CHECK(0, "tree n %u tsize %u: group %u sums to %d, expected %lld", n, tsize, g, partial[g], (long long)part);
            break;
        }
    }
    CHECK(total == (int32_t)want, "tree n %u tsize %u: total %d, expected %lld", n, tsize, total, (long long)want);
    free(in), free(partial);
}

static void run_bounds(enigma_device *dev, enigma_pipeline *p, uint32_t u, uint32_t tsize) {
    uint32_t groups = 2, n = groups * tsize, *out = calloc(n, 4);
    for (uint32_t i = 0; i < n; i++) out[i] = (uint32_t)rnd();
    slot s[] = {{out, (size_t)n * 4}, {&u, 4}};
    dispatch(dev, p, s, 2, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (uint32_t g = 0; g < n; g++) {
        uint32_t lid = tsize - 1 - g % tsize; /* out[gid] holds t[lsize - 1 - lid] */
        uint32_t want = (lid <= u ? 1u : 0) + (lid < u ? 2u : 0) + (lid == u ? 4u : 0) + (u > lid ? 8u : 0) +
                        (lid > u ? 16u : 0) + (u == lid ? 32u : 0);
        if (out[g] != want) {
            CHECK(0, "bounds u %u tsize %u: thread %u gives %u, expected %u", u, tsize, g, out[g], want);
            break;
        }
    }
    free(out);
}

static void run_wrap(enigma_device *dev, enigma_pipeline *p, uint32_t tsize) {
    uint32_t base = 0xFFFFFFF8u; /* lid + base = lid - 8 as a uint */
    float *in = malloc((size_t)tsize * 4), *out = calloc(tsize, 4);
    for (uint32_t i = 0; i < tsize; i++) in[i] = rndf();
    slot s[] = {{in, (size_t)tsize * 4}, {out, (size_t)tsize * 4}, {&base, 4}};
    dispatch(dev, p, s, 3, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){1, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (uint32_t l = 0; l < tsize; l++) {
        float want = l >= 8 ? in[l - 8] : -1.0f;
        if (out[l] != want) {
            CHECK(0, "wrap tsize %u: thread %u gives %g, expected %g", tsize, l, out[l], want);
            break;
        }
    }
    free(in), free(out);
}

static void run_rows(enigma_device *dev, enigma_pipeline *p, uint32_t nrows, uint32_t cols, uint32_t start,
                     uint32_t tsize) {
    size_t count = (size_t)nrows * cols;
    float *x = malloc(count * 4), *y = malloc(count * 4);
    for (size_t i = 0; i < count; i++) x[i] = rndf() * 30.0f;
    for (size_t i = 0; i < count; i++) y[i] = 12345.0f;
    slot s[] = {{x, count * 4}, {y, count * 4}, {&cols, 4}, {&start, 4}};
    dispatch(dev, p, s, 4, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){nrows, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (uint32_t r = 0; r < nrows; r++) {
        const float *xr = x + (size_t)r * cols, *yr = y + (size_t)r * cols;
        double m = -INFINITY, sum = 0;
        for (uint32_t i = start; i < cols; i++) m = xr[i] > m ? xr[i] : m;
        for (uint32_t i = start; i < cols; i++) sum += exp((double)xr[i] - m);
        for (uint32_t i = 0; i < cols; i++) {
            double want = i < start ? 12345.0 : exp((double)xr[i] - m) / sum;
            if (i < start && yr[i] != 12345.0f) {
                CHECK(0, "rows: y[%u][%u] before the start was written", r, i);
                r = nrows;
                break;
            }
            /* float rounds x - m (up to |x - m| * 2^-24 relative after exp), then about
             * one ulp each for exp, the sum and the product */
            double tol = want * (fabs((double)xr[i] - m) * 1.2e-7 + 2e-6) + 1e-37;
            if (i >= start && fabs(yr[i] - want) > tol) {
                CHECK(0, "rows %ux%u start %u tsize %u: y[%u][%u] = %.9g, expected %.9g", nrows, cols, start, tsize, r,
                      i, yr[i], want);
                r = nrows;
                break;
            }
        }
    }
    free(x), free(y);
}

static void run_tiled(enigma_device *dev, enigma_pipeline *p, uint32_t M, uint32_t N, uint32_t K, uint32_t tx,
                      uint32_t ty) {
    float *A = malloc((size_t)M * K * 4), *B = malloc((size_t)K * N * 4), *C = malloc((size_t)M * N * 4);
    for (size_t i = 0; i < (size_t)M * K; i++) A[i] = rndf();
    for (size_t i = 0; i < (size_t)K * N; i++) B[i] = rndf();
    slot s[] = {{A, (size_t)M * K * 4}, {B, (size_t)K * N * 4}, {C, (size_t)M * N * 4}, {&K, 4}, {&N, 4}};
    dispatch(dev, p, s, 5, ENIGMA_DISPATCH_THREADS, (enigma_size3){N, M, 1}, (enigma_size3){tx, ty, 1});
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            double want = 0, mag = 0;
            for (uint32_t k = 0; k < K; k++) {
                want += (double)A[i * K + k] * B[k * N + j];
                mag += fabs((double)A[i * K + k] * B[k * N + j]);
            }
            if (fabs(C[i * N + j] - want) > 1e-5 * mag + 1e-6) {
                CHECK(0, "tiled %ux%ux%u group %ux%u: C[%u][%u] = %g, expected %g", M, N, K, tx, ty, i, j, C[i * N + j],
                      want);
                i = M;
                break;
            }
        }
    free(A), free(B), free(C);
}

/* one tx x ty group; in holds 17 rows of K floats. Thread (x, y) at offset o = y K + k0 + x
 * reads in[(base + o) mod 2^32] where o >= skip, and is -1 before: with base = 2^32 - skip,
 * (base + o) wraps to o - skip inside row y = skip / K, at x = skip % K - k0 */
static void run_wrap_rows(enigma_device *dev, enigma_pipeline *p, uint32_t skip, uint32_t back, uint32_t tx, uint32_t ty) {
    uint32_t K = 48, n = 17 * K, base = 0u - skip;
    float *in = malloc((size_t)n * 4), *out = malloc(256 * 4);
    for (uint32_t i = 0; i < n; i++) in[i] = rndf();
    for (uint32_t i = 0; i < 256; i++) out[i] = -7.0f;
    slot s[] = {{in, (size_t)n * 4}, {out, 256 * 4}, {&base, 4}, {&K, 4}, {&back, 4}, {&skip, 4}};
    dispatch(dev, p, s, 6, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){1, 1, 1}, (enigma_size3){tx, ty, 1});
    for (uint32_t y = 0; y < ty; y++)
        for (uint32_t x = 0; x < tx; x++) {
            double want = 0;
            for (uint32_t k0 = 0; k0 < K; k0 += 16) {
                uint32_t o = y * K + k0 + x;
                double t = o >= skip ? in[(uint32_t)(base + o)] : -1.0;
                want += t * 2.0 + in[(ty - 1 - y) * K + k0 + 16 - back + x];
            }
            if (fabs(out[y * tx + x] - want) > 1e-5 * (1 + fabs(want))) {
                CHECK(0, "wrap_rows skip %u back %u group %ux%u: out[%u][%u] = %g, expected %g", skip, back, tx, ty, y, x,
                      out[y * tx + x], want);
                y = ty;
                break;
            }
        }
    free(in), free(out);
}

static void run_diverge(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize) {
    uint32_t n = groups * tsize;
    int32_t *in = malloc((size_t)n * 4), *out = calloc(n, 4), *acc = malloc((size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) in[i] = rndi();
    slot s[] = {{in, (size_t)n * 4}, {out, (size_t)n * 4}};
    dispatch(dev, p, s, 2, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (uint32_t g = 0; g < n; g++) {
        int32_t v = in[g], a = v > 0 ? v * 3 : -v + 1;
        for (uint32_t k = 0; k < ((uint32_t)v & 7u); k++) a += (int32_t)k * v;
        acc[g] = a;
    }
    for (uint32_t g = 0; g < n; g++) {
        uint32_t base = g / tsize * tsize, lid = g % tsize;
        int32_t other = acc[base + (lid + 1) % tsize], want = other % 3 == 0 ? acc[g] + other : acc[g] - 1;
        if (out[g] != want) {
            CHECK(0, "diverge %ux%u: thread %u gives %d, expected %d", groups, tsize, g, out[g], want);
            break;
        }
    }
    free(in), free(out), free(acc);
}

static void run_strided_le(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize, uint32_t end) {
    uint32_t n = groups * tsize;
    float *in = malloc(((size_t)end + 1) * 4), *out = calloc(n, 4);
    for (uint32_t i = 0; i <= end; i++) in[i] = rndf();
    slot s[] = {{in, ((size_t)end + 1) * 4}, {out, (size_t)n * 4}, {&end, 4}};
    dispatch(dev, p, s, 3, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (uint32_t g = 0; g < n; g++) {
        uint32_t lid = tsize - 1 - g % tsize; /* out holds t[lsize - 1 - lid] */
        float want = 0.0f;
        for (uint32_t i = lid; i <= end; i += tsize) want += in[i] * (float)(i % 5u);
        if (fabsf(out[g] - want) > 1e-5f * (1.0f + fabsf(want))) {
            CHECK(0, "strided_le %ux%u end %u: thread %u gives %g, expected %g", groups, tsize, end, g, out[g], want);
            break;
        }
    }
    free(in), free(out);
}

/* simd_mix over `groups` groups of tsize threads and n inputs: SIMD group k of a group is
 * its threads 32k..32k+31 (the last one partial when tsize is not a multiple of 32); each
 * function is worked out here over its lanes in order, as float */
static void run_simd_mix(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize, uint32_t n) {
    uint32_t grid = groups * tsize;
    float *in = malloc((size_t)n * 4), *scale = malloc((size_t)n * 4), *out = malloc((size_t)grid * 16),
          *acc = malloc((size_t)grid * 4), *other = malloc((size_t)grid * 4);
    uint32_t *bits = malloc((size_t)grid * 16);
    /* multiples of 1/32 of modest size: every sum below is exact in float in any order, with
     * or without fused multiply-adds, so the tests (acc > 0, other > 0) and the bits of a
     * broadcast value are the same here as in the kernel */
    for (uint32_t i = 0; i < n; i++)
        in[i] = (float)((int)(rnd() % 129u) - 64) / 8.0f, scale[i] = (float)((int)(rnd() % 9u) - 4) / 4.0f;
    for (uint32_t i = 0; i < grid * 4; i++) out[i] = 777.0f, bits[i] = 777u;
    slot s[] = {{in, (size_t)n * 4}, {out, (size_t)grid * 16}, {bits, (size_t)grid * 16}, {&n, 4}, {scale, (size_t)n * 4}};
    dispatch(dev, p, s, 5, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (uint32_t g = 0; g < grid; g++) {
        acc[g] = 0.0f;
        for (uint32_t i = g; i < n; i += grid) acc[g] += in[i] * scale[i];
    }
    for (uint32_t g = 0; g < grid; g++) other[g] = acc[g / tsize * tsize + (g % tsize + 1) % tsize];
    for (uint32_t g = 0; g < grid; g++) {
        uint32_t lid = g % tsize, first = g - lid % 32, end = first + 32 < g - lid + tsize ? first + 32 : g - lid + tsize;
        bool pos = acc[g] > 0.0f;
        float sum = 0, mx = -INFINITY, pre = 0, mn = INFINITY, psum = 0, fb = 0;
        uint32_t ballot = 0, all = 1, active = 0;
        bool seen = false;
        for (uint32_t q = first; q < end; q++) {
            sum += acc[q];
            mx = other[q] > mx ? other[q] : mx;
            if (q < g) pre += acc[q];
            if ((acc[q] > 0.0f) != pos) continue; /* the other side of the if */
            active |= 1u << (q - first);
            if (pos) {
                psum += acc[q];
                ballot |= (other[q] > 0.0f ? 1u : 0u) << (q - first);
                all &= other[q] > -1.0f;
                if (!seen) fb = other[q], seen = true;
            } else {
                mn = acc[q] < mn ? acc[q] : mn;
            }
        }
        float up = g > first ? acc[g - 1] : acc[g];
        float want[4] = {sum, pos ? psum : mx, pre, pos ? up : mn};
        uint32_t fbits;
        memcpy(&fbits, &fb, 4);
        uint32_t want_bits[4] = {pos ? ballot : 0, pos ? all : 0, pos ? fbits : 0, pos ? 0 : active};
        for (int c = 0; c < 4; c++) {
            if (fabsf(out[g * 4 + c] - want[c]) > 1e-5f * (8.0f + fabsf(want[c]))) {
                CHECK(0, "simd_mix %ux%u n %u: thread %u component %d gives %.9g, expected %.9g", groups, tsize, n, g, c,
                      out[g * 4 + c], want[c]);
                g = grid;
                break;
            }
            if (bits[g * 4 + c] != want_bits[c]) {
                CHECK(0, "simd_mix %ux%u n %u: thread %u bits %d give %#x, expected %#x", groups, tsize, n, g, c,
                      bits[g * 4 + c], want_bits[c]);
                g = grid;
                break;
            }
        }
    }
    free(in), free(scale), free(out), free(acc), free(other), free(bits);
}

/* simd_2d over a W x H grid in groups of tx x ty threads (linear index lid = y * tx + x) */
static void run_simd_2d(enigma_device *dev, enigma_pipeline *p, uint32_t W, uint32_t H, uint32_t tx, uint32_t ty) {
    float *in = malloc((size_t)W * H * 4), *out = malloc((size_t)W * H * 4);
    for (size_t i = 0; i < (size_t)W * H; i++) in[i] = rndf(), out[i] = 777.0f;
    slot s[] = {{in, (size_t)W * H * 4}, {out, (size_t)W * H * 4}};
    dispatch(dev, p, s, 2, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){W / tx, H / ty, 1}, (enigma_size3){tx, ty, 1});
    uint32_t nt = tx * ty;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint32_t gx = x / tx * tx, gy = y / ty * ty, lid = (y - gy) * tx + (x - gx), first = lid / 32 * 32;
            uint32_t end = first + 32 < nt ? first + 32 : nt;
            double sum = 0, incl = 0, mag = 0;
            for (uint32_t q = first; q < end; q++) {
                float v = in[(size_t)(gy + q / tx) * W + gx + q % tx];
                sum += v, mag += fabs(v);
                if (q <= lid) incl += 3.0 * v;
            }
            double want = sum * 2.0 + incl;
            if (fabs(out[(size_t)y * W + x] - want) > 1e-5 * (1.0 + 5.0 * mag)) {
                CHECK(0, "simd_2d %ux%u group %ux%u: out[%u][%u] = %.9g, expected %.9g", W, H, tx, ty, y, x,
                      out[(size_t)y * W + x], want);
                y = H;
                break;
            }
        }
    free(in), free(out);
}

/* by_ref: out[2g] = 3 x + (x + 1)(-x), out[2g + 1] = g's index in its group, x = in[g + 1] */
static void run_by_ref(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize) {
    uint32_t n = groups * tsize;
    float *in = malloc(((size_t)n + 1) * 4), *out = malloc((size_t)n * 8);
    for (uint32_t i = 0; i <= n; i++) in[i] = rndf();
    for (uint32_t i = 0; i < 2 * n; i++) out[i] = 777.0f;
    slot s[] = {{in, ((size_t)n + 1) * 4}, {out, (size_t)n * 8}};
    dispatch(dev, p, s, 2, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (uint32_t g = 0; g < n; g++) {
        double x = in[g + 1], want = 3.0 * x + (x + 1.0) * -x;
        if (fabs(out[2 * g] - want) > 1e-5 * (1.0 + fabs(want)) || out[2 * g + 1] != (float)(g % tsize)) {
            CHECK(0, "by_ref %ux%u: thread %u gives %.9g, %g, expected %.9g, %u", groups, tsize, g, out[2 * g],
                  out[2 * g + 1], want, g % tsize);
            break;
        }
    }
    free(in), free(out);
}

/* int_rows over `rows` rows of `cols`, with a mask row per row or none (maybe bound to x) */
static void run_int_rows(enigma_device *dev, enigma_pipeline *p, uint32_t rows, uint32_t cols, uint32_t tsize, bool masked) {
    size_t count = (size_t)rows * cols;
    float *x = malloc(count * 4), *mask = malloc(count * 4), *y = malloc(count * 4);
    for (size_t i = 0; i < count; i++) x[i] = rndf() * 4.0f, mask[i] = rndf(), y[i] = 777.0f;
    struct { int32_t ne00; float scale; } args = {(int32_t)cols, 0.75f};
    slot s[] = {{&args, sizeof args}, {x, count * 4}, {masked ? mask : x, count * 4}, {y, count * 4}};
    dispatch(dev, p, s, 4, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){rows, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (uint32_t r = 0; r < rows; r++) {
        double m = -INFINITY;
        for (uint32_t i = 0; i < cols; i++) {
            double v = (double)x[(size_t)r * cols + i] * 0.75 + (masked ? mask[(size_t)r * cols + i] : 0.0);
            m = v > m ? v : m;
        }
        for (uint32_t i = 0; i < cols; i++) {
            double want = (double)x[(size_t)r * cols + i] * 0.75 + (masked ? mask[(size_t)r * cols + i] : 0.0) - m;
            if (fabs(y[(size_t)r * cols + i] - want) > 1e-5 * (1.0 + fabs(want))) {
                CHECK(0, "int_rows %ux%u tsize %u %s: y[%u][%u] = %.9g, expected %.9g", rows, cols, tsize,
                      masked ? "masked" : "unmasked", r, i, y[(size_t)r * cols + i], want);
                r = rows;
                break;
            }
        }
    }
    free(x), free(mask), free(y);
}

/* mat_vec: y = a x for a rows x cols half matrix, groups of (32, nsg) threads */
static void run_mat_vec(enigma_device *dev, enigma_pipeline *p, int32_t rows, int32_t cols, uint32_t nsg) {
    _Float16 *a = malloc((size_t)rows * cols * 2);
    float *x = malloc((size_t)cols * 4), *y = malloc((size_t)rows * 4);
    for (size_t i = 0; i < (size_t)rows * cols; i++) a[i] = (_Float16)rndf();
    for (int32_t i = 0; i < cols; i++) x[i] = rndf();
    for (int32_t i = 0; i < rows; i++) y[i] = 777.0f;
    slot s[] = {{a, (size_t)rows * cols * 2}, {x, (size_t)cols * 4}, {y, (size_t)rows * 4}, {&rows, 4}, {&cols, 4}};
    dispatch(dev, p, s, 5, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){((uint32_t)rows + 1) / 2, 1, 1},
             (enigma_size3){32, nsg, 1});
    for (int32_t r = 0; r < rows; r++) {
        double want = 0, mag = 0;
        for (int32_t k = 0; k < cols; k++) {
            double t = (double)a[(size_t)r * cols + k] * x[k];
            want += t, mag += fabs(t);
        }
        if (fabs(y[r] - want) > 1e-6 * (mag + 1.0)) {
            CHECK(0, "mat_vec %dx%d nsg %u: y[%d] = %.9g, expected %.9g", rows, cols, nsg, r, y[r], want);
            break;
        }
    }
    free(a), free(x), free(y);
}

/* copy4: out = 3 in for the first cols / 4 * 4 of each row of cols floats, the rest untouched */
static void run_copy4(enigma_device *dev, enigma_pipeline *p, uint32_t rows, int32_t cols, uint32_t tsize) {
    size_t n = (size_t)rows * (size_t)cols;
    float *in = malloc(n * 4), *out = malloc(n * 4);
    for (size_t i = 0; i < n; i++) in[i] = rndf(), out[i] = 777.0f;
    slot s[] = {{in, n * 4}, {out, n * 4}, {&cols, 4}};
    dispatch(dev, p, s, 3, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){rows, 1, 1}, (enigma_size3){tsize, 1, 1});
    for (size_t i = 0; i < n; i++) {
        float want = (int32_t)(i % (size_t)cols) < cols / 4 * 4 ? 3.0f * in[i] : 777.0f;
        if (fabsf(out[i] - want) > 1e-6f * (1.0f + fabsf(want))) {
            CHECK(0, "copy4 %ux%d: out[%zu] = %.9g, expected %.9g", rows, cols, i, out[i], want);
            break;
        }
    }
    free(in), free(out);
}

/* sg_blocks over nblocks 8x8 blocks of a (every third one skipped by its simd_max, blocks
 * from `limit` on left), one group of nsg SIMD groups, 1-D or (32, nsg) */
static void run_sg_blocks(enigma_device *dev, enigma_pipeline *p, int32_t nblocks, int32_t limit, uint32_t nsg, bool two_d) {
    size_t na = (size_t)nblocks * 64, nt = (size_t)nblocks * 32;
    float *a = malloc(na * 4), b[64], *c = malloc(na * 4), *t = malloc(nt * 4);
    for (size_t i = 0; i < na; i++) a[i] = rndf() * 0.85f;
    for (int32_t k = 0; k < nblocks; k += 3) /* its first 32 values below -0.9: skipped */
        for (int i = 0; i < 32; i++) a[(size_t)k * 64 + i] = -0.95f - 0.01f * (float)(rnd() % 4);
    for (int i = 0; i < 64; i++) b[i] = rndf();
    for (size_t i = 0; i < na; i++) c[i] = 777.0f;
    for (size_t i = 0; i < nt; i++) t[i] = 777.0f;
    slot s[] = {{a, na * 4}, {b, sizeof b}, {c, na * 4}, {t, nt * 4}, {&nblocks, 4}, {&limit, 4}};
    enigma_size3 group = two_d ? (enigma_size3){32, nsg, 1} : (enigma_size3){32 * nsg, 1, 1};
    dispatch(dev, p, s, 6, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){1, 1, 1}, group);
    for (int32_t k = 0; k < nblocks; k++) {
        bool done = k < limit && k % 3 != 0;
        for (int r = 0; r < 8; r++)
            for (int col = 0; col < 8; col++) {
                double want = 777.0;
                if (done) {
                    want = 0;
                    for (int i = 0; i < 8; i++) want += (double)a[(size_t)k * 64 + r * 8 + i] * b[i * 8 + col];
                }
                float got = c[(size_t)k * 64 + r * 8 + col];
                if (fabs(got - want) > 1e-5 * (1.0 + fabs(want))) {
                    CHECK(0, "sg_blocks %d blocks, limit %d, nsg %u %s: c[%d][%d][%d] = %.9g, expected %.9g", nblocks, limit,
                          nsg, two_d ? "2-D" : "1-D", k, r, col, got, want);
                    k = nblocks, r = 8;
                    break;
                }
            }
        for (int i = 0; i < 32 && k < nblocks; i++) {
            uint32_t lid = (uint32_t)k % nsg * 32u + (uint32_t)i; /* the thread that ran block k's lane i */
            float pos = two_d ? (float)(lid % 32u * 3u + lid / 32u * 1000u) : (float)(lid * 3u);
            float want = done ? a[(size_t)k * 64 + i] * 2.0f + pos : 777.0f;
            if (t[(size_t)k * 32 + i] != want) {
                CHECK(0, "sg_blocks %d blocks, nsg %u %s: t[%d][%d] = %.9g, expected %.9g", nblocks, nsg,
                      two_d ? "2-D" : "1-D", k, i, t[(size_t)k * 32 + i], want);
                k = nblocks;
                break;
            }
        }
    }
    free(a), free(c), free(t);
}

/* groups x tsize threads of a kernel (in, out): random floats in, 777 out before */
static void run_in_out(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize, float **in, float **out) {
    uint32_t n = groups * tsize;
    *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) (*in)[i] = rndf(), (*out)[i] = 777.0f;
    slot s[] = {{*in, (size_t)n * 4}, {*out, (size_t)n * 4}};
    dispatch(dev, p, s, 2, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1}, (enigma_size3){tsize, 1, 1});
}

/* publish: out = in[the SIMD group's lane 5] + 0.5 in, except that lane 5 of each SIMD
 * group reads its own slot after lane 0 tripled it (1.5 in[5] for it: 3 a / 2) */
static void run_publish(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize) {
    uint32_t n = groups * tsize;
    float *in, *out;
    run_in_out(dev, p, groups, tsize, &in, &out);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lid = i % tsize, slot5 = i - lid + lid / 32 * 32 + 5;
        float a = in[slot5], own = lid % 32 == 5 ? 3.0f * a : in[i];
        float want = a + own * 0.5f;
        if (fabsf(out[i] - want) > 1e-6f * (1.0f + fabsf(want))) {
            CHECK(0, "publish %ux%u: out[%u] = %.9g, expected %.9g", groups, tsize, i, out[i], want);
            break;
        }
    }
    free(in), free(out);
}

/* neighbours: each SIMD group in lock step (a group of n threads, its last SIMD group partial) */
static void run_neighbours(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize) {
    uint32_t n = groups * tsize;
    float *in, *out;
    run_in_out(dev, p, groups, tsize, &in, &out);
    for (uint32_t base = 0; base < n; base += base % tsize + 32 < tsize ? 32 : tsize - base % tsize) {
        uint32_t lanes = tsize - base % tsize < 32 ? tsize - base % tsize : 32;
        double t[32], o[32], x[32];
        for (uint32_t l = 0; l < lanes; l++) t[l] = in[base + l];
        for (uint32_t d = 1; d < 32; d *= 2) { /* every lane's load, then every lane's add */
            for (uint32_t l = 0; l < lanes; l++) o[l] = l >= d ? t[l - d] : 0.0;
            for (uint32_t l = 0; l < lanes; l++) t[l] += o[l];
        }
        for (uint32_t l = 0; l < lanes; l++) o[l] = l > 0 ? t[l - 1] * 0.5 : t[l];
        for (uint32_t l = 0; l < lanes; l++) x[l] = o[l] + 1.0;
        for (uint32_t l = 0; l < lanes; l++) {
            double want = x[l ^ 1u];
            for (int i = 0; i < 4; i++) want += (x[l] + i) * (i + 1);
            float got = out[base + l];
            if (fabs(got - want) > 1e-5 * (1.0 + fabs(want))) {
                CHECK(0, "neighbours %ux%u: out[%u] = %.9g, expected %.9g", groups, tsize, base + l, got, want);
                base = n;
                break;
            }
        }
    }
    free(in), free(out);
}

/* steps: acc and h per thread, from its indices gid, gid + grid, ... in order */
static void run_steps(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t tsize, uint32_t n) {
    uint32_t threads = groups * tsize;
    float *in = malloc((size_t)n * 4), *out = malloc((size_t)threads * 4), *twice = malloc((size_t)n * 4);
    uint32_t *hash = malloc((size_t)threads * 4);
    for (uint32_t i = 0; i < n; i++) in[i] = rndf();
    slot s[] = {{in, (size_t)n * 4}, {out, (size_t)threads * 4}, {hash, (size_t)threads * 4}, {twice, (size_t)n * 4}, {&n, 4}};
    dispatch(dev, p, s, 5, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1}, (enigma_size3){tsize, 1, 1});
    double *acc = calloc(threads, sizeof(double));
    for (uint32_t gid = 0; gid < threads; gid++) {
        uint32_t h = 7u, odd = 0u;
        for (uint32_t i = gid; i < n; i += threads) {
            if (in[i] > 0.25f) h = h * 31u + i;
            else acc[gid] += (double)in[i] * (double)(i % 5u);
            for (uint32_t k = 0; k < (i & 3u); k++) odd += k;
        }
        if (hash[gid] != h + odd) {
            CHECK(0, "steps %u x %u, n %u: hash[%u] = %u, expected %u", groups, tsize, n, gid, hash[gid], h + odd);
            break;
        }
    }
    for (uint32_t gid = 0; gid < threads; gid++) {
        uint32_t g = gid / tsize, lid = gid % tsize;
        double want = acc[gid] + acc[g * tsize + tsize - 1u - lid];
        if (fabs(out[gid] - want) > 1e-4 * (1.0 + fabs(want)) + 1e-5 * n / threads) {
            CHECK(0, "steps %u x %u, n %u: out[%u] = %.7g, expected %.7g", groups, tsize, n, gid, out[gid], want);
            break;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (twice[i] != in[i] * 2.0f) {
            CHECK(0, "steps %u x %u, n %u: twice[%u] = %g, expected %g", groups, tsize, n, i, twice[i], in[i] * 2.0f);
            break;
        }
    free(in), free(out), free(hash), free(twice), free(acc);
}

static enigma_pipeline *pipeline(enigma_library *lib, const char *name) {
    enigma_pipeline *p = NULL;
    OK(enigma_pipeline_create(lib, name, &p));
    return p;
}

/* Checked mode in wide mode: an index whose form is lid + 0xFFFFFFE0 wraps as a uint in
 * the group's second SIMD group (to lid - 32: in bounds) and not in its first (out of
 * bounds). The hook may take the threads' addresses as consecutive from the first one only
 * where no index wraps: else the second SIMD group's loads are lost (read as 0) and counted
 * out of bounds. */
static const char *checked_source =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void wrap_checked(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                         uint lid [[thread_position_in_threadgroup]], uint gid [[thread_position_in_grid]]) {\n"
    "    threadgroup float t[64];\n"
    "    t[lid] = in[lid + 0xFFFFFFE0u];\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[gid] = t[lid] + 1.0f;\n"
    "}\n";

static void run_checked_wrap(enigma_device *dev) {
    enigma_compile_options checked = {.checked = true};
    enigma_library *lib = NULL;
    OK(enigma_library_create_from_source(dev, checked_source, strlen(checked_source), "wrap_checked.metal", &checked,
                                         &lib));
    char *c = NULL;
    if (lib) OK(enigma_library_emit(lib, "c", &c));
    if (c) {
        CHECK(kernel_is_wide(c, 0), "wrap_checked is not in wide mode");
        /* t[lid] (twice), out[gid] and in[lid + 0xFFFFFFE0u] (whose test fails at run time) have forms */
        CHECK(kernel_count(c, 0, "known from the index's form") == 4, "wrap_checked: %d accesses known by their form, expected 4",
              kernel_count(c, 0, "known from the index's form"));
    }
    enigma_free(c);
    enigma_pipeline *p = lib ? pipeline(lib, "wrap_checked") : NULL;
    const uint32_t groups = 3, threads = 64;
    float in[64], out[192];
    for (int i = 0; i < 64; i++) in[i] = rndf();
    for (int i = 0; i < 192; i++) out[i] = -7.0f;
    enigma_buffer *bin = NULL, *bout = NULL;
    enigma_command *cmd = NULL;
    if (p) {
        OK(enigma_buffer_create_with_data(dev, in, sizeof in, &bin));
        OK(enigma_buffer_create_with_data(dev, out, sizeof out, &bout));
        OK(enigma_command_create(p, &cmd));
    }
    if (cmd) {
        OK(enigma_command_set_buffer(cmd, 0, bin, 0));
        OK(enigma_command_set_buffer(cmd, 1, bout, 0));
        enigma_status st = enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1},
                                                   (enigma_size3){threads, 1, 1});
        CHECK(st == ENIGMA_ERROR_CHECK_FAILED, "wrap_checked: dispatch gave %d, expected checked mode's problems", (int)st);
        OK(enigma_buffer_read(bout, 0, out, sizeof out));
        /* lanes 0..31 read out of bounds (0 in checked mode), lanes 32..63 in[lid - 32] */
        for (uint32_t gid = 0; gid < groups * threads; gid++) {
            uint32_t lid = gid % threads;
            float want = (lid < 32 ? 0.0f : in[lid - 32]) + 1.0f;
            if (out[gid] != want) {
                CHECK(0, "wrap_checked: out[%u] = %g, expected %g", gid, out[gid], want);
                break;
            }
        }
        int n = enigma_command_report_count(cmd), oob = 0;
        for (int i = 0; i < n; i++) {
            enigma_check_report r;
            OK(enigma_command_get_report(cmd, i, &r));
            oob += r.kind == ENIGMA_CHECK_OUT_OF_BOUNDS && r.line == 6;
        }
        CHECK(n == 1 && oob == 1, "wrap_checked: %d reports, expected one out-of-bounds at line 6:\n%s", n,
              enigma_command_reports_text(cmd));
    }
    enigma_command_destroy(cmd);
    enigma_buffer_destroy(bin);
    enigma_buffer_destroy(bout);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
}

static float half_round(float x) { return (float)(_Float16)x; }

/* M x N x K with groups of (tx, ty) threads: nsg = tx * ty / 32 SIMD groups side by side */
static void run_mma(enigma_device *dev, enigma_pipeline *p, uint32_t M, uint32_t N, uint32_t K, uint32_t tx,
                    uint32_t ty) {
    uint32_t nt = tx * ty, nsg = (nt + 31) / 32, gx = N / 8 / nsg, gy = M / 8;
    _Float16 *A = malloc((size_t)M * K * 2), *Bt = malloc((size_t)N * K * 2);
    float *C = malloc((size_t)M * N * 4), *D = malloc((size_t)M * N * 4);
    uint32_t *E = malloc((size_t)gx * gy * nt * 4);
    for (size_t i = 0; i < (size_t)M * K; i++) A[i] = (_Float16)rndf();
    for (size_t i = 0; i < (size_t)N * K; i++) Bt[i] = (_Float16)rndf();
    for (size_t i = 0; i < (size_t)M * N; i++) C[i] = 777.0f, D[i] = 777.0f;
    for (size_t i = 0; i < (size_t)gx * gy * nt; i++) E[i] = 12345u;
    slot s[] = {{A, (size_t)M * K * 2}, {Bt, (size_t)N * K * 2}, {C, (size_t)M * N * 4}, {D, (size_t)M * N * 4},
                {E, (size_t)gx * gy * nt * 4}, {&K, 4}, {&N, 4}};
    dispatch(dev, p, s, 7, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){gx, gy, 1}, (enigma_size3){tx, ty, 1});
    /* p = a x b rounded to half, for each 8x8 block of the last K step: the products of
     * halves are exact in float, summed by fused multiply-adds in k order (the rounding
     * of p to half is what D tests, so p must be the same float sum before it) */
    float *P = malloc((size_t)M * N * 4);
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            float t = 0.0f;
            for (uint32_t k = K - 8; k < K; k++) t = fmaf((float)A[(size_t)i * K + k], (float)Bt[(size_t)j * K + k], t);
            P[(size_t)i * N + j] = half_round(t);
        }
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            double want = 0.5, mag = 0.5, q = 1.0, qmag = 1.0;
            for (uint32_t k = 0; k < K; k++) {
                double t = (double)A[(size_t)i * K + k] * (double)Bt[(size_t)j * K + k];
                want += t, mag += fabs(t);
            }
            for (uint32_t k = 0; k < 8; k++) { /* p's row i times b's column j */
                double t = (double)P[(size_t)i * N + j / 8 * 8 + k] * (double)Bt[(size_t)j * K + K - 8 + k];
                q += t, qmag += fabs(t);
            }
            if (fabs(C[(size_t)i * N + j] - want) > 1e-6 * mag) {
                CHECK(0, "mma %ux%ux%u group %ux%u: C[%u][%u] = %.9g, expected %.9g", M, N, K, tx, ty, i, j,
                      C[(size_t)i * N + j], want);
                i = M;
                break;
            }
            if (fabs(D[(size_t)i * N + j] - q) > 1e-6 * qmag + 1e-30) {
                CHECK(0, "mma %ux%ux%u group %ux%u: D[%u][%u] = %.9g, expected %.9g", M, N, K, tx, ty, i, j,
                      D[(size_t)i * N + j], q);
                i = M;
                break;
            }
        }
    for (size_t g = 0; g < (size_t)gx * gy; g++)
        for (uint32_t t = 0; t < nt; t++)
            if (E[g * nt + t] != t / 32 * 100 + t % 32) {
                CHECK(0, "mma group %ux%u: thread %u of group %zu gives %u, expected %u", tx, ty, t, g, E[g * nt + t],
                      t / 32 * 100 + t % 32);
                g = (size_t)gx * gy;
                break;
            }
    free(A), free(Bt), free(C), free(D), free(E), free(P);
}

/* out[y][x] = sum over k < K of B[k][x] + 2 * (sum over k < 4 of B[k][x]), every row y */
static void run_colsum(enigma_device *dev, enigma_pipeline *p, uint32_t N, uint32_t K, uint32_t rows, uint32_t tx,
                       uint32_t ty) {
    float *B = malloc((size_t)K * N * 4), *out = malloc((size_t)rows * N * 4);
    for (size_t i = 0; i < (size_t)K * N; i++) B[i] = rndf();
    slot s[] = {{B, (size_t)K * N * 4}, {out, (size_t)rows * N * 4}, {&K, 4}, {&N, 4}};
    dispatch(dev, p, s, 4, ENIGMA_DISPATCH_THREADS, (enigma_size3){N, rows, 1}, (enigma_size3){tx, ty, 1});
    for (uint32_t y = 0; y < rows; y++)
        for (uint32_t x = 0; x < N; x++) {
            double want = 0, mag = 0;
            for (uint32_t k = 0; k < K; k++) want += B[(size_t)k * N + x], mag += fabs(B[(size_t)k * N + x]);
            for (uint32_t k = 0; k < 4; k++) want += 2.0 * B[(size_t)k * N + x], mag += 2.0 * fabs(B[(size_t)k * N + x]);
            if (fabs(out[(size_t)y * N + x] - want) > 1e-6 * mag) {
                CHECK(0, "colsum %ux%u K %u group %ux%u: out[%u][%u] = %g, expected %g", rows, N, K, tx, ty, y, x,
                      out[(size_t)y * N + x], want);
                y = rows;
                break;
            }
        }
    free(B), free(out);
}

/* mma_pairs on one SIMD group: A 16 x 8 and B 8 x 24 half; C = acc (16 x 24, acc[i][j]
 * filled with 10 i + j), M = a[0] x b[0..1] (8 x 16), W = w[j] (8 x 16, w[j] = (1 + j)(1 +
 * row sums of a[1])) */
static void run_mma_pairs(enigma_device *dev, enigma_pipeline *p) {
    _Float16 A[16 * 8], B[8 * 24];
    float C[16 * 24], M[8 * 16], W[8 * 16];
    for (int i = 0; i < 16 * 8; i++) A[i] = (_Float16)rndf();
    for (int i = 0; i < 8 * 24; i++) B[i] = (_Float16)rndf();
    for (int i = 0; i < 16 * 24; i++) C[i] = 777.0f;
    for (int i = 0; i < 8 * 16; i++) M[i] = W[i] = 777.0f;
    slot s[] = {{A, sizeof A}, {B, sizeof B}, {C, sizeof C}, {M, sizeof M}, {W, sizeof W}};
    dispatch(dev, p, s, 5, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){1, 1, 1}, (enigma_size3){32, 1, 1});
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 24; c++) {
            double want = (r / 8) * 10 + c / 8, mag = fabs(want);
            for (int k = 0; k < 8; k++) {
                double t = (double)A[r * 8 + k] * (double)B[k * 24 + c];
                want += t, mag += fabs(t);
            }
            if (fabs(C[r * 24 + c] - want) > 1e-6 * mag) {
                CHECK(0, "mma_pairs: C[%d][%d] = %.9g, expected %.9g", r, c, C[r * 24 + c], want);
                return;
            }
        }
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 16; c++) {
            double m = 0, mag = 0, rowsum = 1, rowmag = 1;
            for (int k = 0; k < 8; k++) {
                double t = (double)A[r * 8 + k] * (double)B[k * 24 + c];
                m += t, mag += fabs(t);
                rowsum += (double)A[64 + r * 8 + k], rowmag += fabs((double)A[64 + r * 8 + k]);
            }
            double w = (1 + c / 8) * rowsum;
            if (fabs(M[r * 16 + c] - m) > 1e-6 * mag + 1e-30 || fabs(W[r * 16 + c] - w) > 1e-6 * (1 + c / 8) * rowmag) {
                CHECK(0, "mma_pairs: M[%d][%d] = %.9g (expected %.9g), W = %.9g (expected %.9g)", r, c, M[r * 16 + c], m,
                      W[r * 16 + c], w);
                return;
            }
        }
}

/* runs on `groups` groups of `threads` threads with offset `off`: out's first 640 floats
 * of a group are the 16-float rows of its 160 float4s, the next 640 twice the float4s from
 * `off` on as 32-float rows (-2 before them) */
static void run_runs(enigma_device *dev, enigma_pipeline *p, uint32_t groups, uint32_t threads, uint32_t off) {
    size_t n = (size_t)groups * 160 * 4;
    float *src = malloc(n * sizeof(float)), *out = malloc((size_t)groups * 1280 * sizeof(float));
    for (size_t i = 0; i < n; i++) src[i] = rndf();
    for (size_t i = 0; i < (size_t)groups * 1280; i++) out[i] = 777.0f;
    slot s[] = {{src, n * sizeof(float)}, {out, (size_t)groups * 1280 * sizeof(float)}, {&off, sizeof off}};
    dispatch(dev, p, s, 3, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){groups, 1, 1}, (enigma_size3){threads, 1, 1});
    for (uint32_t g = 0; g < groups; g++)
        for (uint32_t i = 0; i < 640; i++) {
            /* both tiles hold the float4s in order: element i is float i of the group's */
            float t = src[g * 640 + i], u = i / 4 >= off ? 2.0f * src[g * 640 + i] : -2.0f;
            if (out[g * 1280 + i] != t || out[g * 1280 + 640 + i] != u) {
                CHECK(0, "runs (%u threads, offset %u): group %u element %u: t %g (expected %g), u %g (expected %g)",
                      threads, off, g, i, out[g * 1280 + i], t, out[g * 1280 + 640 + i], u);
                goto done;
            }
        }
done:
    free(src), free(out);
}

/* one element of a x b + c in float64: a (8 x 8 at a, row length la), b likewise */
static double product_ref(const _Float16 *a, int la, const _Float16 *b, int lb, int r, int col, double c, double *mag) {
    double s = c;
    *mag = fabs(c);
    for (int k = 0; k < 8; k++) {
        double t = (double)a[r * la + k] * (double)b[k * lb + col];
        s += t, *mag += fabs(t);
    }
    return s;
}

/* mma_block on two SIMD groups: per SIMD group g, a[i] = A[g][i] (8 x 8 each, stacked),
 * b[j] = columns 8j.. of B[g] (8 x 32); C = acc (32 x 32), D = a[2 + i] x b[j] (16 x 32),
 * E = a[i] x b[2 + j] + (i - j) (24 x 16), F = f[0..11] and H = h[0..1] (8 x 8 each) */
static void run_mma_block(enigma_device *dev, enigma_pipeline *p) {
    _Float16 A[512], B[512];
    float C[2048], D[1024], E[768], F[1536], H[256];
    for (int i = 0; i < 512; i++) A[i] = (_Float16)rndf(), B[i] = (_Float16)rndf();
    for (int i = 0; i < 2048; i++) C[i] = 777.0f;
    for (int i = 0; i < 1024; i++) D[i] = 777.0f;
    for (int i = 0; i < 768; i++) E[i] = 777.0f;
    for (int i = 0; i < 1536; i++) F[i] = 777.0f;
    for (int i = 0; i < 256; i++) H[i] = 777.0f;
    slot s[] = {{A, sizeof A}, {B, sizeof B}, {C, sizeof C}, {D, sizeof D}, {E, sizeof E}, {F, sizeof F}, {H, sizeof H}};
    dispatch(dev, p, s, 7, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){1, 1, 1}, (enigma_size3){64, 1, 1});
    for (int g = 0; g < 2; g++) {
        const _Float16 *a = A + g * 256, *b = B + g * 256;
        for (int r = 0; r < 32; r++)
            for (int col = 0; col < 32; col++) {
                int i = r / 8, j = col / 8;
                double mag, want = product_ref(a + i * 64, 8, b, 32, r % 8, col, (i * 4 + j) * 0.25, &mag);
                float got = C[g * 1024 + r * 32 + col];
                if (fabs(got - want) > 1e-6 * mag) {
                    CHECK(0, "mma_block: C (SIMD group %d) [%d][%d] = %.9g, expected %.9g", g, r, col, got, want);
                    return;
                }
                if (r >= 16) continue;
                want = product_ref(a + (2 + i) * 64, 8, b, 32, r % 8, col, 0.0, &mag);
                got = D[g * 512 + r * 32 + col];
                if (fabs(got - want) > 1e-6 * mag + 1e-30) {
                    CHECK(0, "mma_block: D (SIMD group %d) [%d][%d] = %.9g, expected %.9g", g, r, col, got, want);
                    return;
                }
                if (r >= 24 || col >= 16) continue;
            }
        for (int r = 0; r < 24; r++)
            for (int col = 0; col < 16; col++) {
                int i = r / 8, j = col / 8;
                double mag, want = product_ref(a + i * 64, 8, b + 16, 32, r % 8, col, i - j, &mag);
                float got = E[g * 384 + r * 16 + col];
                if (fabs(got - want) > 1e-6 * mag + 1e-30) {
                    CHECK(0, "mma_block: E (SIMD group %d) [%d][%d] = %.9g, expected %.9g", g, r, col, got, want);
                    return;
                }
            }
        /* f[i] = a[i / 4] x b[i % 4] + i / 2; h[q] = 1 + a[0] x b[q] + a[1] x b[q] */
        for (int i = 0; i < 12; i++)
            for (int e = 0; e < 64; e++) {
                double mag, want = product_ref(a + (i / 4) * 64, 8, b + (i % 4) * 8, 32, e / 8, e % 8, i * 0.5, &mag);
                float got = F[g * 768 + i * 64 + e];
                if (fabs(got - want) > 1e-6 * mag + 1e-30) {
                    CHECK(0, "mma_block: f[%d] (SIMD group %d) element %d = %.9g, expected %.9g", i, g, e, got, want);
                    return;
                }
            }
        for (int q = 0; q < 2; q++)
            for (int e = 0; e < 64; e++) {
                double mag0, mag1;
                double want = product_ref(a, 8, b + q * 8, 32, e / 8, e % 8, 1.0, &mag0) +
                              product_ref(a + 64, 8, b + q * 8, 32, e / 8, e % 8, 0.0, &mag1);
                float got = H[g * 128 + q * 64 + e];
                if (fabs(got - want) > 1e-6 * (mag0 + mag1)) {
                    CHECK(0, "mma_block: h[%d] (SIMD group %d) element %d = %.9g, expected %.9g", q, g, e, got, want);
                    return;
                }
            }
    }
}

int main(void) {
    rnd_seed_from_clock();
    enigma_device *dev = NULL;
    OK(enigma_device_open("cpu", &dev));
    if (!dev) return 1;
    check_emitted(dev);
    enigma_library *lib = NULL;
    if (enigma_library_create_from_source(dev, source, strlen(source), "wide.metal", NULL, &lib) != ENIGMA_OK) {
        fprintf(stderr, "%s\n", lib ? enigma_library_diagnostics_text(lib) : enigma_last_error());
        return 1;
    }
    enigma_pipeline *tree = pipeline(lib, "tree"), *bounds = pipeline(lib, "bounds"), *wrap = pipeline(lib, "wrap"),
                    *rows = pipeline(lib, "rows"), *tiled = pipeline(lib, "tiled"), *diverge = pipeline(lib, "diverge");
    /* whole groups, an edge group (dispatch by threads), sizes that are not powers of 2 */
    static const uint32_t tree_shapes[][2] = {{256 * 40, 256}, {1024 * 3 + 77, 1024}, {64 * 5 + 1, 64}, {300, 96}, {33, 32}};
    for (size_t i = 0; tree && i < sizeof tree_shapes / sizeof tree_shapes[0]; i++)
        run_tree(dev, tree, tree_shapes[i][0], tree_shapes[i][1]);
    static const uint32_t us[] = {0, 5, 63, 64, 200, 1023, 0x7FFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (size_t i = 0; bounds && i < sizeof us / sizeof us[0]; i++) {
        run_bounds(dev, bounds, us[i], 64);
        run_bounds(dev, bounds, us[i], 200);
    }
    if (wrap) {
        run_wrap(dev, wrap, 64);
        run_wrap(dev, wrap, 1000);
    }
    /* {rows, cols, start, threads}: cols a multiple of the group, not one, shorter than it,
     * and a start offset */
    static const uint32_t row_shapes[][4] = {{6, 4096, 0, 256}, {5, 1000, 0, 256}, {4, 100, 0, 128},
                                             {3, 777, 5, 64},   {2, 64, 0, 1024}, {3, 4099, 3, 512},
                                             {3, 255, 0, 64},   {3, 260, 5, 64}}; /* the last step ends at cols */
    for (size_t i = 0; rows && i < sizeof row_shapes / sizeof row_shapes[0]; i++)
        run_rows(dev, rows, row_shapes[i][0], row_shapes[i][1], row_shapes[i][2], row_shapes[i][3]);
    /* {M, N, K, group x, group y}: square groups (blocks of 8 rows interleaved), 12 rows (a
     * block and 4 rows left), rows of 4 (none in a block), 3 rows (odd), 1-D */
    static const uint32_t tiled_shapes[][5] = {{64, 64, 64, 16, 16}, {48, 40, 24, 8, 4}, {24, 30, 16, 6, 3},
                                               {8, 64, 32, 32, 1},   {40, 24, 8, 8, 8},   {48, 48, 24, 8, 12}};
    for (size_t i = 0; tiled && i < sizeof tiled_shapes / sizeof tiled_shapes[0]; i++)
        run_tiled(dev, tiled, tiled_shapes[i][0], tiled_shapes[i][1], tiled_shapes[i][2], tiled_shapes[i][3],
                  tiled_shapes[i][4]);
    enigma_pipeline *le = pipeline(lib, "strided_le");
    if (le) {
        run_strided_le(dev, le, 2, 64, 64 * 9 - 1); /* every thread to the end: the unmasked step */
        run_strided_le(dev, le, 2, 64, 1000);
        run_strided_le(dev, le, 1, 256, 100);
    }
    enigma_pipeline_destroy(le);
    if (diverge) {
        run_diverge(dev, diverge, 3, 256);
        run_diverge(dev, diverge, 2, 100);
    }
    enigma_pipeline *mma = pipeline(lib, "mma");
    /* {M, N, K, group x, group y}: 1, 2 and 3 SIMD groups (staging loops of 2, 1 and 1
     * steps), a 2-D group of two rows of 32, K of one step */
    static const uint32_t mma_shapes[][5] = {{16, 32, 24, 32, 1}, {24, 32, 40, 64, 1}, {8, 48, 16, 96, 1},
                                             {16, 32, 32, 32, 2}, {8, 16, 8, 64, 1}};
    for (size_t i = 0; mma && i < sizeof mma_shapes / sizeof mma_shapes[0]; i++)
        run_mma(dev, mma, mma_shapes[i][0], mma_shapes[i][1], mma_shapes[i][2], mma_shapes[i][3], mma_shapes[i][4]);
    enigma_pipeline_destroy(mma);
    enigma_pipeline *mma_pairs = pipeline(lib, "mma_pairs");
    for (int i = 0; mma_pairs && i < 3; i++) run_mma_pairs(dev, mma_pairs); /* fresh inputs each time */
    enigma_pipeline_destroy(mma_pairs);
    enigma_pipeline *runs = pipeline(lib, "runs");
    /* {groups, threads, offset}: runs of 4 and 8 (64 threads), of 4 only (36: 36 % 8 != 0),
     * none (30), an offset that breaks the runs of 8 (3) and one that keeps them (8) */
    static const uint32_t runs_shapes[][3] = {{3, 64, 0}, {2, 36, 0}, {2, 30, 0}, {2, 64, 3}, {2, 64, 8}, {1, 128, 5}};
    for (size_t i = 0; runs && i < sizeof runs_shapes / sizeof runs_shapes[0]; i++)
        run_runs(dev, runs, runs_shapes[i][0], runs_shapes[i][1], runs_shapes[i][2]);
    enigma_pipeline_destroy(runs);
    enigma_pipeline *mma_block = pipeline(lib, "mma_block");
    for (int i = 0; mma_block && i < 3; i++) run_mma_block(dev, mma_block);
    enigma_pipeline_destroy(mma_block);
    enigma_pipeline *colsum = pipeline(lib, "colsum");
    if (colsum) {
        run_colsum(dev, colsum, 64, 7, 16, 16, 16); /* eight rows at a time */
        run_colsum(dev, colsum, 96, 5, 6, 32, 3);
    }
    enigma_pipeline_destroy(colsum);
    enigma_pipeline *simd_mix = pipeline(lib, "simd_mix"), *simd_2d = pipeline(lib, "simd_2d");
    if (simd_mix) {
        run_simd_mix(dev, simd_mix, 2, 256, 256 * 2 * 7 + 300); /* some threads one step more */
        run_simd_mix(dev, simd_mix, 3, 100, 3000);              /* a partial SIMD group of 4 */
        run_simd_mix(dev, simd_mix, 1, 1024, 1024 * 3);
        run_simd_mix(dev, simd_mix, 4, 40, 50); /* most threads never in the loop */
    }
    if (simd_2d) {
        run_simd_2d(dev, simd_2d, 48, 20, 12, 5); /* 60 threads: SIMD groups of 32 and 28 */
        run_simd_2d(dev, simd_2d, 64, 16, 16, 8);
    }
    enigma_pipeline_destroy(simd_mix), enigma_pipeline_destroy(simd_2d);
    enigma_pipeline *by_ref = pipeline(lib, "by_ref");
    if (by_ref) {
        run_by_ref(dev, by_ref, 3, 64);
        run_by_ref(dev, by_ref, 2, 100);
    }
    enigma_pipeline_destroy(by_ref);
    enigma_pipeline *int_rows = pipeline(lib, "int_rows");
    /* {rows, cols, threads}: one SIMD group, several, a partial one; rows shorter than a group */
    static const uint32_t int_rows_shapes[][3] = {{5, 1000, 32}, {4, 4096, 256}, {3, 777, 96}, {3, 40, 64}};
    for (size_t i = 0; int_rows && i < sizeof int_rows_shapes / sizeof int_rows_shapes[0]; i++)
        for (int masked = 0; masked < 2; masked++)
            run_int_rows(dev, int_rows, int_rows_shapes[i][0], int_rows_shapes[i][1], int_rows_shapes[i][2], masked);
    enigma_pipeline_destroy(int_rows);
    enigma_pipeline *mat_vec = pipeline(lib, "mat_vec");
    /* {rows, cols, nsg}: an odd row count (the last group's second row is past the end),
     * columns not a multiple of 32 (the tail loop), one SIMD group and several */
    static const int32_t mat_vec_shapes[][3] = {{37, 301, 4}, {64, 1024, 4}, {5, 96, 1}, {9, 2080, 3}};
    for (size_t i = 0; mat_vec && i < sizeof mat_vec_shapes / sizeof mat_vec_shapes[0]; i++)
        run_mat_vec(dev, mat_vec, mat_vec_shapes[i][0], mat_vec_shapes[i][1], (uint32_t)mat_vec_shapes[i][2]);
    enigma_pipeline_destroy(mat_vec);
    enigma_pipeline *copy4 = pipeline(lib, "copy4");
    if (copy4) {
        run_copy4(dev, copy4, 6, 70, 128); /* rows 280 bytes apart: every other one 8 bytes off 16 */
        run_copy4(dev, copy4, 5, 33, 64);
    }
    enigma_pipeline_destroy(copy4);
    enigma_pipeline *sg_blocks = pipeline(lib, "sg_blocks");
    for (int two_d = 0; sg_blocks && two_d < 2; two_d++) {
        run_sg_blocks(dev, sg_blocks, 20, 20, 4, two_d);
        run_sg_blocks(dev, sg_blocks, 23, 17, 3, two_d);
        run_sg_blocks(dev, sg_blocks, 7, 7, 1, two_d);
    }
    enigma_pipeline_destroy(sg_blocks);
    enigma_pipeline *publish = pipeline(lib, "publish");
    if (publish) {
        run_publish(dev, publish, 3, 128);
        run_publish(dev, publish, 2, 64);
    }
    enigma_pipeline_destroy(publish);
    enigma_pipeline *wrap_rows = pipeline(lib, "wrap_rows");
    for (uint32_t shape = 0; wrap_rows && shape < 2; shape++) {
        uint32_t tx = shape ? 16 : 8, ty = shape ? 16 : 12;
        run_wrap_rows(dev, wrap_rows, 0, 16, tx, ty);              /* no row wraps */
        run_wrap_rows(dev, wrap_rows, 5u * 48u + 6u, 16, tx, ty);  /* row 5 wraps at x = 6 (k0 = 0) */
        run_wrap_rows(dev, wrap_rows, 3u * 48u + 2u, 9, tx, ty);   /* row 3 at x = 2; the subtraction's rows move */
    }
    enigma_pipeline_destroy(wrap_rows);
    run_checked_wrap(dev);
    enigma_pipeline *steps = pipeline(lib, "steps");
    /* {groups, threads, n}: 9 steps and part of a tenth (two passes of 4, a step, a partial
     * one), fewer than 4, exactly 8, a group not a multiple of 32 */
    static const uint32_t step_shapes[][3] = {{3, 64, 192 * 9 + 50}, {2, 128, 256 * 3}, {2, 128, 256 * 8}, {3, 48, 144 * 13 + 1}};
    for (size_t i = 0; steps && i < sizeof step_shapes / sizeof step_shapes[0]; i++)
        run_steps(dev, steps, step_shapes[i][0], step_shapes[i][1], step_shapes[i][2]);
    enigma_pipeline_destroy(steps);
    enigma_pipeline *neighbours = pipeline(lib, "neighbours");
    if (neighbours) {
        run_neighbours(dev, neighbours, 3, 96);
        run_neighbours(dev, neighbours, 2, 80); /* a last SIMD group of 16 */
    }
    enigma_pipeline_destroy(neighbours);
    enigma_pipeline_destroy(tree), enigma_pipeline_destroy(bounds), enigma_pipeline_destroy(wrap);
    enigma_pipeline_destroy(rows), enigma_pipeline_destroy(tiled), enigma_pipeline_destroy(diverge);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
