/* test_cpu_kernels.c — the cpu backend on kernels built as IR by hand, each checked
 * against a reference computed here in double precision from fresh random inputs:
 * vector add, a grid-stride simd_sum, a threadgroup-memory tree reduction with a barrier
 * in a loop, divergent simd_sum, threads that return before a barrier, shuffle_up out of
 * range (and its relatives), dispatch by threads with edge threadgroups in 2D, a partial
 * last SIMD group, atomics contended across threadgroups.
 * Run with no argument for all, or name cases. */
#include "kb.h"

#include <time.h>

/* out[i] = a[i] + b[i] */
static void vector_add(void) {
    kb_begin("vector_add");
    ir_var *a = param_buffer("a", T_F32, 0), *b = param_buffer("b", T_F32, 1);
    ir_var *out = param_buffer("out", T_F32, 2);
    ir_var *tid = param_attr("tid", T_U32, IR_ATTR_THREAD_POSITION_IN_GRID);
    set(AT(V(out), V(tid)), BIN(IR_OP_ADD, AT(V(a), V(tid)), AT(V(b), V(tid))));
    en_program *p = build();
    if (p) {
        enum { N = 64 * 1000 };
        float *ha, *hb, *ho;
        void *A = buf_new(N * 4, (void **)&ha), *B = buf_new(N * 4, (void **)&hb), *O = buf_new(N * 4, (void **)&ho);
        for (int i = 0; i < N; i++) ha[i] = rndf(), hb[i] = rndf();
        en_launch L = launch3(false, N / 64, 1, 1, 64, 1, 1);
        bind(&L, 0, A, N * 4), bind(&L, 1, B, N * 4), bind(&L, 2, O, N * 4);
        CHECK(run(p, &L), "vector_add ran");
        int bad = 0;
        for (int i = 0; i < N; i++) bad += ho[i] != (float)((double)ha[i] + hb[i]);
        CHECK(bad == 0, "vector_add: %d wrong", bad);
        BE->buffer_free(&DEV, A), BE->buffer_free(&DEV, B), BE->buffer_free(&DEV, O);
        BE->program_free(&DEV, p);
    }
    kb_end();
}

/* acc = sum over a grid stride; s = simd_sum(acc); lane 0 writes partial[tid / 32] */
static void grid_stride_simd_sum(void) {
    kb_begin("grid_sum");
    ir_var *in = param_buffer("in", T_F32, 0), *partial = param_buffer("partial", T_F32, 1);
    ir_var *n = param_buffer("n", T_U32, 2);
    ir_var *tid = param_attr("tid", T_U32, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *grid = param_attr("grid", T_U32, IR_ATTR_THREADS_PER_GRID);
    ir_var *lane = param_attr("lane", T_U32, IR_ATTR_THREAD_INDEX_IN_SIMDGROUP);
    ir_var *acc = local("acc", T_F32, F(0));
    ir_var *i = local("i", T_U32, V(tid));
    saved_block lp = for_begin(BIN(IR_OP_LT, V(i), AT(V(n), U(0))));
    set(V(acc), BIN(IR_OP_ADD, V(acc), AT(V(in), V(i))));
    loop_latch(lp);
    set(V(i), BIN(IR_OP_ADD, V(i), V(grid)));
    loop_end(lp);
    ir_var *s = intrinsic(IR_I_SIMD_SUM, T_F32, V(acc), NULL);
    saved_block c = if_begin(BIN(IR_OP_EQ, V(lane), U(0)));
    set(AT(V(partial), BIN(IR_OP_DIV, V(tid), U(32))), V(s));
    if_end(c);
    en_program *p = build();
    if (p) {
        const uint32_t N = 100003, groups = 6, size = 128, threads = groups * size;
        float *hin, *hpart;
        uint32_t *hn;
        void *IN = buf_new(N * 4, (void **)&hin), *P = buf_new(threads / 32 * 4, (void **)&hpart);
        void *NB = buf_new(4, (void **)&hn);
        *hn = N;
        for (uint32_t k = 0; k < N; k++) hin[k] = rndf();
        en_launch L = launch3(false, groups, 1, 1, size, 1, 1);
        bind(&L, 0, IN, N * 4), bind(&L, 1, P, threads / 32 * 4), bind(&L, 2, NB, 4);
        CHECK(run(p, &L), "grid_sum ran");
        int bad = 0;
        for (uint32_t sg = 0; sg < threads / 32; sg++) {
            double ref = 0, mag = 0;
            for (uint32_t t = sg * 32; t < sg * 32 + 32; t++)
                for (uint32_t k = t; k < N; k += threads) ref += hin[k], mag += fabs(hin[k]);
            if (fabs(hpart[sg] - ref) > 1e-5 * mag + 1e-6) {
                if (bad++ < 3) fprintf(stderr, "  simd group %u: %g, expected %g\n", sg, hpart[sg], ref);
            }
        }
        CHECK(bad == 0, "grid_sum: %d simd groups wrong", bad);
        BE->buffer_free(&DEV, IN), BE->buffer_free(&DEV, P), BE->buffer_free(&DEV, NB);
        BE->program_free(&DEV, p);
    }
    kb_end();
}

/* seed 003's corrected kernel: ldata[lid] = input[gid]; barrier; tree reduction with a
 * barrier in the loop; lid 0 adds into an atomic output */
static void barrier_tree_reduction(void) {
    kb_begin("reduce");
    ir_var *input = param_buffer("input", T_I32, 0);
    ir_var *output = param_buffer("output", ir_type_atomic(K.m, T_I32), 1);
    ir_var *ldata = param_tg("ldata", T_I32, 0);
    ir_var *gid = param_attr("gid", T_U32, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *lid = param_attr("lid", T_U32, IR_ATTR_THREAD_POSITION_IN_THREADGROUP);
    ir_var *lsize = param_attr("lsize", T_U32, IR_ATTR_THREADS_PER_THREADGROUP);
    ir_var *val = local("val", T_I32, AT(V(input), V(gid)));
    set(AT(V(ldata), V(lid)), V(val));
    barrier();
    ir_var *active = local("active_threads", T_U32, BIN(IR_OP_DIV, V(lsize), U(2)));
    saved_block lp = for_begin(BIN(IR_OP_GT, V(active), U(0)));
    saved_block c = if_begin(BIN(IR_OP_LT, V(lid), V(active)));
    set(V(val), BIN(IR_OP_ADD, V(val), AT(V(ldata), BIN(IR_OP_ADD, V(lid), V(active)))));
    set(AT(V(ldata), V(lid)), V(val));
    if_end(c);
    barrier();
    loop_latch(lp);
    set(V(active), BIN(IR_OP_DIV, V(active), U(2)));
    loop_end(lp);
    saved_block z = if_begin(BIN(IR_OP_EQ, V(lid), U(0)));
    intrinsic(IR_I_ATOMIC_FETCH_ADD, NULL, V(output), V(val));
    if_end(z);
    en_program *p = build();
    if (p) {
        const uint32_t groups = 37, size = 256, N = groups * size;
        int32_t *hin, *hout;
        void *IN = buf_new(N * 4, (void **)&hin), *OUT = buf_new(4, (void **)&hout);
        int64_t ref = 0;
        for (uint32_t k = 0; k < N; k++) hin[k] = (int32_t)(rnd() % 2001) - 1000, ref += hin[k];
        en_launch L = launch3(false, groups, 1, 1, size, 1, 1);
        bind(&L, 0, IN, N * 4), bind(&L, 1, OUT, 4);
        L.threadgroup_memory[0] = size * 4;
        CHECK(run(p, &L), "reduce ran");
        CHECK(*hout == ref, "reduce: %d, expected %lld", *hout, (long long)ref);
        BE->buffer_free(&DEV, IN), BE->buffer_free(&DEV, OUT);
        BE->program_free(&DEV, p);
    }
    kb_end();
}

/* divergent simd functions: lanes with lane % 3 == 0 sum their values; seed 004's
 * `if (simd_id == 0 && simd_lane < 4) total = simd_sum(partials[simd_lane])` */
static void divergent_simd_sum(void) {
    kb_begin("divergent");
    ir_var *in = param_buffer("in", T_F32, 0), *out = param_buffer("out", T_F32, 1);
    ir_var *out2 = param_buffer("out2", T_F32, 2);
    ir_var *tid = param_attr("tid", T_U32, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *lane = param_attr("lane", T_U32, IR_ATTR_THREAD_INDEX_IN_SIMDGROUP);
    ir_var *sgid = param_attr("sgid", T_U32, IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP);
    ir_var *x = local("x", T_F32, AT(V(in), V(tid)));
    ir_var *r = local("r", T_F32, F(-1));
    saved_block c = if_begin(BIN(IR_OP_EQ, BIN(IR_OP_REM, V(lane), U(3)), U(0)));
    ir_var *s = intrinsic(IR_I_SIMD_SUM, T_F32, V(x), NULL);
    set(V(r), V(s));
    if_else(c);
    ir_var *e = intrinsic(IR_I_SIMD_PREFIX_EXCLUSIVE_SUM, T_F32, V(x), NULL);
    set(V(r), V(e));
    if_end(c);
    set(AT(V(out), V(tid)), V(r));
    ir_var *total = local("total", T_F32, F(-2));
    saved_block d = if_begin(BIN(IR_OP_LOGAND, BIN(IR_OP_EQ, V(sgid), U(0)), BIN(IR_OP_LT, V(lane), U(4))));
    ir_var *t = intrinsic(IR_I_SIMD_SUM, T_F32, V(x), NULL);
    set(V(total), V(t));
    if_end(d);
    set(AT(V(out2), V(tid)), V(total));
    en_program *p = build();
    if (p) {
        const uint32_t groups = 3, size = 96, N = groups * size;
        float *hin, *hout, *hout2;
        void *IN = buf_new(N * 4, (void **)&hin), *OUT = buf_new(N * 4, (void **)&hout);
        void *OUT2 = buf_new(N * 4, (void **)&hout2);
        for (uint32_t k = 0; k < N; k++) hin[k] = rndf();
        en_launch L = launch3(false, groups, 1, 1, size, 1, 1);
        bind(&L, 0, IN, N * 4), bind(&L, 1, OUT, N * 4), bind(&L, 2, OUT2, N * 4);
        CHECK(run(p, &L), "divergent ran");
        int bad = 0;
        for (uint32_t k = 0; k < N; k++) {
            uint32_t base = k / 32 * 32, l = k % 32;
            double ref = 0;
            if (l % 3 == 0) {
                for (uint32_t j = 0; j < 32; j += 3) ref += hin[base + j];
            } else {
                for (uint32_t j = 0; j < l; j++)
                    if (j % 3 != 0) ref += hin[base + j];
            }
            if (fabs(hout[k] - ref) > 1e-5) {
                if (bad++ < 3) fprintf(stderr, "  thread %u: %g, expected %g\n", k, hout[k], ref);
            }
            double ref2 = -2;
            if ((k % size) / 32 == 0 && l < 4) ref2 = (double)hin[base] + hin[base + 1] + hin[base + 2] + hin[base + 3];
            if (fabs(hout2[k] - ref2) > 1e-5) {
                if (bad++ < 3) fprintf(stderr, "  thread %u total: %g, expected %g\n", k, hout2[k], ref2);
            }
        }
        CHECK(bad == 0, "divergent: %d wrong", bad);
        BE->buffer_free(&DEV, IN), BE->buffer_free(&DEV, OUT), BE->buffer_free(&DEV, OUT2);
        BE->program_free(&DEV, p);
    }
    kb_end();
}

/* if (tid >= count) return; tile[lid] = in[tid]; barrier; out[tid] = tile[lid] + tile[lid-1] */
static void early_return_barrier(void) {
    kb_begin("early_return");
    ir_var *in = param_buffer("in", T_F32, 0), *out = param_buffer("out", T_F32, 1);
    ir_var *count = param_buffer("count", T_U32, 2);
    ir_var *tid = param_attr("tid", T_U32, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *lid = param_attr("lid", T_U32, IR_ATTR_THREAD_INDEX_IN_THREADGROUP);
    ir_var *tile = tg_var("tile", ir_type_array(K.m, T_F32, 128));
    saved_block c = if_begin(BIN(IR_OP_GE, V(tid), AT(V(count), U(0))));
    ret();
    if_end(c);
    set(AIDX(V(tile), V(lid)), AT(V(in), V(tid)));
    barrier();
    ir_var *left = local("left", T_F32, F(0));
    saved_block d = if_begin(BIN(IR_OP_GT, V(lid), U(0)));
    set(V(left), AIDX(V(tile), BIN(IR_OP_SUB, V(lid), U(1))));
    if_end(d);
    set(AT(V(out), V(tid)), BIN(IR_OP_ADD, AIDX(V(tile), V(lid)), V(left)));
    en_program *p = build();
    if (p) {
        const uint32_t groups = 4, size = 128, N = groups * size, count = 300;
        float *hin, *hout;
        uint32_t *hc;
        void *IN = buf_new(N * 4, (void **)&hin), *OUT = buf_new(N * 4, (void **)&hout);
        void *C = buf_new(4, (void **)&hc);
        *hc = count;
        for (uint32_t k = 0; k < N; k++) hin[k] = rndf(), hout[k] = 12345.0f;
        en_launch L = launch3(false, groups, 1, 1, size, 1, 1);
        bind(&L, 0, IN, N * 4), bind(&L, 1, OUT, N * 4), bind(&L, 2, C, 4);
        CHECK(run(p, &L), "early_return ran");
        int bad = 0;
        for (uint32_t k = 0; k < N; k++) {
            double ref = k >= count ? 12345.0 : (double)hin[k] + (k % size ? hin[k - 1] : 0.0f);
            if (hout[k] != (float)ref && bad++ < 3) fprintf(stderr, "  thread %u: %g, expected %g\n", k, hout[k], ref);
        }
        CHECK(bad == 0, "early_return: %d wrong", bad);
        BE->buffer_free(&DEV, IN), BE->buffer_free(&DEV, OUT), BE->buffer_free(&DEV, C);
        BE->program_free(&DEV, p);
    }
    kb_end();
}

/* shuffle_up/down out of range keep their own value; rotate wraps; xor; ballot */
static void shuffles(void) {
    kb_begin("shuffles");
    ir_var *in = param_buffer("in", T_F32, 0), *out = param_buffer("out", T_F32, 1);
    ir_var *votes = param_buffer("votes", T_U64, 2);
    ir_var *tid = param_attr("tid", T_U32, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *x = local("x", T_F32, AT(V(in), V(tid)));
    ir_type *u16 = T_U16;
    ir_intrinsic ops[5] = {IR_I_SIMD_SHUFFLE_UP, IR_I_SIMD_SHUFFLE_DOWN, IR_I_SIMD_SHUFFLE_ROTATE_UP,
                           IR_I_SIMD_SHUFFLE_XOR, IR_I_SIMD_BROADCAST};
    int amounts[5] = {3, 5, 7, 6, 9};
    for (int k = 0; k < 5; k++) {
        ir_var *r = intrinsic(ops[k], T_F32, V(x), ir_const_uint(K.m, u16, (uint64_t)amounts[k], K.loc));
        set(AT(V(out), BIN(IR_OP_ADD, BIN(IR_OP_MUL, V(tid), U(5)), U((uint64_t)k))), V(r));
    }
    saved_block c = if_begin(BIN(IR_OP_GT, V(x), F(-0.5)));
    ir_var *b = intrinsic(IR_I_SIMD_BALLOT, T_U64, BIN(IR_OP_GT, V(x), F(0)), NULL);
    set(AT(V(votes), V(tid)), V(b));
    if_end(c);
    en_program *p = build();
    if (p) {
        const uint32_t N = 64 * 3;
        float *hin, *hout;
        uint64_t *hv;
        void *IN = buf_new(N * 4, (void **)&hin), *OUT = buf_new(N * 5 * 4, (void **)&hout);
        void *VB = buf_new(N * 8, (void **)&hv);
        for (uint32_t k = 0; k < N; k++) hin[k] = rndf();
        en_launch L = launch3(false, 3, 1, 1, 64, 1, 1);
        bind(&L, 0, IN, N * 4), bind(&L, 1, OUT, N * 20), bind(&L, 2, VB, N * 8);
        CHECK(run(p, &L), "shuffles ran");
        int bad = 0;
        for (uint32_t k = 0; k < N; k++) {
            uint32_t base = k / 32 * 32, l = k % 32;
            float ref[5];
            ref[0] = l >= 3 ? hin[k - 3] : hin[k];
            ref[1] = l + 5 < 32 ? hin[k + 5] : hin[k];
            ref[2] = hin[base + ((l - 7) & 31)];
            ref[3] = hin[base + (l ^ 6)];
            ref[4] = hin[base + 9];
            for (int j = 0; j < 5; j++)
                if (hout[k * 5 + j] != ref[j] && bad++ < 5)
                    fprintf(stderr, "  thread %u op %d: %g, expected %g\n", k, j, hout[k * 5 + j], ref[j]);
            uint64_t vref = 0;
            for (uint32_t j = 0; j < 32; j++)
                if (hin[base + j] > -0.5f && hin[base + j] > 0) vref |= 1ull << j;
            if (hin[k] > -0.5f && hv[k] != vref && bad++ < 5)
                fprintf(stderr, "  thread %u ballot %llx, expected %llx\n", k, (unsigned long long)hv[k], (unsigned long long)vref);
            if (!(hin[k] > -0.5f) && hv[k] != 0) bad++;
        }
        CHECK(bad == 0, "shuffles: %d wrong", bad);
        BE->buffer_free(&DEV, IN), BE->buffer_free(&DEV, OUT), BE->buffer_free(&DEV, VB);
        BE->program_free(&DEV, p);
    }
    kb_end();
}

/* dispatch by threads, 2D, edge threadgroups smaller; a barrier still works in them:
 * tile[lid] = pos.x*1000+pos.y; barrier; out = tile[(lid+1) % n] with tpt, group and
 * simd-group counts recorded */
static void edge_groups_2d(void) {
    kb_begin("edges");
    ir_type *u2 = ir_type_vec(K.m, T_U32, 2, false);
    ir_var *out = param_buffer("out", T_U32, 0);
    ir_var *pos = param_attr("pos", u2, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *tpt = param_attr("tpt", u2, IR_ATTR_THREADS_PER_THREADGROUP);
    ir_var *grid = param_attr("grid", u2, IR_ATTR_THREADS_PER_GRID);
    ir_var *lid = param_attr("lid", T_U32, IR_ATTR_THREAD_INDEX_IN_THREADGROUP);
    ir_var *nsg = param_attr("nsg", T_U32, IR_ATTR_SIMDGROUPS_PER_THREADGROUP);
    ir_var *tile = tg_var("tile", ir_type_array(K.m, T_U32, 64));
    set(AIDX(V(tile), V(lid)), BIN(IR_OP_ADD, BIN(IR_OP_MUL, SWZ(V(pos), 0), U(1000)), SWZ(V(pos), 1)));
    barrier();
    ir_var *n = local("n", T_U32, BIN(IR_OP_MUL, SWZ(V(tpt), 0), SWZ(V(tpt), 1)));
    ir_var *i = local("i", T_U32, BIN(IR_OP_ADD, BIN(IR_OP_MUL, SWZ(V(pos), 1), SWZ(V(grid), 0)), SWZ(V(pos), 0)));
    ir_expr *o = BIN(IR_OP_MUL, V(i), U(4));
    set(AT(V(out), o), AIDX(V(tile), BIN(IR_OP_REM, BIN(IR_OP_ADD, V(lid), U(1)), V(n))));
    set(AT(V(out), BIN(IR_OP_ADD, BIN(IR_OP_MUL, V(i), U(4)), U(1))), SWZ(V(tpt), 0));
    set(AT(V(out), BIN(IR_OP_ADD, BIN(IR_OP_MUL, V(i), U(4)), U(2))), SWZ(V(tpt), 1));
    set(AT(V(out), BIN(IR_OP_ADD, BIN(IR_OP_MUL, V(i), U(4)), U(3))), V(nsg));
    en_program *p = build();
    if (p) {
        const uint32_t W = 37, H = 23, TX = 8, TY = 6;
        uint32_t *ho;
        void *O = buf_new(W * H * 16, (void **)&ho);
        en_launch L = launch3(true, W, H, 1, TX, TY, 1);
        bind(&L, 0, O, W * H * 16);
        CHECK(run(p, &L), "edges ran");
        int bad = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
                uint32_t gx = x / TX, gy = y / TY;
                uint32_t tx = W - gx * TX < TX ? W - gx * TX : TX, ty = H - gy * TY < TY ? H - gy * TY : TY;
                uint32_t lx = x - gx * TX, ly = y - gy * TY, lin = ly * tx + lx, nxt = (lin + 1) % (tx * ty);
                uint32_t nx = gx * TX + nxt % tx, ny = gy * TY + nxt / tx;
                uint32_t *r = &ho[(y * W + x) * 4];
                uint32_t want[4] = {nx * 1000 + ny, tx, ty, (tx * ty + 31) / 32};
                for (int k = 0; k < 4; k++)
                    if (r[k] != want[k] && bad++ < 5)
                        fprintf(stderr, "  (%u,%u)[%d]: %u, expected %u\n", x, y, k, r[k], want[k]);
            }
        CHECK(bad == 0, "edges: %d wrong", bad);
        BE->buffer_free(&DEV, O);
        BE->program_free(&DEV, p);
    }
    kb_end();
}

/* threadgroups of 48 = 32 + 16: the partial SIMD group's simd_sum covers its 16 lanes;
 * also an atomic counter contended by every thread of every threadgroup */
static void partial_simd_group_and_atomics(void) {
    kb_begin("partial");
    ir_var *in = param_buffer("in", T_F32, 0), *out = param_buffer("out", T_F32, 1);
    ir_var *counter = param_buffer("counter", ir_type_atomic(K.m, T_U32), 2);
    ir_var *fsum = param_buffer("fsum", ir_type_atomic(K.m, T_F32), 3);
    ir_var *tid = param_attr("tid", T_U32, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *x = local("x", T_F32, AT(V(in), V(tid)));
    ir_var *s = intrinsic(IR_I_SIMD_SUM, T_F32, V(x), NULL);
    set(AT(V(out), V(tid)), V(s));
    intrinsic(IR_I_ATOMIC_FETCH_ADD, NULL, V(counter), BIN(IR_OP_ADD, V(tid), U(1)));
    intrinsic(IR_I_ATOMIC_FETCH_ADD, NULL, V(fsum), F(0.5));
    en_program *p = build();
    if (p) {
        const uint32_t groups = 50, size = 48, N = groups * size;
        float *hin, *hout, *hf;
        uint32_t *hc;
        void *IN = buf_new(N * 4, (void **)&hin), *OUT = buf_new(N * 4, (void **)&hout);
        void *C = buf_new(4, (void **)&hc), *FS = buf_new(4, (void **)&hf);
        for (uint32_t k = 0; k < N; k++) hin[k] = rndf();
        en_launch L = launch3(false, groups, 1, 1, size, 1, 1);
        bind(&L, 0, IN, N * 4), bind(&L, 1, OUT, N * 4), bind(&L, 2, C, 4), bind(&L, 3, FS, 4);
        CHECK(run(p, &L), "partial ran");
        int bad = 0;
        for (uint32_t k = 0; k < N; k++) {
            uint32_t g = k / size, l = k % size, lo = l < 32 ? 0 : 32, hi = l < 32 ? 32 : size;
            double ref = 0;
            for (uint32_t j = lo; j < hi; j++) ref += hin[g * size + j];
            if (fabs(hout[k] - ref) > 1e-5 && bad++ < 3) fprintf(stderr, "  thread %u: %g, expected %g\n", k, hout[k], ref);
        }
        CHECK(bad == 0, "partial: %d wrong", bad);
        uint64_t cref = (uint64_t)N * (N + 1) / 2;
        CHECK(*hc == (uint32_t)cref, "atomic counter %u, expected %u", *hc, (uint32_t)cref);
        CHECK(*hf == 0.5f * N, "atomic float sum %g, expected %g", *hf, 0.5 * N);
        BE->buffer_free(&DEV, IN), BE->buffer_free(&DEV, OUT), BE->buffer_free(&DEV, C), BE->buffer_free(&DEV, FS);
        BE->program_free(&DEV, p);
    }
    kb_end();
}


/* threadgroup-level control flow: a loop with a barrier, a uniform `continue`, and an
 * if/else whose arms both hold barriers, in 3-D threadgroups of a 3-D dispatch by threads
 * (edge groups smaller in every dimension):
 *   for (r = 0; r < 6; r++) {
 *     if (r == 2) continue;
 *     if (r % 2 == 0) { tile[lid] = x * r; barrier; acc += tile[(lid + 1) % n]; }
 *     else            { tile[lid] = x + r; barrier; acc += tile[(lid + 3) % n]; }
 *     barrier;
 *   }
 *   out[linear(pos)] = acc */
static void tg_control_3d(void) {
    kb_begin("tg_control");
    ir_type *u3 = ir_type_vec(K.m, T_U32, 3, false);
    ir_var *in = param_buffer("in", T_I32, 0), *out = param_buffer("out", T_I32, 1);
    ir_var *pos = param_attr("pos", u3, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *grid = param_attr("grid", u3, IR_ATTR_THREADS_PER_GRID);
    ir_var *tpt = param_attr("tpt", u3, IR_ATTR_THREADS_PER_THREADGROUP);
    ir_var *lid = param_attr("lid", T_U32, IR_ATTR_THREAD_INDEX_IN_THREADGROUP);
    ir_var *tile = tg_var("tile", ir_type_array(K.m, T_I32, 64));
    ir_var *n = local("n", T_U32, BIN(IR_OP_MUL, BIN(IR_OP_MUL, SWZ(V(tpt), 0), SWZ(V(tpt), 1)), SWZ(V(tpt), 2)));
    ir_var *g = local("g", T_U32, BIN(IR_OP_ADD, BIN(IR_OP_MUL, BIN(IR_OP_ADD, BIN(IR_OP_MUL, SWZ(V(pos), 2), SWZ(V(grid), 1)),
                                                                SWZ(V(pos), 1)), SWZ(V(grid), 0)), SWZ(V(pos), 0)));
    ir_var *x = local("x", T_I32, AT(V(in), V(g)));
    ir_var *acc = local("acc", T_I32, I(0));
    ir_var *r = local("r", T_I32, I(0));
    saved_block lp = for_begin(BIN(IR_OP_LT, V(r), I(6)));
    saved_block c2 = if_begin(BIN(IR_OP_EQ, V(r), I(2)));
    ir_stmt *cont = ir_stmt_new(K.m, IR_S_CONTINUE, K.loc);
    cont->target = lp.stmt;
    put(cont);
    if_end(c2);
    saved_block even = if_begin(BIN(IR_OP_EQ, BIN(IR_OP_REM, V(r), I(2)), I(0)));
    set(AIDX(V(tile), V(lid)), BIN(IR_OP_MUL, V(x), V(r)));
    barrier();
    set(V(acc), BIN(IR_OP_ADD, V(acc), AIDX(V(tile), BIN(IR_OP_REM, BIN(IR_OP_ADD, V(lid), U(1)), V(n)))));
    if_else(even);
    set(AIDX(V(tile), V(lid)), BIN(IR_OP_ADD, V(x), V(r)));
    barrier();
    set(V(acc), BIN(IR_OP_ADD, V(acc), AIDX(V(tile), BIN(IR_OP_REM, BIN(IR_OP_ADD, V(lid), U(3)), V(n)))));
    if_end(even);
    barrier();
    loop_latch(lp);
    set(V(r), BIN(IR_OP_ADD, V(r), I(1)));
    loop_end(lp);
    set(AT(V(out), V(g)), V(acc));
    en_program *p = build();
    if (p) {
        const uint32_t W = 7, H = 5, D = 6, TX = 4, TY = 2, TZ = 4, N = W * H * D;
        int32_t *hin, *hout;
        void *IN = buf_new(N * 4, (void **)&hin), *OUT = buf_new(N * 4, (void **)&hout);
        for (uint32_t k = 0; k < N; k++) hin[k] = (int32_t)(rnd() % 2001) - 1000;
        en_launch L = launch3(true, W, H, D, TX, TY, TZ);
        bind(&L, 0, IN, N * 4), bind(&L, 1, OUT, N * 4);
        CHECK(run(p, &L), "tg_control ran");
        int bad = 0;
        for (uint32_t z = 0; z < D; z++)
            for (uint32_t y = 0; y < H; y++)
                for (uint32_t xx = 0; xx < W; xx++) {
                    uint32_t gx = xx / TX * TX, gy = y / TY * TY, gz = z / TZ * TZ;
                    uint32_t sx = W - gx < TX ? W - gx : TX, sy = H - gy < TY ? H - gy : TY, sz = D - gz < TZ ? D - gz : TZ;
                    uint32_t cnt = sx * sy * sz, me = ((z - gz) * sy + (y - gy)) * sx + (xx - gx);
                    /* the value of the thread with linear index j of this group */
                    #define VAL(j) hin[((gz + (j) / (sx * sy)) * H + gy + (j) / sx % sy) * W + gx + (j) % sx]
                    int64_t ref = 0;
                    for (int rr = 0; rr < 6; rr++) {
                        if (rr == 2) continue;
                        if (rr % 2 == 0) ref += (int64_t)VAL((me + 1) % cnt) * rr;
                        else ref += VAL((me + 3) % cnt) + rr;
                    }
                    #undef VAL
                    int32_t got = hout[(z * H + y) * W + xx];
                    if (got != (int32_t)ref && bad++ < 5)
                        fprintf(stderr, "  (%u,%u,%u): %d, expected %lld\n", xx, y, z, got, (long long)ref);
                }
        CHECK(bad == 0, "tg_control: %d wrong", bad);
        BE->buffer_free(&DEV, IN), BE->buffer_free(&DEV, OUT);
        BE->program_free(&DEV, p);
    }
    kb_end();
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"vector_add", vector_add},
    {"grid_sum", grid_stride_simd_sum},
    {"reduce", barrier_tree_reduction},
    {"divergent", divergent_simd_sum},
    {"early_return", early_return_barrier},
    {"shuffles", shuffles},
    {"edges", edge_groups_2d},
    {"partial", partial_simd_group_and_atomics},
    {"tg_control", tg_control_3d},
};

int main(int argc, char **argv) {
    const char *seed = getenv("ENIGMA_SEED");
    uint64_t s = seed ? strtoull(seed, NULL, 10) : (uint64_t)time(NULL);
    rng_state ^= s * 0x2545F4914F6CDD1Dull;
    fprintf(stderr, "ENIGMA_SEED=%llu\n", (unsigned long long)s);
    dev_open();
    for (size_t i = 0; i < EN_COUNT(cases); i++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], cases[i].name) == 0;
        if (!wanted) continue;
        int before = failures;
        cases[i].run();
        fprintf(stderr, "%s %s\n", failures == before ? "ok  " : "FAIL", cases[i].name);
    }
    BE->close(&DEV);
    fprintf(stderr, "%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
