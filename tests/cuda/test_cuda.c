/* test_cuda.c — the cuda backend where there is no GPU: every kernel enigma has is turned
 * into CUDA C and compiled by NVRTC for sm_90, so a codegen regression fails here.
 *
 *   test_cuda unavailable     open() without libcuda: ENIGMA_ERROR_UNAVAILABLE naming it
 *   test_cuda prelude         src/cuda/prelude.c is prelude.cuh as generated (prelude.sh)
 *   test_cuda hand            kernels built with the IR builders (SIMD/quad functions in
 *                             divergent code, barriers, static and dynamic threadgroup
 *                             memory, atomics, half, vectors, structs, loops with
 *                             break/continue, simdgroup_matrix): shape of the code + NVRTC
 *   test_cuda files DIR...    every .metal under DIRs that the front end accepts
 *   test_cuda shapes FILE...  each kernel's CUDA holds what the comments above it promise
 *                             ("pairs: N" fused simdgroup multiplies, "cuda: TEXT")
 *   test_cuda offline         compile_offline for ENIGMA_CUDA_ARCH=sm_80 (no device)
 * Exit 77 (ctest SKIP) when NVRTC or the CUDA headers are absent. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/ctx.h"
#include "cuda/internal.h"
#include "runtime/compile.h"

#define SKIP 77
static int failures;

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            failures++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
        }                                                                                    \
    } while (0)

static bool nvrtc_present(void) {
    en_buf err = {0};
    bool ok = en_nvrtc_load(&err) != NULL;
    if (!ok) fprintf(stderr, "skipped: %s\n", err.data ? err.data : "NVRTC not found");
    en_buf_free(&err);
    return ok;
}

/* emits (the text, for source_out) and compiles; true when both work. Through the cubin cache (in the build folder):
 * its key is the whole generated text, so a hit means this exact text compiled before and
 * any change to the code generator or the prelude compiles afresh. */
static bool compile_module(const ir_module *m, const char *what, en_buf *source_out) {
    en_buf src = {0}, err = {0};
    enigma_status st = en_cuda_emit(m, &src, &err);
    CHECK(st == ENIGMA_OK, "%s: emit failed: %s", what, err.data ? err.data : "");
    if (st != ENIGMA_OK) {
        en_buf_free(&src);
        en_buf_free(&err);
        return false;
    }
    en_cubin cubin = {0};
    st = en_nvrtc_compile(m, 9, 0, NULL, false, &cubin, &err);
    if (st == ENIGMA_ERROR_UNAVAILABLE) {
        fprintf(stderr, "skipped: %s\n", err.data);
        exit(SKIP);
    }
    CHECK(st == ENIGMA_OK, "%s: NVRTC failed: %s", what, err.data ? err.data : "");
    CHECK(st != ENIGMA_OK || (cubin.size > 64 && memcmp(cubin.data, "\x7f" "ELF", 4) == 0),
          "%s: the cubin is not an ELF image", what);
    /* sm_90 builds for its arch-specific target, sm_90a (wgmma), unless that is switched off */
    const char *wgmma = getenv("ENIGMA_CUDA_WGMMA");
    const char *want = wgmma && strcmp(wgmma, "0") == 0 ? "sm_90" : "sm_90a";
    CHECK(st != ENIGMA_OK || strcmp(cubin.arch, want) == 0, "%s: compiled for %s", what, cubin.arch);
    en_cubin_free(&cubin);
    if (source_out) *source_out = src;
    else en_buf_free(&src);
    en_buf_free(&err);
    return st == ENIGMA_OK;
}

/* ---- the cuda-unavailable path ------------------------------------------------------------ */
static void test_unavailable(void) {
    setenv("ENIGMA_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    en_device dev = {0};
    en_buf err = {0};
    enigma_status st = en_cuda_backend.open(&dev, &err);
    CHECK(st == ENIGMA_ERROR_UNAVAILABLE, "open without libcuda gave status %d", (int)st);
    CHECK(err.data && strstr(err.data, "libcuda.so.1 not found"), "message: '%s'", err.data ? err.data : "");
    /* the outcome is kept: asking again gives the same answer, no crash */
    en_buf again = {0};
    CHECK(en_cuda_backend.open(&dev, &again) == ENIGMA_ERROR_UNAVAILABLE, "second open");
    CHECK(again.data && strcmp(again.data, err.data ? err.data : "") == 0, "second message differs");
    en_buf_free(&err);
    en_buf_free(&again);
}

/* ---- prelude.c is prelude.cuh --------------------------------------------------------------- */
static void test_prelude(void) {
    const char *path = ENIGMA_SOURCE_DIR "/src/cuda/prelude.cuh";
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc(1, (size_t)n + 1);
    CHECK(text && fread(text, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
    fclose(f);
    CHECK(text && strcmp(text, en_cuda_prelude) == 0,
          "src/cuda/prelude.c is stale: run sh src/cuda/prelude.sh after editing prelude.cuh");
    free(text);
}

/* ---- kernels built by hand ------------------------------------------------------------------ */
typedef struct hand {
    ir_module *m;
    ir_func *f;
    en_loc loc;
    ir_type *f32, *f16, *i32, *u32, *u16, *b, *u64;
} hand;

static ir_expr *var(hand *h, ir_var *v) { return ir_var_ref(h->m, v, h->loc); }
static ir_expr *u32c(hand *h, uint64_t v) { return ir_const_uint(h->m, h->u32, v, h->loc); }
static ir_expr *f32c(hand *h, double v) { return ir_const_float(h->m, h->f32, v, h->loc); }
static ir_expr *bin(hand *h, ir_op op, ir_type *t, ir_expr *a, ir_expr *b) { return ir_binary(h->m, op, t, a, b, h->loc); }
static ir_expr *cmp(hand *h, ir_op op, ir_expr *a, ir_expr *b) { return ir_binary(h->m, op, h->b, a, b, h->loc); }
static ir_expr *at(hand *h, ir_expr *base, ir_expr *i) {
    ir_type *t = base->type->kind == IR_T_PTR || base->type->kind == IR_T_ARRAY || base->type->kind == IR_T_VEC
                     ? base->type->elem : base->type;
    return ir_index(h->m, t, base, i, h->loc);
}
static ir_var *param(hand *h, const char *name, ir_type *t, ir_param_kind kind, int binding, ir_attr attr) {
    ir_var *v = ir_var_new(h->m, h->f, name, t, h->loc);
    v->param_kind = kind;
    v->binding = binding;
    v->attr = attr;
    ir_var **ps = en_alloc(h->m->arena, sizeof(ir_var *) * (size_t)(h->f->param_count + 1));
    if (h->f->param_count) memcpy(ps, h->f->params, sizeof(ir_var *) * (size_t)h->f->param_count);
    ps[h->f->param_count++] = v;
    h->f->params = ps;
    return v;
}
static ir_var *local(hand *h, ir_stmt *block, const char *name, ir_type *t, ir_expr *init) {
    ir_var *v = ir_var_new(h->m, h->f, name, t, h->loc);
    ir_block_append(h->m, block, ir_decl(h->m, h->f, v, init, h->loc));
    return v;
}
static void assign(hand *h, ir_stmt *block, ir_expr *place, ir_expr *value) {
    ir_block_append(h->m, block, ir_assign(h->m, place, value, h->loc));
}
static ir_var *intrinsic(hand *h, ir_stmt *block, ir_intrinsic i, ir_type *result, ir_expr **args, int n) {
    ir_var *r = result ? ir_temp(h->m, h->f, result, h->loc) : NULL;
    ir_block_append(h->m, block, ir_intrinsic_stmt(h->m, i, r, args, n, h->loc));
    return r;
}
static ir_expr *call(hand *h, ir_intrinsic i, ir_type *t, ir_expr *a, ir_expr *b, ir_expr *c) {
    ir_expr *args[3] = {a, b, c};
    return ir_call(h->m, i, t, args, c ? 3 : b ? 2 : 1, h->loc);
}

/* kernel everything(...): one of each kind of thing the backend translates */
static void build_everything(hand *h) {
    ir_module *m = h->m;
    h->f = ir_func_new(m, "everything", h->loc);
    h->f->is_kernel = true;
    ir_func *f = h->f;
    ir_type *f4 = ir_type_vec(m, h->f32, 4, false), *f3 = ir_type_vec(m, h->f32, 3, false);
    ir_type *pf3 = ir_type_vec(m, h->f32, 3, true), *u2 = ir_type_vec(m, h->u16, 2, false);
    ir_type *params = ir_type_struct(m, "Params");
    params->fields = en_alloc(m->arena, sizeof(ir_field) * 3);
    params->fields[0] = (ir_field){.name = "n", .type = h->u32};
    params->fields[1] = (ir_field){.name = "scale", .type = f3};
    params->fields[2] = (ir_field){.name = "packed", .type = pf3};
    params->field_count = 3;
    ir_struct_layout(params);

    ir_var *out = param(h, "out", ir_type_ptr(m, h->f32, IR_SPACE_DEVICE, false), IR_PARAM_BUFFER, 0, IR_ATTR_NONE);
    ir_var *in = param(h, "in", ir_type_ptr(m, f4, IR_SPACE_DEVICE, true), IR_PARAM_BUFFER, 1, IR_ATTR_NONE);
    ir_var *counter = param(h, "counter", ir_type_ptr(m, ir_type_atomic(m, h->i32), IR_SPACE_DEVICE, false), IR_PARAM_BUFFER, 2, IR_ATTR_NONE);
    ir_var *p = param(h, "p", ir_type_ptr(m, params, IR_SPACE_CONSTANT, true), IR_PARAM_BUFFER, 3, IR_ATTR_NONE);
    ir_var *fsum = param(h, "fsum", ir_type_ptr(m, ir_type_atomic(m, h->f32), IR_SPACE_DEVICE, false), IR_PARAM_BUFFER, 4, IR_ATTR_NONE);
    ir_var *hbuf = param(h, "hbuf", ir_type_ptr(m, h->f16, IR_SPACE_DEVICE, false), IR_PARAM_BUFFER, 5, IR_ATTR_NONE);
    ir_var *scratch = param(h, "scratch", ir_type_ptr(m, h->f32, IR_SPACE_THREADGROUP, false), IR_PARAM_THREADGROUP, 0, IR_ATTR_NONE);
    ir_var *gid = param(h, "gid", h->u32, IR_PARAM_ATTR, -1, IR_ATTR_THREAD_POSITION_IN_GRID);
    ir_var *lane = param(h, "lane", h->u32, IR_PARAM_ATTR, -1, IR_ATTR_THREAD_INDEX_IN_SIMDGROUP);
    ir_var *lid = param(h, "lid", h->u32, IR_PARAM_ATTR, -1, IR_ATTR_THREAD_INDEX_IN_THREADGROUP);
    ir_var *tpos = param(h, "tpos", u2, IR_PARAM_ATTR, -1, IR_ATTR_THREAD_POSITION_IN_THREADGROUP);
    ir_var *tg = ir_var_new(m, f, "tile", ir_type_array(m, h->f32, 64), h->loc);
    tg->storage = IR_VAR_THREADGROUP;
    EN_PUSH(m->arena, f->threadgroup_vars, tg);

    ir_stmt *body = f->body;
    /* early return: later barriers must not wait for these threads */
    ir_stmt *ret_block = ir_block(m, h->loc);
    ir_block_append(m, ret_block, ir_stmt_new(m, IR_S_RETURN, h->loc));
    ir_expr *n = ir_expr_new(m, IR_E_FIELD, h->u32, h->loc, 1);
    n->args[0] = ir_deref(m, var(h, p), h->loc);
    n->field = 0;
    ir_block_append(m, body, ir_if(m, cmp(h, IR_OP_GE, var(h, gid), n), ret_block, NULL, h->loc));

    ir_var *v = local(h, body, "v", f4, at(h, var(h, in), var(h, gid)));
    ir_expr *vx = ir_expr_new(m, IR_E_SWIZZLE, h->f32, h->loc, 1);
    vx->args[0] = var(h, v);
    vx->swizzle[0] = 0;
    vx->swizzle_len = 1;
    ir_var *s = local(h, body, "s", h->f32, vx);

    /* divergent SIMD functions: each branch reduces over its own active lanes */
    ir_stmt *then_b = ir_block(m, h->loc), *else_b = ir_block(m, h->loc);
    ir_expr *a1[1] = {var(h, s)};
    ir_var *sum = intrinsic(h, then_b, IR_I_SIMD_SUM, h->f32, a1, 1);
    assign(h, then_b, var(h, s), var(h, sum));
    ir_expr *a2[1] = {var(h, s)};
    ir_var *pre = intrinsic(h, else_b, IR_I_SIMD_PREFIX_EXCLUSIVE_SUM, h->f32, a2, 1);
    assign(h, else_b, var(h, s), var(h, pre));
    ir_expr *a3[2] = {var(h, s), ir_const_uint(m, h->u16, 3, h->loc)};
    ir_var *up = intrinsic(h, else_b, IR_I_SIMD_SHUFFLE_UP, h->f32, a3, 2);
    assign(h, else_b, var(h, s), bin(h, IR_OP_ADD, h->f32, var(h, s), var(h, up)));
    ir_block_append(m, body, ir_if(m, cmp(h, IR_OP_LT, var(h, lane), u32c(h, 16)), then_b, else_b, h->loc));
    ir_expr *a4[1] = {cmp(h, IR_OP_GT, var(h, s), f32c(h, 0))};
    ir_var *vote = intrinsic(h, body, IR_I_SIMD_BALLOT, h->u64, a4, 1);
    ir_expr *a5[2] = {ir_convert(m, h->i32, var(h, s), h->loc), ir_const_uint(m, h->u16, 1, h->loc)};
    ir_var *qx = intrinsic(h, body, IR_I_QUAD_SHUFFLE_XOR, h->i32, a5, 2);
    ir_expr *a6[4] = {var(h, s), f32c(h, -1.5), ir_const_uint(m, h->u16, 2, h->loc), ir_const_uint(m, h->u16, 8, h->loc)};
    ir_var *fill = intrinsic(h, body, IR_I_SIMD_SHUFFLE_AND_FILL_DOWN, h->f32, a6, 4);

    /* threadgroup memory, static and dynamic, around barriers */
    assign(h, body, at(h, var(h, tg), bin(h, IR_OP_AND, h->u32, var(h, lid), u32c(h, 63))), var(h, s));
    assign(h, body, at(h, var(h, scratch), var(h, lid)), var(h, fill));
    ir_expr *a7[1] = {u32c(h, IR_MEM_THREADGROUP)};
    intrinsic(h, body, IR_I_BARRIER_THREADGROUP, NULL, a7, 1);
    ir_expr *a8[1] = {u32c(h, IR_MEM_DEVICE)};
    intrinsic(h, body, IR_I_BARRIER_THREADGROUP, NULL, a8, 1);

    /* for (uint i = 0; i < 8; i++) { if (i == 2) continue; if (i == 6) break; acc += tile[i]; } */
    ir_var *acc = local(h, body, "acc", h->f32, f32c(h, 0));
    ir_var *i = local(h, body, "i", h->u32, u32c(h, 0));
    ir_stmt *loop = ir_stmt_new(m, IR_S_LOOP, h->loc);
    loop->body = ir_block(m, h->loc);
    loop->latch = ir_block(m, h->loc);
    ir_stmt *brk = ir_stmt_new(m, IR_S_BREAK, h->loc), *brk2 = ir_stmt_new(m, IR_S_BREAK, h->loc);
    ir_stmt *cont = ir_stmt_new(m, IR_S_CONTINUE, h->loc);
    brk->target = brk2->target = cont->target = loop;
    ir_block_append(m, loop->body, ir_if(m, ir_unary(m, IR_OP_NOT, h->b, cmp(h, IR_OP_LT, var(h, i), u32c(h, 8)), h->loc), brk, NULL, h->loc));
    ir_block_append(m, loop->body, ir_if(m, cmp(h, IR_OP_EQ, var(h, i), u32c(h, 2)), cont, NULL, h->loc));
    ir_block_append(m, loop->body, ir_if(m, cmp(h, IR_OP_EQ, var(h, i), u32c(h, 6)), brk2, NULL, h->loc));
    assign(h, loop->body, var(h, acc), bin(h, IR_OP_ADD, h->f32, var(h, acc), at(h, var(h, tg), var(h, i))));
    assign(h, loop->latch, var(h, i), bin(h, IR_OP_ADD, h->u32, var(h, i), u32c(h, 1)));
    ir_block_append(m, body, loop);

    /* atomics of int and float */
    ir_expr *a9[2] = {var(h, counter), ir_const_int(m, h->i32, 1, h->loc)};
    intrinsic(h, body, IR_I_ATOMIC_FETCH_ADD, h->i32, a9, 2);
    ir_expr *a10[2] = {var(h, fsum), var(h, acc)};
    intrinsic(h, body, IR_I_ATOMIC_FETCH_ADD, h->f32, a10, 2);
    ir_var *expected = local(h, body, "expected", h->i32, ir_const_int(m, h->i32, 0, h->loc));
    ir_expr *a11[3] = {var(h, counter), ir_expr_new(m, IR_E_ADDR, ir_type_ptr(m, h->i32, IR_SPACE_THREAD, false), h->loc, 1), ir_const_int(m, h->i32, 5, h->loc)};
    a11[1]->args[0] = var(h, expected);
    intrinsic(h, body, IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK, h->b, a11, 3);

    /* half arithmetic, vector math with a scalar spread, integer helpers */
    ir_var *hv = local(h, body, "hv", h->f16, ir_convert(m, h->f16, var(h, acc), h->loc));
    assign(h, body, var(h, hv), bin(h, IR_OP_MUL, h->f16, var(h, hv), ir_const_float(m, h->f16, 0.5, h->loc)));
    assign(h, body, at(h, var(h, hbuf), var(h, gid)), var(h, hv));
    ir_expr *clamped = call(h, IR_I_CLAMP, f4, var(h, v), f32c(h, 0), f32c(h, 1));
    ir_expr *dot = call(h, IR_I_DOT, h->f32, clamped, var(h, v), NULL);
    ir_expr *pop = call(h, IR_I_POPCOUNT, h->u32, ir_convert(m, h->u32, var(h, vote), h->loc), NULL, NULL);
    ir_expr *tx = ir_expr_new(m, IR_E_SWIZZLE, h->u16, h->loc, 1);
    tx->args[0] = var(h, tpos);
    tx->swizzle[0] = 0;
    tx->swizzle_len = 1;
    ir_expr *total = bin(h, IR_OP_ADD, h->f32, var(h, acc), dot);
    total = bin(h, IR_OP_ADD, h->f32, total, ir_convert(m, h->f32, pop, h->loc));
    total = bin(h, IR_OP_ADD, h->f32, total, ir_convert(m, h->f32, var(h, qx), h->loc));
    total = bin(h, IR_OP_ADD, h->f32, total, ir_convert(m, h->f32, var(h, hv), h->loc));
    total = bin(h, IR_OP_ADD, h->f32, total, ir_convert(m, h->f32, tx, h->loc));
    total = bin(h, IR_OP_ADD, h->f32, total, at(h, var(h, scratch), bin(h, IR_OP_XOR, h->u32, var(h, lid), u32c(h, 1))));
    assign(h, body, at(h, var(h, out), var(h, gid)), total);

    /* simdgroup_matrix: load from threadgroup memory, multiply-accumulate, store */
    ir_type *mt = ir_type_matrix(m, h->f32);
    ir_type *ul2 = ir_type_vec(m, h->u64, 2, false);
    ir_expr *origin = ir_expr_new(m, IR_E_VECTOR, ul2, h->loc, 2);
    origin->args[0] = ir_const_uint(m, h->u64, 0, h->loc);
    origin->args[1] = ir_const_uint(m, h->u64, 0, h->loc);
    ir_expr *tile0 = ir_expr_new(m, IR_E_ADDR, ir_type_ptr(m, h->f32, IR_SPACE_THREADGROUP, false), h->loc, 1);
    tile0->args[0] = at(h, var(h, tg), u32c(h, 0));
    ir_expr *a12[4] = {tile0, ir_const_uint(m, h->u64, 8, h->loc), origin, ir_const_bool(m, false, h->loc)};
    ir_var *ma = intrinsic(h, body, IR_I_MATRIX_LOAD, mt, a12, 4);
    ir_expr *a13[1] = {f32c(h, 2)};
    ir_var *mb = intrinsic(h, body, IR_I_MATRIX_FILL, mt, a13, 1);
    ir_expr *a14[3] = {var(h, ma), var(h, mb), var(h, ma)};
    ir_var *mc = intrinsic(h, body, IR_I_MATRIX_MULTIPLY_ACCUMULATE, mt, a14, 3);
    ir_expr *a15[5] = {var(h, mc), var(h, out), ir_const_uint(m, h->u64, 8, h->loc), origin, ir_const_bool(m, true, h->loc)};
    intrinsic(h, body, IR_I_MATRIX_STORE, NULL, a15, 5);
}

/* kernel big_static(...): 64 KiB of threadgroup variables, more than static __shared__ may
 * hold, so they are carved from the dynamic shared memory */
static void build_big_static(hand *h) {
    ir_module *m = h->m;
    h->f = ir_func_new(m, "big_static", h->loc);
    h->f->is_kernel = true;
    ir_var *out = param(h, "out", ir_type_ptr(m, h->f32, IR_SPACE_DEVICE, false), IR_PARAM_BUFFER, 0, IR_ATTR_NONE);
    ir_var *lid = param(h, "lid", h->u32, IR_PARAM_ATTR, -1, IR_ATTR_THREAD_INDEX_IN_THREADGROUP);
    ir_var *big = ir_var_new(m, h->f, "big", ir_type_array(m, h->f32, 16384), h->loc);
    big->storage = IR_VAR_THREADGROUP;
    EN_PUSH(m->arena, h->f->threadgroup_vars, big);
    assign(h, h->f->body, at(h, var(h, big), var(h, lid)), f32c(h, 1));
    ir_expr *a[1] = {u32c(h, IR_MEM_THREADGROUP)};
    intrinsic(h, h->f->body, IR_I_BARRIER_THREADGROUP, NULL, a, 1);
    assign(h, h->f->body, at(h, var(h, out), var(h, lid)), at(h, var(h, big), bin(h, IR_OP_XOR, h->u32, var(h, lid), u32c(h, 1))));
}

static void test_hand(void) {
    en_arena arena;
    en_arena_init(&arena);
    en_sources sources = {.arena = &arena};
    hand h = {.m = ir_module_new(&arena, &sources), .loc = {-1, 0, 0}};
    h.f32 = ir_type_scalar(h.m, IR_T_F32);
    h.f16 = ir_type_scalar(h.m, IR_T_F16);
    h.i32 = ir_type_scalar(h.m, IR_T_I32);
    h.u32 = ir_type_scalar(h.m, IR_T_U32);
    h.u16 = ir_type_scalar(h.m, IR_T_U16);
    h.u64 = ir_type_scalar(h.m, IR_T_U64);
    h.b = ir_type_scalar(h.m, IR_T_BOOL);
    build_everything(&h);
    build_big_static(&h);
    en_buf src = {0};
    if (compile_module(h.m, "hand-built kernel", &src)) {
        if (getenv("CUDA_TEST_DUMP")) fputs(src.data, stdout);
        const char *kernel = strstr(src.data, "// kernel everything");
        CHECK(kernel != NULL, "no kernel in the output");
        if (kernel) {
            /* the shapes the Metal model relies on */
            CHECK(strstr(kernel, "extern \"C\" __global__ void everything(const en_dispatch en_p"), "signature");
            CHECK(strstr(kernel, "en_simd_sum(__activemask(), s)"), "simd_sum over the active lanes");
            CHECK(strstr(kernel, "en_simd_prefix_exclusive_sum(__activemask(), s)"), "prefix sum");
            CHECK(strstr(kernel, "en_quad_shuffle_xor(__activemask()"), "quad shuffle");
            CHECK(strstr(kernel, "__shared__ __align__(16) en_array<float, 64> tile;"), "static threadgroup memory");
            CHECK(strstr(kernel, "(en_dynamic_shared + en_offset_scratch)"), "dynamic threadgroup memory");
            CHECK(strstr(kernel, "EN_BARRIER();") && strstr(kernel, "EN_BARRIER_DEVICE();"), "barriers");
            CHECK(strstr(kernel, "goto en_continue_"), "continue must run the latch");
            CHECK(strstr(kernel, "en_atomic_fetch_add(counter, 1)") && strstr(kernel, "en_atomic_fetch_add(fsum, acc)"), "atomics");
            CHECK(strstr(kernel, "en_matrix_multiply_accumulate<float>(") && strstr(kernel, "en_matrix_store<"), "matrix");
            CHECK(strstr(kernel, "if (!(EN_FAST ? en_locate_1d(en_p, en_t) : en_locate(en_p, en_t))) return;"),
                  "edge threads leave");
            CHECK(strstr(kernel, "extern \"C\" __global__ void everything" EN_CUDA_FAST_SUFFIX "(const en_dispatch en_p") &&
                      strstr(kernel, "en_kernel_everything<true>(en_p") && strstr(kernel, "en_kernel_everything<false>(en_p"),
                  "the general and the fast entry point");
            CHECK(strstr(src.data, "static_assert(sizeof(Params) == 48"), "struct layout assertion");
            CHECK(strstr(kernel, "en_splat<float4>(0.0f)"), "scalar clamp bounds spread over the vector");
            CHECK(strstr(kernel, "en_array<float, 16384> &big = *(en_array<float, 16384> *)(en_dynamic_shared + 0);"),
                  "64 KiB of threadgroup variables carved from dynamic shared memory");
        }
    }
    en_buf_free(&src);
    en_arena_free(&arena);
}

/* ---- every .metal file the front end accepts ---------------------------------------------- */
static int files_compiled, files_rejected;

static void compile_file(const char *path) {
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_load(&c.sources, path);
    ir_module *m = file >= 0 ? en_compile(&c, file, NULL) : NULL;
    if (!m || c.diags.errors || c.arena.out_of_memory) {
        files_rejected++; /* negative tests of the front end, and what it cannot read yet */
    } else if (ir_module_kernel_count(m) > 0) {
        if (compile_module(m, path, NULL)) files_compiled++;
        else fprintf(stderr, "  (in %s)\n", path);
    }
    en_ctx_free(&c);
}

static void walk(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *ent;
    /* sorted order is not needed: every file is compiled either way */
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) walk(path);
        else {
            size_t n = strlen(path);
            if (n > 6 && strcmp(path + n - 6, ".metal") == 0) compile_file(path);
        }
    }
    closedir(d);
}

/* ---- the shape of generated code, as the .metal file's comments promise ---------------------- */
/* Each kernel of FILE follows comment lines that say what its generated CUDA must hold:
 *   // pairs: N        N calls of en_matrix_multiply_accumulate2 (src/cuda/matrix_pairs.c)
 *   // k pairs: N      N calls of en_matrix_multiply_accumulate2k or 1k (two K steps in one)
 *   // cuda: TEXT      TEXT somewhere in the kernel's code
 * and the whole file must compile. */
static int count_in(const char *from, const char *end, const char *text) {
    int n = 0;
    for (const char *q = strstr(from, text); q && (!end || q < end); q = strstr(q + 1, text)) n++;
    return n;
}

static void test_shapes(const char *path) {
    en_ctx c;
    en_ctx_init(&c);
    int file = en_source_load(&c.sources, path);
    ir_module *m = file >= 0 ? en_compile(&c, file, NULL) : NULL;
    CHECK(m && !c.diags.errors, "%s does not compile", path);
    en_buf src = {0};
    if (m && !c.diags.errors && compile_module(m, path, &src)) {
        const char *text = c.sources.files.items[file].text;
        int checks = 0;
        for (const char *k = strchr(text, '\n'); k; k = strchr(k + 1, '\n')) {
            /* a kernel: `kernel void NAME(`, or a macro that defines one, `MACRO(NAME, ...)`,
             * at the start of a line outside a #define */
            char name[64] = {0}, marker[96];
            if (k > text && k[-1] == '\\') continue;
            if (strncmp(k + 1, "kernel void ", 12) == 0) sscanf(k + 13, "%63[A-Za-z0-9_]", name);
            else if (isupper((unsigned char)k[1])) sscanf(k + 1, "%*[A-Z0-9_](%63[A-Za-z0-9_],", name);
            if (!name[0]) continue;
            snprintf(marker, sizeof marker, "// kernel %s (", name);
            const char *body = strstr(src.data, marker);
            CHECK(body != NULL, "no kernel %s in the generated CUDA", name);
            if (!body) continue;
            const char *end = strstr(body + 1, "\n// kernel ");
            /* the comment lines right above the kernel, from the nearest blank line */
            const char *top = k;
            while (top > text && !(top[-1] == '\n' && top - 1 > text && top[-2] == '\n')) top--;
            for (const char *line = top; line < k; line = strchr(line, '\n') + 1) {
                const char *eol = strchr(line, '\n');
                char want[256] = {0};
                size_t len = (size_t)(eol - line);
                if (len >= sizeof want) len = sizeof want - 1;
                if (strncmp(line, "// pairs: ", 10) == 0) {
                    int n = atoi(line + 10), got = count_in(body, end, "en_matrix_multiply_accumulate2(");
                    CHECK(got == n, "%s: %d paired multiplies, expected %d", name, got, n);
                    checks++;
                } else if (strncmp(line, "// k pairs: ", 12) == 0) {
                    int n = atoi(line + 12), got = count_in(body, end, "en_matrix_multiply_accumulate2k(") +
                                                   count_in(body, end, "en_matrix_multiply_accumulate1k(");
                    CHECK(got == n, "%s: %d multiplies of two K steps, expected %d", name, got, n);
                    checks++;
                } else if (strncmp(line, "// cuda: ", 9) == 0) {
                    memcpy(want, line + 9, len - 9);
                    CHECK(count_in(body, end, want) > 0, "%s: no \"%s\" in its CUDA", name, want);
                    checks++;
                }
            }
        }
        CHECK(checks > 0, "%s promises nothing about its code", path);
        /* float matrices as plain TF32, the opt-in trade of accuracy for speed (prelude.cuh) */
        en_cubin cubin = {0};
        en_buf err = {0};
        CHECK(en_nvrtc_compile(m, 9, 0, "-DENIGMA_MATRIX_TF32", false, &cubin, &err) == ENIGMA_OK,
              "%s with -DENIGMA_MATRIX_TF32: %s", path, err.data ? err.data : "");
        en_cubin_free(&cubin);
        en_buf_free(&err);
        printf("%d promises of %s checked\n", checks, path);
    }
    en_buf_free(&src);
    en_ctx_free(&c);
}

/* ---- compile without a device ----------------------------------------------------------------- */
static void test_offline(void) {
    en_arena arena;
    en_arena_init(&arena);
    en_sources sources = {.arena = &arena};
    hand h = {.m = ir_module_new(&arena, &sources), .loc = {-1, 0, 0}};
    h.f32 = ir_type_scalar(h.m, IR_T_F32);
    h.f16 = ir_type_scalar(h.m, IR_T_F16);
    h.i32 = ir_type_scalar(h.m, IR_T_I32);
    h.u32 = ir_type_scalar(h.m, IR_T_U32);
    h.u16 = ir_type_scalar(h.m, IR_T_U16);
    h.u64 = ir_type_scalar(h.m, IR_T_U64);
    h.b = ir_type_scalar(h.m, IR_T_BOOL);
    build_everything(&h);
    setenv("ENIGMA_CUDA_ARCH", "sm_80", 1);
    en_build_options o = {.no_cache = true};
    en_buf out = {0}, err = {0};
    CHECK(en_cuda_backend.compile_offline != NULL, "compile_offline missing");
    enigma_status st = en_cuda_backend.compile_offline(h.m, &o, &out, &err);
    CHECK(st == ENIGMA_OK, "compile_offline: %s", err.data ? err.data : "");
    CHECK(out.data && strstr(out.data, "for sm_80"), "summary: %s", out.data ? out.data : "");
    unsetenv("ENIGMA_CUDA_ARCH");
    en_buf_free(&out);
    en_buf_free(&err);
    en_arena_free(&arena);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_cuda unavailable|prelude|hand|offline|files DIR...\n");
        return 2;
    }
    const char *what = argv[1];
    if (!getenv("ENIGMA_CACHE_DIR")) setenv("ENIGMA_CACHE_DIR", ENIGMA_TEST_CACHE_DIR, 1);
    if (strcmp(what, "unavailable") == 0) test_unavailable();
    else if (strcmp(what, "prelude") == 0) test_prelude();
    else {
        if (!nvrtc_present()) return SKIP;
        if (strcmp(what, "hand") == 0) test_hand();
        else if (strcmp(what, "offline") == 0) test_offline();
        else if (strcmp(what, "shapes") == 0 && argc > 2)
            for (int i = 2; i < argc; i++) test_shapes(argv[i]);
        else if (strcmp(what, "files") == 0) {
            for (int i = 2; i < argc; i++) walk(argv[i]);
            printf("%d kernel files compiled by NVRTC for sm_90; %d files rejected by the front end "
                   "(not compiled)\n", files_compiled, files_rejected);
            CHECK(files_compiled > 0, "no .metal file reached the cuda backend");
        } else {
            fprintf(stderr, "unknown test '%s'\n", what);
            return 2;
        }
    }
    if (failures) fprintf(stderr, "%d check%s failed\n", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
