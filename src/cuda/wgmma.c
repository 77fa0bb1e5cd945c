/* wgmma.c — finds the threadgroup GEMMs whose multiplies one Hopper warpgroup instruction can do.
 *
 * The GEMM shape of llama.cpp's kernel_mul_mm and MLX's steel GEMM (bench/cuda/
 * gemm_simdgroup.metal): 4 SIMD groups (128 threads, one Hopper warpgroup) own the quarters of
 * a 64x64 tile of C as 8x8 accumulators; a K loop copies slices of A and B into threadgroup
 * arrays with 16-byte chunk stores, and each SIMD group loads its 8x8 a and b matrices from
 * them and multiply-accumulates. With mma.sync every SIMD group reads its own operands from
 * shared memory; `wgmma.mma_async.m64n64k16` reads each operand once for the whole warpgroup
 * (bench/cuda/NOTES.md, "Issue 11"). That needs the threadgroup arrays in the layout its
 * matrix descriptors describe and the accumulators in its register layout, which this file
 * proves the compiler may choose.
 *
 * Needs: a verified, inlined kernel after the uniformity pass (ir_var.uniform).
 * Gives: a plan (en_wg_plan, internal.h) or none; with none the kernel is emitted as before.
 *   A plan says: the K loop (a statement of the kernel's body) and its multiply nest (a
 *   statement pair of the loop's body, unrolled by matrix_pairs.c), the A and B staging
 *   arrays with their row lengths, every chunk store's pointer, the accumulator places, and
 *   which 8x8 block of the 64x64 tile each SIMD group's accumulator is. It holds when:
 *     1. the product is the threadgroup's: every operation of the nest is a load into a
 *        matrix variable declared in the nest (from the A array for a, the B array for b,
 *        16-bit, untransposed, at a constant stride) or an accumulate acc_k += a * b onto a
 *        float accumulator acc_k declared outside the nest; evaluated for each SIMD group
 *        (0..3, tile origins may read simdgroup_index_in_threadgroup and locals computed
 *        once from it), the a operand is rows r..r+7, columns k..k+7 of A and b rows
 *        k..k+7, columns c..c+7 of B, every accumulator stays on one block (r, c) of the
 *        64x64 tile at A rows 0..63 and B columns 0..63, takes each 8 columns k of 0..BK-1
 *        once (BK a multiple of 16), and the 4 x 16 accumulators cover the 64 blocks once;
 *     2. the staging arrays are the kernel's own threadgroup arrays of half or bfloat (or
 *        arrays of such buffers, X[2][n]), each named only by 16-byte chunk stores
 *        `*(threadgroup V *)(&X[i] + j ...) = v` and by those loads, directly or through a
 *        pointer variable set once to `&X[b][i]` and read by nothing else (so the backend owns
 *        their layout: each chunk store becomes a store of the same 16 bytes at their place
 *        in wgmma's layout, prelude.cuh en_wg_store_sw (swizzled rows, the default: emit.c
 *        wg_swizzles) or en_wg_store (8x8 core matrices)); the nest reads one buffer, named by an
 *        expression of constants and variables never assigned; a threadgroup barrier lies
 *        between every top-level statement of the K loop body that stores chunks and the
 *        nest that follows it (around the loop), and between the nest and a store later in
 *        the same pass unless that store is into another buffer (`b ^ 1` of the nest's b:
 *        the pipelined form); stores before the loop have a barrier before the nest;
 *     3. the accumulators are named nowhere else in the K loop, so they can live in
 *        wgmma's registers during it: they move there through shared memory before the
 *        loop and back after it, into the same variables (any use before or after stays);
 *     4. the K loop runs alike in the whole threadgroup: its exit test, start and step read
 *        only uniform values, it is left only by that test, and no `return` is in the kernel.
 *   The 128-thread warpgroup is a run-time fact: emit.c emits the kernel body twice, the
 *   wgmma form in an entry point of its own (sm_90a only) that driver.c takes when every
 *   threadgroup of a dispatch has exactly 128 threads.
 *   By default a plan is made only where the K loop also copies the next slice into the
 *   other buffer with no barrier after the nest (the pipelined form: the copy runs beside
 *   the MMAs), or where copy and multiplies take turns and wgmma_pipe.c pipelines them
 *   itself; where they take turns as written, wgmma measured slower than mma.sync
 *   (en_cuda_wgmma_plan). $ENIGMA_CUDA_WGMMA=all plans those too (tests, timing).
 *   In the pipelined form the next slice's loads and stores become asynchronous copies
 *   where wgmma_copy.c proves it may (plan->copies; its header says when). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define EN_WG_TILE 64   /* rows of A and columns of B a plan multiplies: m64n64 */
#define EN_WG_GROUPS 4  /* SIMD groups of the warpgroup */

typedef struct finder {
    const ir_func *f;
    en_arena *arena;
    const ir_var *sg;            /* simdgroup_index_in_threadgroup */
    int64_t sg_value;            /* ... as evaluated */
    const en_mad_plan *nest;
    const en_mad *at;            /* the nest's loop variables are this operation's */
    int depth;                   /* of locals evaluated through their initializers */
} finder;

/* ---- values for one SIMD group ------------------------------------------------------------- */
static const ir_expr *initializer_of(const ir_func *f, const ir_var *v) {
    const ir_stmt *body = f->body;
    for (int i = 0; i < body->stmt_count; i++)
        if (body->stmts[i]->kind == IR_S_DECL && body->stmts[i]->var == v) return body->stmts[i]->value;
    return NULL;
}

/* a variable's value in SIMD group fd->sg_value at the nest point fd->at: the nest's loop
 * variables, the SIMD group index, and locals set once at the kernel's top from those */
static bool group_value(const void *ctx, const ir_var *v, int64_t *out) {
    finder *fd = (finder *)ctx;
    if (v == fd->sg) { *out = fd->sg_value; return true; }
    for (int i = 0; fd->nest && fd->at && i < fd->nest->var_count; i++)
        if (fd->nest->vars[i] == v) { *out = fd->at->values[i]; return true; }
    if (v->storage != IR_VAR_LOCAL || v->is_assigned || v->address_taken || fd->depth > 8) return false;
    const ir_expr *init = initializer_of(fd->f, v);
    if (!init) return false;
    fd->depth++;
    bool ok = ir_eval_int(init, group_value, fd, out);
    fd->depth--;
    return ok;
}

/* ---- pointers into a staging array ---------------------------------------------------------- */
typedef struct decl_search {
    const ir_var *v;
    const ir_stmt *found;
} decl_search;
static bool declares(const ir_stmt *s, const void *search) {
    decl_search *d = (decl_search *)search;
    if (s->kind != IR_S_DECL || s->var != d->v) return false;
    d->found = s;
    return true;
}

/* the declaration of v in s (a statement nested anywhere), or NULL */
const ir_stmt *en_cuda_wgmma_decl_of(const ir_stmt *s, const ir_var *v) {
    decl_search d = {v, NULL};
    ir_stmt_any_in(s, declares, &d);
    return d.found;
}

static bool is_16_bit(const ir_type *t) { return t && (t->kind == IR_T_F16 || t->kind == IR_T_BF16); }

/* p = &X[i] + j + ..., or &X[b][i] + j + ... (X an array of buffers, b the buffer), or a
 * pointer variable set once to one of those, plus terms (through_var): X a kernel-scope
 * threadgroup array of 16-bit floats, the buffer b and the offset terms (i, j, ...), or false */
static bool staging_pointer(const ir_func *f, const ir_expr *p, bool through_var, en_wg_pointer *out) {
    while (p->kind == IR_E_PTR_OFFSET) {
        if (out->term_count == EN_WG_MAX_TERMS || !ir_is_integer(p->args[1]->type)) return false;
        out->terms[out->term_count++] = p->args[1];
        p = p->args[0];
    }
    if (p->kind == IR_E_PTRCAST) {
        /* a pointer to const of the same elements (`threadgroup const T *as = &As[cur][0]`) */
        if (p->type->kind != IR_T_PTR || p->args[0]->type->kind != IR_T_PTR || p->type->elem->kind != p->args[0]->type->elem->kind)
            return false;
        p = p->args[0];
    }
    if (p->kind == IR_E_VAR && through_var && !out->via) {
        const ir_var *v = p->var;
        const ir_stmt *d = v->storage == IR_VAR_LOCAL && !v->is_assigned && !v->address_taken && v->type->kind == IR_T_PTR
                               ? en_cuda_wgmma_decl_of(f->body, v) : NULL;
        if (!d || !d->value) return false;
        out->via = v;
        return staging_pointer(f, d->value, false, out);
    }
    if (p->kind != IR_E_ADDR || p->args[0]->kind != IR_E_INDEX || !ir_is_integer(p->args[0]->args[1]->type)) return false;
    const ir_expr *x = p->args[0]->args[0];
    if (x->kind == IR_E_INDEX && x->type->kind == IR_T_ARRAY && ir_is_integer(x->args[1]->type)) {
        out->buffer = x->args[1];
        x = x->args[0];
    }
    if (x->kind != IR_E_VAR || x->type->kind != IR_T_ARRAY) return false;
    const ir_type *rows = out->buffer ? x->type->elem : x->type;
    if (rows->kind != IR_T_ARRAY || !is_16_bit(rows->elem)) return false;
    bool kernel_scope = false;
    for (int i = 0; i < f->threadgroup_vars.count; i++) kernel_scope |= f->threadgroup_vars.items[i] == x->var;
    if (!kernel_scope || out->term_count == EN_WG_MAX_TERMS) return false;
    out->terms[out->term_count++] = p->args[0]->args[1];
    out->array = x->var;
    out->elements = (int64_t)rows->count;
    return true;
}

static bool new_staging_pointer(const ir_func *f, const ir_expr *p, bool through_var, en_wg_pointer *out) {
    memset(out, 0, sizeof *out);
    return staging_pointer(f, p, through_var, out);
}

static const ir_expr *strip_converts(const ir_expr *x) {
    while (x && x->kind == IR_E_CONVERT && ir_is_integer(x->type)) x = x->args[0];
    return x;
}

/* the same buffer of an array of buffers in both (no buffer: the array itself) */
static bool same_buffer(const ir_expr *a, const ir_expr *b) {
    a = strip_converts(a), b = strip_converts(b);
    if (!a || !b) return a == b;
    if (a == b) return true;
    if (a->kind == IR_E_CONST && b->kind == IR_E_CONST) return a->c.u == b->c.u;
    return a->kind == IR_E_VAR && b->kind == IR_E_VAR && a->var == b->var && !a->var->is_assigned;
}

/* surely another buffer than b wherever both are evaluated in one pass of the loop body:
 * unequal constants, or b ^ c (c a nonzero constant) of a variable b never assigned */
static bool other_buffer(const ir_expr *a, const ir_expr *b) {
    a = strip_converts(a), b = strip_converts(b);
    if (!a || !b) return false;
    if (a->kind == IR_E_CONST && b->kind == IR_E_CONST) return a->c.u != b->c.u;
    for (int swap = 0; swap < 2; swap++) {
        const ir_expr *x = swap ? b : a, *y = swap ? a : b;
        if (x->kind == IR_E_BINARY && x->op == IR_OP_XOR && x->args[1]->kind == IR_E_CONST && x->args[1]->c.u != 0 &&
            same_buffer(x->args[0], y) && strip_converts(y)->kind == IR_E_VAR)
            return true;
    }
    return false;
}

/* the element offset of p, in SIMD group fd->sg_value */
static bool pointer_offset(finder *fd, const en_wg_pointer *p, int64_t *out) {
    *out = 0;
    for (int i = 0; i < p->term_count; i++) {
        int64_t t;
        if (!ir_eval_int(p->terms[i], group_value, fd, &t)) return false;
        *out += t;
    }
    return true;
}

/* ---- walking the kernel ---------------------------------------------------------------------- */
typedef struct counter {
    const ir_var *v;
    int n;
} counter;

static bool count_var(const ir_expr *x, const void *ctx) {
    counter *c = (counter *)ctx;
    if (x->kind == IR_E_VAR && x->var == c->v) c->n++;
    return false;
}

int en_cuda_wgmma_uses(const ir_stmt *s, const ir_var *v) {
    counter c = {v, 0};
    ir_stmt_any_expr(s, count_var, &c);
    return c.n;
}

/* the chunk store `*(threadgroup V *)p = value` of a 16-byte V into a staging array */
static bool chunk_store(const ir_func *f, const ir_stmt *s, en_wg_pointer *p) {
    if (s->kind != IR_S_ASSIGN || s->place->kind != IR_E_DEREF) return false;
    const ir_expr *cast = s->place->args[0];
    if (cast->kind != IR_E_PTRCAST || cast->type->kind != IR_T_PTR || cast->type->space != IR_SPACE_THREADGROUP ||
        cast->type->elem->size != 16)
        return false;
    return new_staging_pointer(f, cast->args[0], false, p);
}

typedef struct stores {
    const ir_func *f;
    en_arena *arena;
    EN_VEC(en_wg_pointer) found;
} stores;

static void add_chunk_store(const ir_stmt *s, void *stores_ctx) {
    stores *st = stores_ctx;
    en_wg_pointer p;
    if (!chunk_store(st->f, s, &p)) return;
    p.store = s;
    EN_PUSH(st->arena, st->found, p);
}

/* every chunk store in s, appended to st */
static void find_chunk_stores(stores *st, const ir_stmt *s) { ir_stmt_each(s, add_chunk_store, st); }

static bool is_barrier(const ir_stmt *s) {
    int64_t flags;
    return s->kind == IR_S_INTRINSIC && s->intrinsic == IR_I_BARRIER_THREADGROUP && s->arg_count >= 1 &&
           s->args[0]->kind == IR_E_CONST && ((flags = (int64_t)s->args[0]->c.u) & IR_MEM_THREADGROUP);
}

static bool is_return(const ir_stmt *s) { return s->kind == IR_S_RETURN; }


static bool reads_varying(const ir_expr *x, const void *unused) {
    (void)unused;
    return x->kind == IR_E_VAR && !x->var->uniform;
}

/* a barrier among stmts[from+1 .. to-1], counting on around the loop's end when to <= from */
static bool barrier_between(ir_stmt *const *stmts, int n, int from, int to) {
    for (int i = (from + 1) % n; i != to; i = (i + 1) % n)
        if (is_barrier(stmts[i])) return true;
    return false;
}

/* ---- the nest ---------------------------------------------------------------------------------- */
static const ir_var *root_var(const ir_expr *x) {
    while (x && (x->kind == IR_E_INDEX || x->kind == IR_E_FIELD)) x = x->args[0];
    return x && x->kind == IR_E_VAR ? x->var : NULL;
}

static bool declared_in_nest(const en_mad_plan *nest, const ir_var *v) {
    for (int i = 0; i < nest->decl_count; i++)
        if (nest->decls[i] == v) return true;
    return false;
}

static bool const_int(const ir_expr *x, int64_t *out) {
    if (x->kind != IR_E_CONST || !ir_is_integer(x->type)) return false;
    *out = ir_is_signed(x->type) ? x->c.i : (int64_t)x->c.u;
    return true;
}

/* a simdgroup_load of the nest as wgmma reads it: from a staging array, untransposed, at
 * origin (0, 0), with a constant stride */
static bool plain_load(const ir_func *f, const en_mad *m, en_wg_pointer *p, int64_t *stride) {
    const ir_stmt *op = m->op;
    if (op->arg_count != 4 || !new_staging_pointer(f, op->args[0], true, p) || !const_int(op->args[1], stride)) return false;
    const ir_expr *origin = op->args[2], *transpose = op->args[3];
    if (origin->kind == IR_E_SPLAT) origin = origin->args[0];
    int64_t o, t;
    return const_int(origin, &o) && o == 0 && transpose->kind == IR_E_CONST && (t = (int64_t)transpose->c.u, t == 0);
}

static int load_before(const en_mad_plan *nest, const char *key, int before) {
    for (int i = before - 1; i >= 0; i--)
        if (nest->mads[i].kind == EN_MAD_LOAD && nest->mads[i].writes && key && strcmp(nest->mads[i].writes, key) == 0)
            return i;
    return -1;
}

/* the staging array v is laid out rows of `row` elements, each 8 a core matrix's width */
static bool usable_array(int64_t n, int64_t row, int64_t rows_needed, int64_t cols_needed) {
    return row > 0 && row % 8 == 0 && n % row == 0 && (n / row) % 8 == 0 && n / row >= rows_needed && row >= cols_needed &&
           row * 16 < (1 << 18);
}

/* the buffer expression x (NULL: none) reads only constants and variables never assigned
 * that are parameters or declared at the top of the kernel or of the K loop body before the
 * nest: emitted at the nest, it is the buffer the loads' pointers were made from */
static bool stable(const ir_stmt *body, const ir_stmt *k_body, int nest_at, const ir_expr *x) {
    if (!x) return true;
    switch (x->kind) {
    case IR_E_CONST: return true;
    case IR_E_CONVERT: case IR_E_UNARY: return stable(body, k_body, nest_at, x->args[0]);
    case IR_E_BINARY: return stable(body, k_body, nest_at, x->args[0]) && stable(body, k_body, nest_at, x->args[1]);
    case IR_E_VAR: {
        const ir_var *v = x->var;
        if (v->is_assigned || v->address_taken) return false;
        if (v->storage != IR_VAR_LOCAL) return true;
        for (int i = 1; i < nest_at; i++)
            if (k_body->stmts[i]->kind == IR_S_DECL && k_body->stmts[i]->var == v) return true;
        for (int i = 0; i < body->stmt_count; i++)
            if (body->stmts[i]->kind == IR_S_DECL && body->stmts[i]->var == v) return true;
        return false;
    }
    default: return false;
    }
}

/* conditions 1 and 3 on the nest starting at body->stmts[at]: fills plan's nest facts */
static bool prove_product(finder *fd, const ir_stmt *k_body, int at, en_wg_plan *plan) {
    const ir_func *f = fd->f;
    en_mad_plan *nest = &plan->nest;
    if (en_cuda_mad_nest(k_body->stmts, k_body->stmt_count, at, fd->arena, nest) != 2) return false;
    fd->nest = nest;
    int key_count = 0;
    const char *keys[EN_WG_ACCUMULATORS];
    /* per SIMD group and accumulator: its block, and the K blocks it took */
    int block[EN_WG_GROUPS][EN_WG_ACCUMULATORS];
    uint64_t k_seen[EN_WG_GROUPS][EN_WG_ACCUMULATORS];
    memset(k_seen, 0, sizeof k_seen);
    int64_t k_blocks = 0, a_elements = 0, b_elements = 0;
    for (int i = 0; i < nest->count; i++) {
        const en_mad *m = &nest->mads[i];
        if (m->kind == EN_MAD_DECL) continue;
        if (m->kind == EN_MAD_LOAD) {
            if (!declared_in_nest(nest, m->dest ? root_var(m->dest) : m->op->result)) return false;
            continue;
        }
        /* acc_k = a * b + acc_k, float from two 16-bit operands of one type */
        const ir_stmt *op = m->op;
        if (op->intrinsic != IR_I_MATRIX_MULTIPLY_ACCUMULATE || op->arg_count != 3 || !m->writes || !m->reads[2] ||
            strcmp(m->writes, m->reads[2]) != 0 || !m->dest)
            return false;
        const ir_type *ta = op->args[0]->type->elem, *tb = op->args[1]->type->elem;
        if (op->result->type->elem->kind != IR_T_F32 || (ta->kind != IR_T_F16 && ta->kind != IR_T_BF16) || ta->kind != tb->kind)
            return false;
        const ir_var *acc = root_var(m->dest);
        if (!acc || acc->storage != IR_VAR_LOCAL || acc->address_taken || declared_in_nest(nest, acc) ||
            (plan->acc && plan->acc != acc) || root_var(op->args[2]) != acc)
            return false;
        plan->acc = acc;
        plan->bf16 = ta->kind == IR_T_BF16;
        int k = 0;
        while (k < key_count && strcmp(keys[k], m->writes) != 0) k++;
        if (k == key_count) {
            if (key_count == EN_WG_ACCUMULATORS) return false;
            keys[key_count] = m->writes;
            plan->acc_mads[key_count++] = m;
            for (int s = 0; s < EN_WG_GROUPS; s++) block[s][k] = -1;
        }
        int la = load_before(nest, m->reads[0], i), lb = load_before(nest, m->reads[1], i);
        en_wg_pointer pa, pb;
        int64_t sa, sb;
        if (la < 0 || lb < 0 || !plain_load(f, &nest->mads[la], &pa, &sa) || !plain_load(f, &nest->mads[lb], &pb, &sb) ||
            pa.array == pb.array || nest->mads[la].op->args[0]->type->elem->kind != ta->kind ||
            nest->mads[lb].op->args[0]->type->elem->kind != ta->kind)
            return false;
        /* one buffer of each array for the whole nest */
        if ((plan->a.array && (plan->a.array != pa.array || plan->a.row != sa || !same_buffer(plan->a.buffer, pa.buffer))) ||
            (plan->b.array && (plan->b.array != pb.array || plan->b.row != sb || !same_buffer(plan->b.buffer, pb.buffer))))
            return false;
        plan->a.array = pa.array, plan->a.row = (int)sa, plan->a.buffer = pa.buffer, a_elements = pa.elements;
        plan->b.array = pb.array, plan->b.row = (int)sb, plan->b.buffer = pb.buffer, b_elements = pb.elements;
        for (int s = 0; s < EN_WG_GROUPS; s++) {
            int64_t oa, ob;
            fd->sg_value = s;
            fd->at = &nest->mads[la];
            bool ok = pointer_offset(fd, &pa, &oa);
            fd->at = &nest->mads[lb];
            ok = ok && pointer_offset(fd, &pb, &ob);
            fd->at = NULL;
            if (!ok || oa < 0 || ob < 0) return false;
            int64_t ra = oa / sa, ka = oa % sa, kb = ob / sb, cb = ob % sb;
            if (ra % 8 || ka % 8 || kb % 8 || cb % 8 || ka != kb || ra >= EN_WG_TILE || cb >= EN_WG_TILE || ka >= 64 * 8)
                return false;
            int b = (int)(ra / 8 * 8 + cb / 8);
            if (block[s][k] >= 0 && block[s][k] != b) return false;
            block[s][k] = b;
            uint64_t bit = 1ull << (ka / 8);
            if (k_seen[s][k] & bit) return false;
            k_seen[s][k] |= bit;
            if (ka / 8 + 1 > k_blocks) k_blocks = ka / 8 + 1;
        }
    }
    if (key_count != EN_WG_ACCUMULATORS || k_blocks % 2 || k_blocks == 0) return false;
    uint64_t all_k = k_blocks == 64 ? ~0ull : (1ull << k_blocks) - 1, covered = 0;
    for (int s = 0; s < EN_WG_GROUPS; s++)
        for (int k = 0; k < EN_WG_ACCUMULATORS; k++) {
            if (k_seen[s][k] != all_k || (covered >> block[s][k]) & 1u) return false;
            covered |= 1ull << block[s][k];
            plan->block[s][k] = (uint8_t)block[s][k];
        }
    plan->k_steps = (int)(k_blocks / 2);
    return usable_array(a_elements, plan->a.row, EN_WG_TILE, k_blocks * 8) &&
           usable_array(b_elements, plan->b.row, k_blocks * 8, EN_WG_TILE) && stable(f->body, k_body, at, plan->a.buffer) &&
           stable(f->body, k_body, at, plan->b.buffer);
}

/* the chunk stores into array x in statement s */
static int stores_in(const ir_func *f, const ir_stmt *s, const ir_var *x, en_arena *arena, const en_wg_pointer **out) {
    stores st = {.f = f, .arena = arena};
    find_chunk_stores(&st, s);
    int n = 0;
    for (int i = 0; i < st.found.count; i++)
        if (st.found.items[i].array == x) st.found.items[n++] = st.found.items[i];
    *out = st.found.items;
    return n;
}

/* condition 2: each staging array is named only by chunk stores and the nest's loads (each
 * load statement, or the pointer variable they read through, once), and barriers keep the
 * stores from the nest: one between a store and the nest after it (around the loop), and one
 * between the nest and a store after it in the same pass unless that store is into another
 * buffer (the pipelined form: the next slice goes to the other buffer while this one is
 * multiplied) */
static bool prove_staging(const ir_func *f, const ir_stmt *body, int loop_at, const ir_stmt *k_body, int nest_at,
                          en_wg_plan *plan, en_arena *arena) {
    stores st = {.f = f, .arena = arena};
    find_chunk_stores(&st, body);
    const en_wg_staging *arrays[2] = {&plan->a, &plan->b};
    for (int a = 0; a < 2; a++) {
        const ir_var *x = arrays[a]->array;
        int named = en_cuda_wgmma_uses(body, x), known = 0;
        for (int i = 0; i < st.found.count; i++)
            if (st.found.items[i].array == x) known++;
        /* the nest's loads: each statement once, however often it unrolls, and each pointer
         * variable they read through once (its declaration names the array) */
        const ir_stmt *seen[64];
        const ir_var *vias[8];
        int seen_count = 0, via_count = 0;
        for (int i = 0; i < plan->nest.count; i++) {
            const en_mad *m = &plan->nest.mads[i];
            if (m->kind != EN_MAD_LOAD) continue;
            bool again = false;
            for (int j = 0; j < seen_count; j++) again |= seen[j] == m->op;
            if (again) continue;
            if (seen_count == 64) return false;
            seen[seen_count++] = m->op;
            en_wg_pointer p;
            if (!new_staging_pointer(f, m->op->args[0], true, &p) || p.array != x) continue;
            if (!p.via) { known++; continue; }
            bool had = false;
            for (int j = 0; j < via_count; j++) had |= vias[j] == p.via;
            if (had) continue;
            if (via_count == 8) return false;
            vias[via_count++] = p.via;
            known++;
        }
        if (named != known) return false;
        /* a pointer variable is read by the nest's loads only */
        for (int v = 0; v < via_count; v++) {
            int loads = 0;
            for (int j = 0; j < seen_count; j++) {
                en_wg_pointer p;
                if (new_staging_pointer(f, seen[j]->args[0], true, &p) && p.via == vias[v]) loads++;
            }
            if (en_cuda_wgmma_uses(body, vias[v]) != loads) return false;
        }
        /* stores before the loop: a barrier after them, before the loop or the nest */
        const en_wg_pointer *found;
        bool stored_before = false;
        for (int i = 0; i < loop_at; i++) {
            if (stores_in(f, body->stmts[i], x, arena, &found)) stored_before = true;
            else if (stored_before && is_barrier(body->stmts[i])) stored_before = false;
        }
        bool barrier_first = false; /* a barrier in the loop body before the nest */
        for (int i = 1; i < nest_at; i++) barrier_first |= is_barrier(k_body->stmts[i]);
        if (stored_before && !barrier_first) return false;
        for (int i = loop_at + 1; i < body->stmt_count; i++)
            if (stores_in(f, body->stmts[i], x, arena, &found)) return false;
        /* stores in the loop */
        for (int i = 0; i < k_body->stmt_count; i++) {
            if (i == nest_at || i == nest_at + 1) continue;
            int n = stores_in(f, k_body->stmts[i], x, arena, &found);
            if (!n) continue;
            if (!barrier_between(k_body->stmts, k_body->stmt_count, i, nest_at)) return false;
            if (barrier_between(k_body->stmts, k_body->stmt_count, nest_at + 1, i)) continue;
            if (i < nest_at) return false; /* the nest of the same pass comes after: ordered by nothing */
            for (int j = 0; j < n; j++)
                if (!other_buffer(found[j].buffer, arrays[a]->buffer)) return false;
            plan->copy_overlaps = true;
        }
    }
    plan->stores = st.found.items;
    plan->store_count = st.found.count;
    return true;
}

/* condition 4, and that the accumulators appear in the K loop only in its nest */
static bool prove_loop(const ir_func *f, const ir_stmt *decl, const ir_stmt *loop, int nest_at, const en_wg_plan *plan) {
    const ir_stmt *k_body = loop->body;
    if (decl->kind != IR_S_DECL || !decl->value || k_body->kind != IR_S_BLOCK || k_body->stmt_count < 1) return false;
    const ir_stmt *test = k_body->stmts[0];
    if (test->kind != IR_S_IF || test->else_s) return false;
    /* the exit test `if (c) break;`, the only way out */
    const ir_stmt *brk = test->then_s;
    if (brk && brk->kind == IR_S_BLOCK && brk->stmt_count == 1) brk = brk->stmts[0];
    if (!brk || brk->kind != IR_S_BREAK || brk->target != loop) return false;
    for (int i = 1; i < k_body->stmt_count; i++)
        if (ir_stmt_jumps_to(k_body->stmts[i], loop)) return false;
    if (ir_stmt_jumps_to(loop->latch, loop)) return false;
    if (ir_expr_any(test->cond, reads_varying, NULL) || ir_expr_any(decl->value, reads_varying, NULL) ||
        ir_stmt_any_expr(loop->latch, reads_varying, NULL) || !decl->var->uniform)
        return false;
    if (ir_stmt_any(f->body, is_return)) return false;
    for (int i = 0; i < k_body->stmt_count; i++)
        if (i != nest_at && i != nest_at + 1 && en_cuda_wgmma_uses(k_body->stmts[i], plan->acc)) return false;
    return !en_cuda_wgmma_uses(loop->latch, plan->acc) && !ir_expr_any(test->cond, count_var, &(counter){plan->acc, 0});
}

/* $ENIGMA_CUDA_WGMMA: unset (or 1), wgmma where the next slice's copy runs beside the MMAs
 * (see en_cuda_wgmma_plan), the staging swizzled (emit.c); "all", also where it does not;
 * "spread", all with the staging in 8x8 cores spread over the rows' padding (the layout
 * before swizzling); "packed", all with the cores back to back; "0", never (sm_90 and
 * mma.sync): the last four for A/B timing and tests */
static const char *wgmma_mode(void) {
    const char *mode = getenv("ENIGMA_CUDA_WGMMA");
    return mode ? mode : "1";
}

bool en_cuda_wgmma_enabled(void) { return strcmp(wgmma_mode(), "0") != 0; }

bool en_cuda_wgmma_plan(const ir_func *f, en_arena *arena, en_wg_plan *plan) {
    memset(plan, 0, sizeof *plan);
    if (!en_cuda_wgmma_enabled()) return false;
    finder fd = {.f = f, .arena = arena};
    for (int i = 0; i < f->param_count; i++)
        if (f->params[i]->param_kind == IR_PARAM_ATTR && f->params[i]->attr == IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP &&
            !f->params[i]->is_assigned)
            fd.sg = f->params[i];
    if (!fd.sg) return false;
    const ir_stmt *body = f->body;
    for (int i = 0; i + 1 < body->stmt_count; i++) {
        const ir_stmt *loop = body->stmts[i + 1];
        if (body->stmts[i]->kind != IR_S_DECL || loop->kind != IR_S_LOOP || !loop->body || loop->body->kind != IR_S_BLOCK)
            continue;
        const ir_stmt *k_body = loop->body;
        for (int j = 1; j + 1 < k_body->stmt_count; j++) {
            if (k_body->stmts[j]->kind != IR_S_DECL || k_body->stmts[j + 1]->kind != IR_S_LOOP) continue;
            en_wg_plan p;
            memset(&p, 0, sizeof p);
            fd.nest = NULL;
            if (!prove_product(&fd, k_body, j, &p) || !prove_loop(f, body->stmts[i], loop, j, &p) ||
                !prove_staging(f, body, i + 1, k_body, j, &p, arena))
                continue;
            /* A K step whose copy and multiplies take turns (copy, barrier, multiply,
             * barrier) runs slower on wgmma than on mma.sync: 96.4 against 110.1 TFLOP/s
             * on an H100 (bench/cuda/NOTES.md), as nothing hides wgmma's longer latency;
             * with the next slice's copy beside the MMAs (the pipelined form) it runs
             * faster, 180.6 against 157.0. */
            const char *mode = wgmma_mode();
            bool every = strcmp(mode, "all") == 0 || strcmp(mode, "spread") == 0 || strcmp(mode, "packed") == 0;
            p.k_decl = body->stmts[i];
            p.k_loop = loop;
            p.nest_decl = k_body->stmts[j];
            p.cores = strcmp(mode, "packed") == 0 || strcmp(mode, "spread") == 0;
            /* the copy-then-multiply form pipelined by the compiler (wgmma_pipe.c) runs faster
             * on wgmma than as written on mma.sync (180 against 110 TFLOP/s), so it takes
             * wgmma too */
            if (!p.cores) en_cuda_wgmma_pipeline(&p);
            if (!p.copy_overlaps && !p.pipe && !every) continue;
            p.packed = strcmp(mode, "packed") == 0;
            en_cuda_wgmma_copies(f, arena, &p);
            en_cuda_wgmma_merge(f, arena, &p);
            *plan = p;
            return true;
        }
    }
    return false;
}

const en_wg_pointer *en_cuda_wgmma_store(const en_wg_plan *plan, const ir_stmt *s) {
    for (int i = 0; plan && i < plan->store_count; i++)
        if (plan->stores[i].store == s) return &plan->stores[i];
    return NULL;
}
