/* kb.h — a small kernel builder for the cpu backend's tests: IR by hand through the
 * src/ir/ir.c builders (so the tests do not wait for the front end), and a harness that
 * runs it through en_cpu_backend_impl directly (open, buffer_alloc, build, dispatch, wait). */
#ifndef ENIGMA_TEST_KB_H
#define ENIGMA_TEST_KB_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "cpu/cpu.h"
#include "ir/ir.h"

static int failures, checks;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        checks++;                                                                          \
        if (!(cond)) {                                                                     \
            failures++;                                                                    \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);             \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

typedef struct kb {
    en_ctx ctx;
    ir_module *m;
    ir_func *f;
    ir_stmt *block; /* where statements go */
    en_loc loc;
} kb;

static kb K;
static ir_type *T_BOOL, *T_U32, *T_I32, *T_F32, *T_U16, *T_F16, *T_U64;

static inline void kb_begin(const char *name) {
    en_ctx_init(&K.ctx);
    const char *text = "// hand-built IR for the cpu backend tests\n";
    int file = en_source_add(&K.ctx.sources, "kb.metal", text, strlen(text));
    K.m = ir_module_new(&K.ctx.arena, &K.ctx.sources);
    K.f = ir_func_new(K.m, name, (en_loc){file, 1, 1});
    K.f->is_kernel = true;
    K.f->params = en_alloc(&K.ctx.arena, sizeof(ir_var *) * 32);
    K.block = K.f->body;
    K.loc = (en_loc){file, 1, 1};
    T_BOOL = ir_type_scalar(K.m, IR_T_BOOL);
    T_U32 = ir_type_scalar(K.m, IR_T_U32);
    T_I32 = ir_type_scalar(K.m, IR_T_I32);
    T_F32 = ir_type_scalar(K.m, IR_T_F32);
    T_U16 = ir_type_scalar(K.m, IR_T_U16);
    T_F16 = ir_type_scalar(K.m, IR_T_F16);
    T_U64 = ir_type_scalar(K.m, IR_T_U64);
}
static inline void kb_end(void) { en_ctx_free(&K.ctx); }

static inline ir_type *ptr(ir_type *t) { return ir_type_ptr(K.m, t, IR_SPACE_DEVICE, false); }

static inline ir_var *param_buffer(const char *name, ir_type *elem, int binding) {
    ir_var *v = ir_var_new(K.m, K.f, name, ptr(elem), K.loc);
    v->param_kind = IR_PARAM_BUFFER;
    v->binding = binding;
    K.f->params[K.f->param_count++] = v;
    return v;
}
static inline ir_var *param_tg(const char *name, ir_type *elem, int binding) {
    ir_var *v = ir_var_new(K.m, K.f, name, ir_type_ptr(K.m, elem, IR_SPACE_THREADGROUP, false), K.loc);
    v->param_kind = IR_PARAM_THREADGROUP;
    v->binding = binding;
    K.f->params[K.f->param_count++] = v;
    return v;
}
static inline ir_var *param_attr(const char *name, ir_type *t, ir_attr a) {
    ir_var *v = ir_var_new(K.m, K.f, name, t, K.loc);
    v->param_kind = IR_PARAM_ATTR;
    v->attr = a;
    K.f->params[K.f->param_count++] = v;
    return v;
}
static inline ir_var *tg_var(const char *name, ir_type *t) {
    ir_var *v = ir_var_new(K.m, K.f, name, t, K.loc);
    v->storage = IR_VAR_THREADGROUP;
    EN_PUSH(&K.ctx.arena, K.f->threadgroup_vars, v);
    return v;
}

/* expressions */
static inline ir_expr *V(ir_var *v) { return ir_var_ref(K.m, v, K.loc); }
static inline ir_expr *U(uint64_t x) { return ir_const_uint(K.m, T_U32, x, K.loc); }
static inline ir_expr *I(int64_t x) { return ir_const_int(K.m, T_I32, x, K.loc); }
static inline ir_expr *F(double x) { return ir_const_float(K.m, T_F32, x, K.loc); }
static inline ir_expr *BIN(ir_op op, ir_expr *a, ir_expr *b) {
    ir_type *t = (op >= IR_OP_EQ && op <= IR_OP_LOGOR) ? T_BOOL : a->type;
    if (a->type->kind == IR_T_VEC && t == T_BOOL) t = ir_type_vec(K.m, T_BOOL, a->type->count, false);
    return ir_binary(K.m, op, t, a, b, K.loc);
}
static inline ir_expr *AT(ir_expr *p, ir_expr *i) { return ir_index(K.m, p->type->elem, p, i, K.loc); }
static inline ir_expr *AIDX(ir_expr *arr, ir_expr *i) { return ir_index(K.m, arr->type->elem, arr, i, K.loc); }
static inline ir_expr *CVT(ir_type *t, ir_expr *a) { return ir_convert(K.m, t, a, K.loc); }
static inline ir_expr *NOT(ir_expr *a) { return ir_unary(K.m, IR_OP_NOT, T_BOOL, a, K.loc); }
static inline ir_expr *SWZ(ir_expr *v, int c) {
    ir_expr *e = ir_expr_new(K.m, IR_E_SWIZZLE, v->type->elem, K.loc, 1);
    e->args[0] = v;
    e->swizzle[0] = (uint8_t)c;
    e->swizzle_len = 1;
    return e;
}
static inline ir_expr *CALL(ir_intrinsic i, ir_type *t, ir_expr *a, ir_expr *b, ir_expr *c) {
    ir_expr *args[3] = {a, b, c};
    int n = c ? 3 : b ? 2 : 1;
    return ir_call(K.m, i, t, args, n, K.loc);
}

/* statements */
static inline void put(ir_stmt *s) { ir_block_append(K.m, K.block, s); }
static inline ir_var *local(const char *name, ir_type *t, ir_expr *init) {
    ir_var *v = ir_var_new(K.m, K.f, name, t, K.loc);
    put(ir_decl(K.m, K.f, v, init, K.loc));
    return v;
}
static inline void set(ir_expr *place, ir_expr *value) {
    if (place->kind == IR_E_VAR) place->var->is_assigned = true;
    put(ir_assign(K.m, place, value, K.loc));
}
static inline ir_var *intrinsic(ir_intrinsic i, ir_type *result_type, ir_expr *a, ir_expr *b) {
    ir_var *r = result_type ? local(NULL, result_type, NULL) : NULL;
    ir_expr *args[2] = {a, b};
    put(ir_intrinsic_stmt(K.m, i, r, args, a ? (b ? 2 : 1) : 0, K.loc));
    return r;
}
static inline void barrier(void) {
    ir_expr *flags = U(IR_MEM_THREADGROUP);
    put(ir_intrinsic_stmt(K.m, IR_I_BARRIER_THREADGROUP, NULL, &flags, 1, K.loc));
}
static inline void ret(void) { put(ir_stmt_new(K.m, IR_S_RETURN, K.loc)); }

/* if (cond) { ... }: opens the then-block; kb_else() switches; kb_end_if() closes */
typedef struct saved_block {
    ir_stmt *outer, *stmt;
} saved_block;
static inline saved_block if_begin(ir_expr *cond) {
    ir_stmt *s = ir_if(K.m, cond, ir_block(K.m, K.loc), NULL, K.loc);
    put(s);
    saved_block sb = {K.block, s};
    K.block = s->then_s;
    return sb;
}
static inline void if_else(saved_block sb) {
    sb.stmt->else_s = ir_block(K.m, K.loc);
    K.block = sb.stmt->else_s;
}
static inline void if_end(saved_block sb) { K.block = sb.outer; }

/* loop { body } latch { ... } */
static inline saved_block loop_begin(void) {
    ir_stmt *s = ir_stmt_new(K.m, IR_S_LOOP, K.loc);
    s->body = ir_block(K.m, K.loc);
    s->latch = ir_block(K.m, K.loc);
    put(s);
    saved_block sb = {K.block, s};
    K.block = s->body;
    return sb;
}
static inline void loop_latch(saved_block sb) { K.block = sb.stmt->latch; }
static inline void loop_end(saved_block sb) { K.block = sb.outer; }
static inline void loop_break(saved_block loop) {
    ir_stmt *s = ir_stmt_new(K.m, IR_S_BREAK, K.loc);
    s->target = loop.stmt;
    put(s);
}
/* for (; cond; latch): `if (!cond) break;` at the top of the body */
static inline saved_block for_begin(ir_expr *cond) {
    saved_block sb = loop_begin();
    saved_block i = if_begin(NOT(cond));
    loop_break(sb);
    if_end(i);
    return sb;
}

/* ---- running ---------------------------------------------------------------------------- */
static en_device DEV;
static const en_backend *BE;

static inline void dev_open(void) {
    BE = &en_cpu_backend_impl;
    en_buf err = {0};
    DEV.backend = BE;
    if (BE->open(&DEV, &err) != ENIGMA_OK) {
        fprintf(stderr, "cannot open the cpu device: %s\n", err.data);
        exit(1);
    }
    en_buf_free(&err);
}

static inline void *buf_new(size_t bytes, void **host) {
    void *h = NULL;
    en_buf err = {0};
    if (BE->buffer_alloc(&DEV, bytes, &h, &err) != ENIGMA_OK) {
        fprintf(stderr, "buffer_alloc: %s\n", err.data);
        exit(1);
    }
    *host = BE->buffer_host(&DEV, h);
    return h;
}

static inline en_program *build(void) {
    if (!ir_verify(K.m, &K.ctx.diags, "kb")) {
        en_buf text = {0};
        en_diags_render(&K.ctx.diags, &text);
        fprintf(stderr, "hand-built IR does not verify:\n%s\n", text.data);
        ir_print_module(K.m, &text);
        fprintf(stderr, "%s\n", text.data);
        en_buf_free(&text);
        failures++;
        return NULL;
    }
    en_build_options o = {0};
    en_program *p = NULL;
    en_buf err = {0};
    enigma_status st = BE->build(&DEV, K.m, &o, &p, &err);
    if (st != ENIGMA_OK) {
        fprintf(stderr, "build failed (%d): %s\n", (int)st, err.data);
        if (getenv("KB_DUMP")) {
            en_buf c = {0};
            BE->emit(K.m, &o, &c, &err);
            fprintf(stderr, "%s\n", c.data);
            en_buf_free(&c);
        }
        failures++;
    } else if (getenv("KB_DUMP")) {
        en_buf c = {0};
        BE->emit(K.m, &o, &c, &err);
        fprintf(stderr, "%s\n", c.data);
        en_buf_free(&c);
    }
    en_buf_free(&err);
    return p;
}

static inline bool run(en_program *p, en_launch *L) {
    L->module = K.m;
    L->kernel = K.f;
    en_buf err = {0};
    enigma_status st = BE->dispatch(&DEV, p, L, &err);
    if (st == ENIGMA_OK) st = BE->wait(&DEV, L, &err);
    if (st != ENIGMA_OK) fprintf(stderr, "dispatch failed (%d): %s\n", (int)st, err.data);
    en_buf_free(&err);
    return st == ENIGMA_OK;
}

/* a launch by threadgroups (by_threads = false) or by threads */
static inline en_launch launch3(bool by_threads, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t tx,
                         uint32_t ty, uint32_t tz) {
    en_launch L;
    memset(&L, 0, sizeof L);
    L.by_threads = by_threads;
    uint32_t size[3] = {gx, gy, gz}, t[3] = {tx, ty, tz};
    for (int d = 0; d < 3; d++) {
        L.group_size[d] = t[d];
        if (by_threads) {
            L.grid[d] = size[d];
            L.groups[d] = (size[d] + t[d] - 1) / t[d];
        } else {
            L.groups[d] = size[d];
            L.grid[d] = size[d] * t[d];
        }
    }
    return L;
}
static inline void bind(en_launch *L, int index, void *handle, size_t size) {
    L->buffers[index].handle = handle;
    L->buffers[index].size = size;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static inline float rndf(void) { return (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2.0 - 1.0); }

#endif
