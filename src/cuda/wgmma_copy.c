/* wgmma_copy.c — the pipelined GEMM's next-slice copy as asynchronous copies (cp.async).
 *
 * The pipelined form of the bench GEMM (bench/cuda/gemm_simdgroup.metal, GEMM_PIPELINED) loads
 * the next K slice's 16-byte chunks from device memory into a register array before the
 * multiply nest (`ra[u] = *(device const uint4 *)(A + ...)`) and stores them into the other
 * staging buffer after it (`*(threadgroup uint4 *)(&As[cur ^ 1][...]) = ra[u]`). In the
 * warpgroup form the registers cost threadgroups an SM and each warp waits for its loads at
 * the stores (bench/cuda/NOTES.md, "Second run on an H100": long-scoreboard stalls). Where
 * the value goes nowhere but that store, the load can become `cp.async.cg.shared.global`
 * of the same 16 bytes to the store's place, issued where the load was: the copy runs while
 * the nest multiplies and no register holds it.
 *
 * Needs: a plan from wgmma.c (en_cuda_wgmma_plan), which proved that the nest reads one
 *   buffer of each staging array, that the stores after the nest go to another buffer, that
 *   the staging arrays are named only by chunk stores and the nest's loads, and that the
 *   MMAs are waited for before every barrier.
 * Gives: plan->copies: pairs (load, store) that emit.c emits as one en_wg_copy at the load (the
 *   store's place computed there, the store's statement left out), with `cp.async.wait_all`
 *   before every threadgroup barrier of the warpgroup form. A pair is taken when:
 *     1. the load is `reg[u1] = *(device V *)p` (V of 16 bytes, reg a thread's own
 *        array of V) and the store `*(threadgroup V *)q = reg[u2]`, each a top-level statement
 *        of a counted loop (`T u = c; loop { if (x) break; ... } latch { u = ... }`, left only
 *        by that test, u assigned only in the latch) whose index sequences, evaluated, are
 *        the same and inside reg; each loop a top-level statement of the K loop body or of
 *        the then-branch of a top-level `if (g)` (no else), with the same g (a variable
 *        never assigned) or none for both: slot u of the load pass is exactly slot u of the
 *        store pass, and the store reads no other value of reg;
 *     2. reg is named in the K loop only by these two statements and nowhere after the K
 *        loop (so the register value has no other reader), and is not address-taken;
 *     3. the load comes before the nest and the store after it (wgmma.c: into another buffer
 *        than the nest reads, with no barrier between nest and store), no barrier lies
 *        between load and store, and a barrier follows the store in the same pass (where
 *        the copies are waited for);
 *     4. the store's place (its buffer, offset terms, and the statements of its loop body
 *        before it, which must be declarations of variables never assigned or other chunk
 *        stores) reads only constants, its own loop's index (bound to the load's) and
 *        variables never assigned that are parameters or declared at the top of the kernel or
 *        of the K loop body before the load: evaluated at the load, it is the same place;
 *     5. the K loop writes no device memory and calls nothing (outside the nest, which loads
 *        and multiplies only): the source bytes read by the copy are those the load read;
 *     6. every chunk store into the array in the K loop is such a pair, and for each thread
 *        0..127 (the warpgroup) the pairs' chunks into one array, evaluated over all slots,
 *        do not overlap: copies are unordered among themselves until the wait, and no plain
 *        store of the same pass can land under one.
 *   Alignment is checked where it runs (prelude.cuh en_wg_copy_sw, en_wg_copy): a chunk
 *   whose device address is not 16-byte aligned, or whose place is not a whole 16-byte chunk
 *   of the layout, takes the load and the plain store at the load point instead (the place is
 *   free there too); chunks whose place is padding (dropped by the stores) are not copied.
 *   The copies want the swizzled staging (emit.c wg_swizzles), where a row's chunks stay
 *   together as in global memory: on the 8x8-core layouts a warp's copies split into 16-byte
 *   pieces and ran 2.7x slower than the register copy (bench/RESULTS.md, issue 11, runs 9-10).
 * $ENIGMA_CUDA_CPASYNC=0 takes no pairs (en_cuda_wgmma_copies_enabled), for A/B timing. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define WARPGROUP_THREADS 128
#define MAX_TRIPS 64

bool en_cuda_wgmma_copies_enabled(void) {
    const char *mode = getenv("ENIGMA_CUDA_CPASYNC");
    return !mode || strcmp(mode, "0") != 0;
}

/* ---- where a statement sits -------------------------------------------------------------- */
typedef struct site {
    int top;                 /* index of its K loop body statement */
    const ir_var *guard;     /* the `if (g)` around its loop, or NULL */
    const ir_stmt *loop;     /* the counted loop */
    const ir_var *index;     /* ... its index */
    const ir_stmt *init;     /* ... the index's declaration */
    int at;                  /* the statement's place in the loop body */
    int64_t trips[MAX_TRIPS];
    int trip_count;
} site;

/* s itself assigns v, whole or in part (`reg[u] = `) */
static bool assigns_here(const ir_stmt *s, const void *v) {
    if (s->kind == IR_S_INTRINSIC || s->kind == IR_S_CALL) return s->result == v;
    if (s->kind != IR_S_ASSIGN) return false;
    const ir_expr *p = s->place;
    while (p->kind == IR_E_INDEX || p->kind == IR_E_FIELD || p->kind == IR_E_SWIZZLE) p = p->args[0];
    return p->kind == IR_E_VAR && p->var == v;
}

static bool assigns(const ir_stmt *s, const ir_var *v) { return ir_stmt_any_in(s, assigns_here, v); }


typedef struct one_var {
    const ir_var *v;
    int64_t value;
} one_var;

static bool value_of_one(const void *ctx, const ir_var *v, int64_t *out) {
    const one_var *o = (const one_var *)ctx;
    if (v != o->v) return false;
    *out = o->value;
    return true;
}

/* the index values of a counted loop, by evaluation (false: not such a loop) */
static bool trips_of(const ir_stmt *init, const ir_stmt *loop, site *out) {
    const ir_stmt *body = loop->body, *latch = loop->latch;
    if (init->kind != IR_S_DECL || !init->value || !ir_is_integer(init->var->type) || init->var->address_taken ||
        !body || body->kind != IR_S_BLOCK || body->stmt_count < 1 || !latch)
        return false;
    const ir_var *u = init->var;
    if (latch->kind == IR_S_BLOCK && latch->stmt_count == 1) latch = latch->stmts[0];
    if (latch->kind != IR_S_ASSIGN || latch->place->kind != IR_E_VAR || latch->place->var != u) return false;
    const ir_stmt *test = body->stmts[0], *brk = test->kind == IR_S_IF ? test->then_s : NULL;
    if (test->kind != IR_S_IF || test->else_s) return false;
    if (brk && brk->kind == IR_S_BLOCK && brk->stmt_count == 1) brk = brk->stmts[0];
    if (!brk || brk->kind != IR_S_BREAK || brk->target != loop) return false;
    for (int i = 1; i < body->stmt_count; i++)
        if (ir_stmt_jumps_to(body->stmts[i], loop) || assigns(body->stmts[i], u)) return false;
    one_var o = {u, 0};
    if (!ir_eval_int(init->value, value_of_one, &(one_var){NULL, 0}, &o.value)) return false;
    out->trip_count = 0;
    for (;;) {
        int64_t stop, next;
        if (!ir_eval_int(test->cond, value_of_one, &o, &stop)) return false;
        if (stop) return true;
        if (out->trip_count == MAX_TRIPS) return false;
        out->trips[out->trip_count++] = o.value;
        if (!ir_eval_int(latch->value, value_of_one, &o, &next)) return false;
        o.value = next;
    }
}

/* s (a statement of the K loop body at k_body->stmts[top], or of the then-branch of an if
 * there) as a top-level statement of a counted loop: the loop, its index and guard */
static bool find_in_loops(const ir_stmt *container, const ir_stmt *target, site *out) {
    for (int j = 1; j < container->stmt_count; j++) {
        const ir_stmt *loop = container->stmts[j];
        if (loop->kind != IR_S_LOOP || !loop->body || loop->body->kind != IR_S_BLOCK) continue;
        for (int m = 1; m < loop->body->stmt_count; m++) {
            if (loop->body->stmts[m] != target) continue;
            if (!trips_of(container->stmts[j - 1], loop, out)) return false;
            out->loop = loop;
            out->init = container->stmts[j - 1];
            out->index = out->init->var;
            out->at = m;
            return true;
        }
    }
    return false;
}

static bool locate(const ir_stmt *k_body, const ir_stmt *target, site *out) {
    memset(out, 0, sizeof *out);
    for (int i = 1; i < k_body->stmt_count; i++) {
        const ir_stmt *s = k_body->stmts[i];
        out->top = i;
        if (s->kind == IR_S_IF && !s->else_s && s->then_s && s->then_s->kind == IR_S_BLOCK) {
            if (s->cond->kind != IR_E_VAR || s->cond->var->is_assigned || s->cond->var->address_taken) continue;
            out->guard = s->cond->var;
            if (find_in_loops(s->then_s, target, out)) return true;
            out->guard = NULL;
        }
    }
    /* a loop at the K loop body's top: the body itself as the container */
    out->guard = NULL;
    if (!find_in_loops(k_body, target, out)) return false;
    for (out->top = 1; k_body->stmts[out->top] != out->loop; out->top++) {}
    return true;
}

/* ---- the place, evaluated at the load ------------------------------------------------------ */
typedef struct place_ctx {
    const ir_func *f;
    const ir_stmt *k_decl;       /* the K loop's index declaration (top of the kernel) */
    const ir_stmt *k_body;
    int load_top;
    const ir_stmt *store_body;   /* the store loop's body */
    int store_at;
    const ir_var *index;         /* the store loop's index */
    const ir_var *tid;           /* thread_index_in_threadgroup (evaluation only) */
    const ir_var *sg;            /* simdgroup_index_in_threadgroup (evaluation only) */
    int64_t tid_value, index_value;
    int depth;
} place_ctx;

static const ir_stmt *body_decl(const ir_stmt *block, int from, int to, const ir_var *v) {
    for (int i = from; i < to; i++)
        if (block->stmts[i]->kind == IR_S_DECL && block->stmts[i]->var == v) return block->stmts[i];
    return NULL;
}

/* a top-level declaration of the kernel before the K loop */
static const ir_stmt *kernel_decl(const place_ctx *c, const ir_var *v) {
    const ir_stmt *body = c->f->body;
    for (int i = 0; i < body->stmt_count && body->stmts[i] != c->k_decl; i++)
        if (body->stmts[i]->kind == IR_S_DECL && body->stmts[i]->var == v) return body->stmts[i];
    return NULL;
}

static bool available(const place_ctx *c, const ir_expr *x) {
    switch (x->kind) {
    case IR_E_CONST: return true;
    case IR_E_CONVERT: case IR_E_UNARY: case IR_E_BINARY: case IR_E_SELECT:
        for (int i = 0; i < x->arg_count; i++)
            if (!available(c, x->args[i])) return false;
        return true;
    case IR_E_VAR: {
        const ir_var *v = x->var;
        if (v == c->index) return true;
        if (v->is_assigned || v->address_taken) return false;
        if (v->storage != IR_VAR_LOCAL) return false;
        for (int i = 0; i < c->f->param_count; i++)
            if (c->f->params[i] == v) return true;
        return body_decl(c->store_body, 1, c->store_at, v) || kernel_decl(c, v) ||
               body_decl(c->k_body, 1, c->load_top, v);
    }
    default: return false;
    }
}

static bool place_value(const void *ctx, const ir_var *v, int64_t *out) {
    place_ctx *c = (place_ctx *)ctx;
    if (v == c->index) { *out = c->index_value; return true; }
    if (v == c->tid) { *out = c->tid_value; return true; }
    if (v == c->sg) { *out = c->tid_value / 32; return true; }
    if (c->depth > 16) return false;
    const ir_stmt *d = body_decl(c->store_body, 1, c->store_at, v);
    if (!d) d = kernel_decl(c, v);
    if (!d || !d->value || v->is_assigned) return false;
    c->depth++;
    bool ok = ir_eval_int(d->value, place_value, c, out);
    c->depth--;
    return ok;
}

/* ---- what the K loop does besides ------------------------------------------------------------ */
static bool local_place(const ir_expr *p) {
    while (p->kind == IR_E_INDEX || p->kind == IR_E_FIELD || p->kind == IR_E_SWIZZLE) {
        if (p->kind == IR_E_INDEX && p->args[0]->type->kind == IR_T_PTR) return false;
        p = p->args[0];
    }
    return p->kind == IR_E_VAR && p->var->storage == IR_VAR_LOCAL;
}

/* s writes only thread-local variables and staging chunks (the plan's stores), calls nothing,
 * and waits at threadgroup barriers only */
static bool quiet(const en_wg_plan *plan, const ir_stmt *s) {
    if (!s) return true;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (!quiet(plan, s->stmts[i])) return false;
        return true;
    case IR_S_IF: return quiet(plan, s->then_s) && quiet(plan, s->else_s);
    case IR_S_LOOP: return quiet(plan, s->body) && quiet(plan, s->latch);
    case IR_S_DECL: case IR_S_BREAK: case IR_S_CONTINUE: return true;
    case IR_S_ASSIGN: return local_place(s->place) || en_cuda_wgmma_store(plan, s);
    case IR_S_INTRINSIC: return s->intrinsic == IR_I_BARRIER_THREADGROUP;
    default: return false;
    }
}

/* ---- one pair ------------------------------------------------------------------------------ */
bool en_cuda_is_threadgroup_barrier(const ir_stmt *s) {
    return s->kind == IR_S_INTRINSIC && s->intrinsic == IR_I_BARRIER_THREADGROUP;
}


/* the load `reg[u] = *(device V *)p` of the K loop body before the nest, or NULL */
static const ir_stmt *load_into(const ir_stmt *s, const ir_var *reg) {
    if (!s) return NULL;
    const ir_stmt *found = NULL;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count && !found; i++) found = load_into(s->stmts[i], reg);
        return found;
    case IR_S_IF: return (found = load_into(s->then_s, reg)) ? found : load_into(s->else_s, reg);
    case IR_S_LOOP: return (found = load_into(s->body, reg)) ? found : load_into(s->latch, reg);
    case IR_S_ASSIGN: {
        const ir_expr *p = s->place, *v = s->value;
        if (p->kind != IR_E_INDEX || p->args[0]->kind != IR_E_VAR || p->args[0]->var != reg || p->args[1]->kind != IR_E_VAR)
            return NULL;
        if (v->kind != IR_E_DEREF || v->args[0]->type->kind != IR_T_PTR) return NULL;
        const ir_type *pt = v->args[0]->type;
        /* device only: cp.async reads global memory (a constant buffer may not be there) */
        if (pt->space != IR_SPACE_DEVICE || pt->elem->size != 16 || pt->elem != reg->type->elem)
            return NULL;
        return s;
    }
    default: return NULL;
    }
}

static bool pair(const ir_func *f, const en_wg_plan *plan, const ir_stmt *k_body, int nest_at, const en_wg_pointer *to,
                 en_wg_copy *out) {
    const ir_stmt *store = to->store;
    const ir_expr *value = store->value;
    if (value->kind != IR_E_INDEX || value->args[0]->kind != IR_E_VAR || value->args[1]->kind != IR_E_VAR) return false;
    const ir_var *reg = value->args[0]->var;
    if (reg->storage != IR_VAR_LOCAL || reg->address_taken || reg->type->kind != IR_T_ARRAY || reg->type->elem->size != 16)
        return false;
    const ir_type *cast = store->place->args[0]->type;
    if (cast->elem != reg->type->elem) return false;
    /* condition 2: named by the load and the store in the K loop, nowhere after it */
    const ir_stmt *body = f->body;
    int k_at = 0;
    while (k_at < body->stmt_count && body->stmts[k_at] != plan->k_loop) k_at++;
    for (int i = k_at + 1; i < body->stmt_count; i++)
        if (en_cuda_wgmma_uses(body->stmts[i], reg)) return false;
    if (en_cuda_wgmma_uses(plan->k_loop, reg) != 2) return false;
    const ir_stmt *load = NULL;
    for (int i = 1; i < nest_at && !load; i++) load = load_into(k_body->stmts[i], reg);
    if (!load) return false;
    /* conditions 1 and 3 */
    site ls, ss;
    if (!locate(k_body, load, &ls) || !locate(k_body, store, &ss)) return false;
    if (load->place->args[1]->var != ls.index || value->args[1]->var != ss.index) return false;
    if (ls.top >= nest_at || ss.top <= nest_at + 1 || ls.guard != ss.guard || ls.trip_count != ss.trip_count) return false;
    for (int i = 0; i < ls.trip_count; i++)
        if (ls.trips[i] != ss.trips[i] || ls.trips[i] < 0 || ls.trips[i] >= (int64_t)reg->type->count) return false;
    for (int i = ls.top + 1; i < ss.top; i++)
        if (en_cuda_is_threadgroup_barrier(k_body->stmts[i])) return false;
    bool barrier_after = false;
    for (int i = ss.top + 1; i < k_body->stmt_count; i++) barrier_after |= en_cuda_is_threadgroup_barrier(k_body->stmts[i]);
    if (!barrier_after) return false;
    /* condition 4 */
    place_ctx c = {.f = f, .k_decl = plan->k_decl, .k_body = k_body, .load_top = ls.top, .store_body = ss.loop->body,
                   .store_at = ss.at, .index = ss.index};
    for (int i = 1; i < ss.at; i++) {
        const ir_stmt *s = ss.loop->body->stmts[i];
        if (s->kind == IR_S_ASSIGN && en_cuda_wgmma_store(plan, s)) continue;
        if (s->kind != IR_S_DECL || !s->value || s->var->is_assigned || s->var->address_taken ||
            s->var->type->kind == IR_T_ARRAY || !available(&c, s->value))
            return false;
    }
    if (to->buffer && !available(&c, to->buffer)) return false;
    for (int i = 0; i < to->term_count; i++)
        if (!available(&c, to->terms[i])) return false;
    out->load = load;
    out->to = to;
    out->load_index = ls.index;
    out->store_index = ss.index;
    out->store_body = ss.loop->body;
    out->store_at = ss.at;
    return true;
}

/* s is t or holds it */
static bool is_stmt(const ir_stmt *s, const void *t) { return s == t; }
static bool holds(const ir_stmt *s, const ir_stmt *t) { return ir_stmt_any_in(s, is_stmt, t); }

/* condition 6 for the pairs into one array: per thread, no two chunks overlap */
static bool apart(const ir_func *f, const en_wg_plan *plan, const ir_stmt *k_body, const en_wg_copy *copies, int n) {
    place_ctx c = {.f = f, .k_decl = plan->k_decl, .k_body = k_body};
    for (int i = 0; i < f->param_count; i++) {
        const ir_var *p = f->params[i];
        if (p->param_kind != IR_PARAM_ATTR || p->is_assigned) continue;
        if (p->attr == IR_ATTR_THREAD_INDEX_IN_THREADGROUP) c.tid = p;
        if (p->attr == IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP) c.sg = p;
    }
    int64_t total = 0;
    for (int k = 0; k < n; k++) {
        site s;
        if (!locate(k_body, copies[k].to->store, &s)) return false;
        total += s.trip_count;
    }
    if (total > 256) return false;
    int64_t offsets[256];
    for (int64_t t = 0; t < WARPGROUP_THREADS; t++) {
        int m = 0;
        c.tid_value = t;
        for (int k = 0; k < n; k++) {
            site s;
            locate(k_body, copies[k].to->store, &s);
            c.store_body = s.loop->body, c.store_at = s.at, c.index = s.index;
            for (int i = 0; i < s.trip_count; i++) {
                c.index_value = s.trips[i];
                int64_t off = 0;
                for (int j = 0; j < copies[k].to->term_count; j++) {
                    int64_t v;
                    if (!ir_eval_int(copies[k].to->terms[j], place_value, &c, &v)) return false;
                    off += v;
                }
                for (int j = 0; j < m; j++)
                    if (off < offsets[j] + 8 && offsets[j] < off + 8) return false;
                offsets[m++] = off;
            }
        }
    }
    return true;
}

void en_cuda_wgmma_copies(const ir_func *f, en_arena *arena, en_wg_plan *plan) {
    plan->copies = NULL;
    plan->copy_count = 0;
    if (!en_cuda_wgmma_copies_enabled() || !plan->copy_overlaps) return;
    const ir_stmt *k_body = plan->k_loop->body;
    int nest_at = 0;
    while (nest_at < k_body->stmt_count && k_body->stmts[nest_at] != plan->nest_decl) nest_at++;
    if (nest_at == k_body->stmt_count) return;
    /* condition 5, the nest aside */
    for (int i = 0; i < k_body->stmt_count; i++)
        if (i != nest_at && i != nest_at + 1 && !quiet(plan, k_body->stmts[i])) return;
    if (!quiet(plan, plan->k_loop->latch)) return;
    en_wg_copy *found = en_alloc(arena, sizeof *found * (size_t)(plan->store_count + 1));
    int count = 0;
    const ir_var *arrays[2] = {plan->a.array, plan->b.array};
    for (int a = 0; a < 2; a++) {
        int first = count, in_loop = 0;
        bool all = true;
        for (int i = 0; i < plan->store_count; i++) {
            const en_wg_pointer *to = &plan->stores[i];
            if (to->array != arrays[a]) continue;
            if (!holds(plan->k_loop, to->store)) continue;
            in_loop++;
            if (pair(f, plan, k_body, nest_at, to, &found[count])) count++;
            else all = false;
        }
        /* condition 6 */
        if (!all || !in_loop || !apart(f, plan, k_body, found + first, count - first)) count = first;
    }
    plan->copies = found;
    plan->copy_count = count;
}

const en_wg_copy *en_cuda_wgmma_copy_load(const en_wg_plan *plan, const ir_stmt *s) {
    for (int i = 0; plan && i < plan->copy_count; i++)
        if (plan->copies[i].load == s) return &plan->copies[i];
    return NULL;
}

bool en_cuda_wgmma_copy_store(const en_wg_plan *plan, const ir_stmt *s) {
    for (int i = 0; plan && i < plan->copy_count; i++)
        if (plan->copies[i].to->store == s) return true;
    return false;
}
