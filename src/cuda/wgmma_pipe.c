/* wgmma_pipe.c — the copy-then-multiply GEMM pipelined by the compiler (wgmma entry point).
 *
 * llama.cpp's kernel_mul_mm and MLX's steel GEMM, and bench/cuda/gemm_simdgroup.metal's
 * gemm_*, copy each K slice into threadgroup arrays, pass a barrier, multiply, and pass a
 * barrier: copy and multiplies take turns, and on wgmma that form ran slower than on
 * mma.sync (bench/cuda/NOTES.md), so by default it kept mma.sync. The hand-pipelined form
 * (gemm_*_pipelined) copies the next slice into a second buffer beside the multiplies; with
 * its copies as cp.async into swizzled staging it runs 2.3x faster (bench/RESULTS.md, issue 11,
 * run 10). This step lets the compiler do that to the copy-then-multiply form: in the wgmma
 * entry point, whose staging layout the compiler owns (wgmma.c), each array gets two swizzled
 * buffers; the copy statements run once before the loop (slice 0 into buffer 0, then a wait
 * and a barrier), and in the loop as they would at the next step (the K counter one step
 * on: slice k + 1 into buffer (k + 1) % 2), before the multiplies of slice k on buffer k % 2,
 * with every chunk store a cp.async of the device load it stores; the barrier between copy
 * and multiplies goes (the slice was waited for and published by the barrier ending the
 * step before), the one ending the step waits for the copies.
 *
 * Needs: a plan from wgmma.c (prove_product, prove_loop, prove_staging) for a kernel whose K
 *   loop does not copy beside its multiplies (copy_overlaps false), with a swizzle mode for its
 *   rows (emit.c wg_swizzles; where emit.c cannot swizzle it emits the plain wgmma form).
 * Gives: plan->pipe (false: nothing changes) and plan->pipe_from, pipe_to, pipe_barrier, the
 *   K loop body statements [from, to) that copy and the barrier after them; plan->k_var,
 *   plan->k_step, plan->k_test, the K counter, its step and the loop's condition. It holds when:
 *     1. the K loop is `T k = init; loop { if (!(c)) break; ... } latch { k = k + s }`, s and
 *        c reading only k, constants and variables never assigned (c may read constant
 *        buffers), and no `continue`;
 *     2. the body's statements after the exit test up to the first threadgroup barrier are
 *        the copy: declarations, and loops whose bodies hold declarations and chunk stores
 *        `*(threadgroup V *)q = *(device V *)p` (V of 16 bytes), nothing else; every chunk
 *        store of the K loop is one of them, none is before the loop, and the staging arrays
 *        are single buffers; the barrier follows the copy and the nest follows the barrier;
 *     3. everything the copy reads is k, a constant, a variable never assigned, a constant
 *        buffer, a device load it copies, or a variable the copy declares (or its loops step):
 *        run again with k one step on, it gives the next step's copy, and the K loop writes no
 *        device memory (wgmma.c proved the nest only loads and multiplies; the copy stores only
 *        to threadgroup memory): the bytes copied ahead are those the next step would copy;
 *     4. copies are enabled ($ENIGMA_CUDA_CPASYNC is not 0).
 *   The guard of the copy ahead is the loop's own condition with k one step on: the last
 *   step copies nothing (the kernel's copy is unguarded: it runs only inside the loop).
 * Also gives plan->copy_steady: each thread copies the same chunks to the same places at
 *   every step, and each chunk's source address is the same modulo 16 bytes at every step, so
 *   what the first slice's chunks show (a whole chunk, at a place some multiply reads, from a
 *   16-byte aligned source) holds for all of them, and the loop may copy without testing it
 *   (emit.c: the slices before the loop note it, the block takes that loop when every thread's
 *   chunks showed it). It holds when:
 *     a. k's step is a constant multiple of 16;
 *     b. the copy reads k only in its chunk stores' source addresses: not in a declaration,
 *        a condition, a counter's step or a place, so the chunks and places are the same at
 *        every step;
 *     c. in a source address k stands only under pointer offsets, pointer casts, integer
 *        conversions (not to bool) and integer +, - and * (and << by a constant): the address
 *        is then a polynomial in k with integer coefficients, in any width of 8 bits or more,
 *        and P(k + 16 m) - P(k) is a multiple of 16 (P(x + h) - P(x) = h Q(x, h)), which
 *        wrapping, truncation and extension to 8 bits or more keep;
 *     d. $ENIGMA_CUDA_STEADY_COPY is not 0 (to time the difference). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct rerun {
    const ir_var *k;
    const ir_stmt *region_body; /* the K loop body */
    int from, to;               /* the copy's statements */
} rerun;

/* does the copy itself declare v (a declaration of its own, or of its loops)? */
static bool copy_declares(const rerun *r, const ir_var *v) {
    for (int i = r->from; i < r->to; i++)
        if (en_cuda_wgmma_decl_of(r->region_body->stmts[i], v)) return true;
    return false;
}

/* an expression the rerun could not give: a variable other than k, never-assigned ones and
 * the copy's own; memory other than constant buffers (the device loads being copied are
 * checked at their address, not here) */
static bool reads_other(const ir_expr *e, const void *ctx) {
    const rerun *r = ctx;
    if (e->kind == IR_E_VAR) return e->var != r->k && e->var->is_assigned && !copy_declares(r, e->var);
    if (e->kind == IR_E_DEREF || (e->kind == IR_E_INDEX && e->args[0]->type->kind == IR_T_PTR)) {
        const ir_type *p = e->args[0]->type;
        return p->kind != IR_T_PTR || p->space != IR_SPACE_CONSTANT;
    }
    return false;
}

static bool reads_only_steps(const ir_expr *e, rerun *r) { return !ir_expr_any(e, reads_other, r); }

/* the device address a chunk store copies from: `*(device V *)p` gives p, else NULL */
const ir_expr *en_cuda_wgmma_copied_from(const ir_stmt *store) {
    const ir_expr *v = store->value;
    if (!v || v->kind != IR_E_DEREF || v->type->size != 16) return NULL;
    const ir_type *p = v->args[0]->type;
    return p->kind == IR_T_PTR && p->space == IR_SPACE_DEVICE ? v->args[0] : NULL;
}

typedef struct check_ctx {
    const en_wg_plan *plan;
    rerun *r;
    int stores;  /* chunk stores met */
    bool bad;
} check_ctx;

static bool is_chunk_store(const en_wg_plan *plan, const ir_stmt *s) { return en_cuda_wgmma_store(plan, s) != NULL; }

/* one statement of the copy (its nested ones are visited on their own) */
static void check_copy_stmt(const ir_stmt *s, void *ctx) {
    check_ctx *c = ctx;
    switch (s->kind) {
    case IR_S_BLOCK: case IR_S_BREAK: break;
    case IR_S_DECL: c->bad |= !s->value || !reads_only_steps(s->value, c->r); break;
    case IR_S_IF: c->bad |= !reads_only_steps(s->cond, c->r); break;
    case IR_S_LOOP: break;
    case IR_S_ASSIGN:
        if (is_chunk_store(c->plan, s)) {
            const ir_expr *from = en_cuda_wgmma_copied_from(s);
            /* the place's address (the place itself is the store's target, not a read) */
            c->bad |= !from || !reads_only_steps(from, c->r) || s->place->kind != IR_E_DEREF ||
                      !reads_only_steps(s->place->args[0], c->r);
            c->stores++;
        } else { /* a loop's own counter */
            c->bad |= s->place->kind != IR_E_VAR || !copy_declares(c->r, s->place->var) ||
                      !reads_only_steps(s->value, c->r);
        }
        break;
    default: c->bad = true; break;
    }
}

/* ---- steady chunks (plan->copy_steady) -------------------------------------------------- */
static bool reads_var(const ir_expr *e, const void *ctx) { return e->kind == IR_E_VAR && e->var == ctx; }
static bool reads_k(const ir_expr *e, const ir_var *k) { return e && ir_expr_any(e, reads_var, k); }

/* rule c: k only under ring operations (pointer offsets and casts, integer conversions, +, -,
 * *, << by a constant) */
static bool ring_in_k(const ir_expr *e, const ir_var *k) {
    if (!reads_k(e, k)) return true;
    switch (e->kind) {
    case IR_E_VAR: return e->var == k;
    case IR_E_PTRCAST: return ring_in_k(e->args[0], k);
    case IR_E_PTR_OFFSET: return ring_in_k(e->args[0], k) && ring_in_k(e->args[1], k);
    case IR_E_CONVERT: return ir_is_integer(e->type) && ir_is_integer(e->args[0]->type) && ring_in_k(e->args[0], k);
    case IR_E_BINARY:
        if (!ir_is_integer(e->type)) return false;
        if (e->op == IR_OP_SHL) return e->args[1]->kind == IR_E_CONST && ring_in_k(e->args[0], k);
        return (e->op == IR_OP_ADD || e->op == IR_OP_SUB || e->op == IR_OP_MUL) && ring_in_k(e->args[0], k) &&
               ring_in_k(e->args[1], k);
    default: return false;
    }
}

typedef struct steady_ctx {
    const en_wg_plan *plan;
    const ir_var *k;
    bool steady;
} steady_ctx;

/* rules b and c for one statement of the copy (its nested ones are visited on their own) */
static void check_steady_stmt(const ir_stmt *s, void *ctx) {
    steady_ctx *c = ctx;
    switch (s->kind) {
    case IR_S_DECL: c->steady &= !reads_k(s->value, c->k); break;
    case IR_S_IF: c->steady &= !reads_k(s->cond, c->k); break;
    case IR_S_ASSIGN:
        if (is_chunk_store(c->plan, s))
            c->steady &= !reads_k(s->place->args[0], c->k) && ring_in_k(en_cuda_wgmma_copied_from(s), c->k);
        else
            c->steady &= !reads_k(s->value, c->k);
        break;
    default: break;
    }
}

int en_cuda_steady_copy_setting(void) {
    const char *v = getenv("ENIGMA_CUDA_STEADY_COPY");
    return v && strcmp(v, "0") == 0 ? EN_STEADY_COPY_OFF : v && strcmp(v, "1") == 0 ? EN_STEADY_COPY_ONE_LOOP : EN_STEADY_COPY_ROLES;
}

static bool copy_steady(const en_wg_plan *plan, const ir_stmt *body, int from, int to, const ir_var *k, const ir_expr *step) {
    if (en_cuda_steady_copy_setting() == EN_STEADY_COPY_OFF || step->kind != IR_E_CONST || !ir_is_integer(step->type))
        return false;
    const int64_t s = ir_is_signed(step->type) ? step->c.i : (int64_t)step->c.u;
    if (s <= 0 || s % 16 != 0) return false;
    steady_ctx c = {.plan = plan, .k = k, .steady = true};
    for (int i = from; i < to && c.steady; i++) ir_stmt_each(body->stmts[i], check_steady_stmt, &c);
    return c.steady;
}

void en_cuda_wgmma_pipeline(en_wg_plan *plan) {
    plan->pipe = plan->copy_steady = false;
    if (plan->copy_overlaps || !en_cuda_wgmma_copies_enabled() || plan->a.buffer || plan->b.buffer) return;
    /* 1: the counter, its step, the exit test */
    const ir_stmt *decl = plan->k_decl, *latch = plan->k_loop->latch, *body = plan->k_loop->body;
    if (!decl || decl->kind != IR_S_DECL || !latch || !body || body->stmt_count < 3) return;
    if (latch->kind == IR_S_BLOCK && latch->stmt_count == 1) latch = latch->stmts[0];
    if (latch->kind != IR_S_ASSIGN || latch->place->kind != IR_E_VAR || latch->place->var != decl->var) return;
    const ir_expr *add = latch->value;
    if (add->kind != IR_E_BINARY || add->op != IR_OP_ADD || add->args[0]->kind != IR_E_VAR || add->args[0]->var != decl->var)
        return;
    const ir_stmt *test = body->stmts[0];
    if (test->kind != IR_S_IF || test->else_s || test->cond->kind != IR_E_UNARY || test->cond->op != IR_OP_NOT) return;
    rerun r = {.k = decl->var, .region_body = body};
    if (!reads_only_steps(add->args[1], &r) || !reads_only_steps(test->cond, &r)) return;
    /* 2: the copy, then the barrier, then the nest */
    int bar = 1;
    while (bar < body->stmt_count && !en_cuda_is_threadgroup_barrier(body->stmts[bar])) bar++;
    if (bar == 1 || bar + 1 >= body->stmt_count || body->stmts[bar + 1] != plan->nest_decl) return;
    for (int i = 1; i < bar; i++)
        if (body->stmts[i]->kind != IR_S_DECL && body->stmts[i]->kind != IR_S_LOOP) return;
    r.from = 1;
    r.to = bar;
    /* 3: what the copy reads; every chunk store is in it */
    check_ctx c = {.plan = plan, .r = &r};
    for (int i = 1; i < bar && !c.bad; i++) ir_stmt_each(body->stmts[i], check_copy_stmt, &c);
    if (c.bad || c.stores != plan->store_count) return;
    /* no continue or other way to the latch: the copy ahead runs once a step */
    for (int i = 1; i < body->stmt_count; i++)
        if (ir_stmt_jumps_to(body->stmts[i], plan->k_loop)) return;
    plan->pipe = true;
    plan->pipe_from = 1;
    plan->pipe_to = bar;
    plan->pipe_barrier = body->stmts[bar];
    plan->k_var = decl->var;
    plan->k_step = add->args[1];
    plan->k_test = test->cond->args[0];
    plan->copy_steady = copy_steady(plan, body, 1, bar, decl->var, add->args[1]);
}
