/* wgmma_merge.c — when four threadgroups of a warpgroup GEMM may run as one CUDA block that
 * stages their operands once.
 *
 * A GEMM of 64x64 threadgroup tiles reads its A slice and its B slice through L2 once per
 * threadgroup: one byte for 32 flops, which on an H100 caps any such kernel near 0.46x cuBLAS
 * before it multiplies anything (bench/RESULTS.md, issue 11, run 12). Threadgroups in one row
 * of the grid stage the same A slices and those in one column the same B slices. Run as one
 * block of 512 threads, a 2x2 quad of threadgroups stages each slice once: two A and two B
 * slices a step for four tiles, the operand traffic of a 128x128 tile. Each threadgroup keeps
 * its own warpgroup, registers and every other threadgroup variable; only the staging arrays
 * are shared, and each is filled by one threadgroup of those that share it.
 *
 * Staging once per quad halves the bytes L2 sends, but not the bytes in flight per SM: two
 * blocks of four threadgroups hold what eight blocks of one held. So a quad also stages more
 * slices ahead (EN_WG_QUAD_STAGES buffers, below), which it can only where the compiler owns
 * the buffers: where it pipelines the kernel's copy itself (wgmma_pipe.c, the copy-then-
 * multiply form of llama.cpp and MLX). The hand-pipelined form keeps its own two buffers and
 * one threadgroup a block (as a quad it measured 4% slower: bench/RESULTS.md).
 *
 * Needs: a plan from wgmma.c (with wgmma_copy.c's copies and wgmma_pipe.c's pipeline) of an
 *   inlined kernel.
 * Gives: plan->merge (false: the kernel runs one threadgroup a block, as before) and
 *   plan->a_shared, plan->b_shared: along which component of threadgroup_position_in_grid the
 *   array's staged bytes are the same (EN_WG_SHARED_X: the two threadgroups of a quad's row;
 *   _Y: of a column; _XY: all four). It holds when:
 *     1. every chunk store into a staging array stores a value at a place under conditions
 *        that do not depend on one component of the threadgroup's position (x or y), for each
 *        array: the threadgroups that differ only in it store the same bytes to the same
 *        places at the same steps, so the bytes one of them stages are the others';
 *     2. the kernel writes no device memory and no atomic before its K loop ends (so a device
 *        load gives the same value in each threadgroup of a quad: the copies are issued in
 *        the same steps, between the same barriers), and the values stored read no
 *        threadgroup memory (each threadgroup keeps its own) and no thread's memory through
 *        a pointer;
 *     3. every threadgroup barrier stands under conditions that do not depend on the
 *        threadgroup's position: the four threadgroups pass each barrier together, so the
 *        block's barrier is each one's;
 *     4. no break or continue leaves a loop under a position-dependent condition unless the
 *        loop holds no barrier and no staging store (rule 1 and 3 see the loop's exits);
 *     5. the compiler pipelines the copy (plan->pipe), and $ENIGMA_CUDA_WGMMA_MERGE is not 0;
 *     6. the K loop's body is the exit test, the copy, its barrier, the multiply nest and one
 *        barrier at its end, nothing else: that last barrier orders only the staging, so the
 *        quad passes it every second step (emit.c: the two slices of the next two steps are
 *        waited for and published together).
 *   Dependence is a flow-insensitive taint: a local depends on everything any assignment to
 *   it reads and on the conditions of the ifs and loop exits it is assigned under, to a fixed
 *   point; the position attributes are its sources, component by component.
 * Where a dispatch can take it (threadgroups of 128 threads, an even number of them along x
 * and along y) driver.c launches the entry point EN_CUDA_QUAD_SUFFIX (emit.c) instead of
 * EN_CUDA_WARPGROUP_SUFFIX. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum {
    TAINT_X = 1,     /* may differ between threadgroups that differ in x */
    TAINT_Y = 2,
    TAINT_Z = 4,
    TAINT_GROUP = 8, /* may differ between any two threadgroups (their own memory) */
    TAINT_POSITION = TAINT_X | TAINT_Y | TAINT_GROUP,
};

typedef struct merge {
    const ir_func *f;
    unsigned char *taint;  /* by local variable id */
    bool changed;
    bool refused;
    unsigned control[64];  /* the taint of each enclosing condition, innermost last */
    int depth;
    const en_wg_plan *plan;
    unsigned stored[2];    /* what A's and B's staging stores depend on */
} merge;

static unsigned control_taint(const merge *m) {
    unsigned t = 0;
    for (int i = 0; i < m->depth; i++) t |= m->control[i];
    return t;
}

static unsigned attr_taint(ir_attr a) {
    return a == IR_ATTR_THREADGROUP_POSITION_IN_GRID || a == IR_ATTR_THREAD_POSITION_IN_GRID
               ? TAINT_X | TAINT_Y | TAINT_Z : 0;
}

static unsigned var_taint(const merge *m, const ir_var *v) {
    if (v->param_kind == IR_PARAM_ATTR) return attr_taint(v->attr);
    if (v->param_kind == IR_PARAM_BUFFER || v->storage == IR_VAR_CONSTANT) return 0;
    if (v->storage == IR_VAR_THREADGROUP || v->param_kind == IR_PARAM_THREADGROUP) return TAINT_GROUP;
    /* a local whose address is taken may change through a pointer: any value */
    if (v->address_taken) return TAINT_POSITION | TAINT_Z;
    return v->id >= 0 && v->id < m->f->next_var_id ? m->taint[v->id] : TAINT_POSITION | TAINT_Z;
}

/* what a load through a pointer of type t may differ by beyond its address: threadgroup and
 * thread memory are each threadgroup's own; device memory is one object (rule 2) */
static unsigned memory_taint(const ir_type *t) {
    if (!t || t->kind != IR_T_PTR) return TAINT_GROUP;
    return t->space == IR_SPACE_DEVICE || t->space == IR_SPACE_CONSTANT ? 0 : TAINT_GROUP;
}

static unsigned value_taint(const merge *m, const ir_expr *x);

/* what the address of a place depends on (not what it holds) */
static unsigned address_taint(const merge *m, const ir_expr *place) {
    switch (place->kind) {
    case IR_E_VAR: return 0;
    case IR_E_INDEX:
        return (place->args[0]->type->kind == IR_T_PTR ? value_taint(m, place->args[0]) : address_taint(m, place->args[0])) |
               value_taint(m, place->args[1]);
    case IR_E_FIELD:
    case IR_E_SWIZZLE: return address_taint(m, place->args[0]);
    case IR_E_DEREF: return value_taint(m, place->args[0]);
    default: return value_taint(m, place);
    }
}

static unsigned value_taint(const merge *m, const ir_expr *x) {
    if (!x) return 0;
    switch (x->kind) {
    case IR_E_CONST: return 0;
    case IR_E_VAR: return var_taint(m, x->var);
    case IR_E_SWIZZLE: {
        const ir_expr *base = x->args[0];
        if (base->kind == IR_E_VAR && attr_taint(base->var->param_kind == IR_PARAM_ATTR ? base->var->attr : IR_ATTR_NONE) &&
            !base->var->is_assigned) {
            unsigned t = 0;
            for (int i = 0; i < x->swizzle_len; i++) t |= x->swizzle[i] < 3 ? 1u << x->swizzle[i] : 0;
            return t;
        }
        return value_taint(m, base);
    }
    case IR_E_INDEX:
        if (x->args[0]->type->kind == IR_T_PTR)
            return value_taint(m, x->args[0]) | value_taint(m, x->args[1]) | memory_taint(x->args[0]->type);
        return value_taint(m, x->args[0]) | value_taint(m, x->args[1]);
    case IR_E_FIELD: return value_taint(m, x->args[0]);
    case IR_E_DEREF: return value_taint(m, x->args[0]) | memory_taint(x->args[0]->type);
    case IR_E_ADDR: return address_taint(m, x->args[0]);
    default: {
        unsigned t = 0;
        for (int i = 0; i < x->arg_count; i++) t |= value_taint(m, x->args[i]);
        return t;
    }
    }
}

/* the local a place assigns (through array elements, fields and lanes), or NULL for memory */
static const ir_var *assigned_local(const ir_expr *place) {
    while (place->kind == IR_E_INDEX || place->kind == IR_E_FIELD || place->kind == IR_E_SWIZZLE) {
        if (place->kind == IR_E_INDEX && place->args[0]->type->kind == IR_T_PTR) return NULL;
        place = place->args[0];
    }
    return place->kind == IR_E_VAR && place->var->storage == IR_VAR_LOCAL && place->var->param_kind == IR_PARAM_NONE
               ? place->var : NULL;
}

static void taint_var(merge *m, const ir_var *v, unsigned t) {
    if (!v || v->id < 0 || v->id >= m->f->next_var_id) return;
    if ((m->taint[v->id] | t) != m->taint[v->id]) {
        m->taint[v->id] |= (unsigned char)t;
        m->changed = true;
    }
}

/* a break or continue aimed at loop, or a return, under s */
typedef struct exit_search {
    const ir_stmt *loop;
} exit_search;
static bool leaves(const ir_stmt *s, const void *search) {
    const exit_search *e = search;
    return s->kind == IR_S_RETURN || ((s->kind == IR_S_BREAK || s->kind == IR_S_CONTINUE) && s->target == e->loop);
}

/* the taint of the conditions under which loop's body is left (rule 4): the conditions of
 * the ifs in it that hold an exit of it */
static unsigned exit_taint(const merge *m, const ir_stmt *s, const ir_stmt *loop) {
    if (!s) return 0;
    exit_search e = {loop};
    switch (s->kind) {
    case IR_S_BLOCK: {
        unsigned t = 0;
        for (int i = 0; i < s->stmt_count; i++) t |= exit_taint(m, s->stmts[i], loop);
        return t;
    }
    case IR_S_IF:
        return (ir_stmt_any_in(s->then_s, leaves, &e) || ir_stmt_any_in(s->else_s, leaves, &e) ? value_taint(m, s->cond) : 0) |
               exit_taint(m, s->then_s, loop) | exit_taint(m, s->else_s, loop);
    case IR_S_LOOP: return exit_taint(m, s->body, loop) | exit_taint(m, s->latch, loop);
    default: return 0;
    }
}

static int staging_index(const merge *m, const ir_stmt *s) {
    const en_wg_pointer *p = en_cuda_wgmma_store(m->plan, s);
    if (!p) return -1;
    return p->array == m->plan->a.array ? 0 : p->array == m->plan->b.array ? 1 : -1;
}

static void walk(merge *m, const ir_stmt *s) {
    if (!s || m->refused) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) walk(m, s->stmts[i]);
        return;
    case IR_S_DECL:
        if (s->value) taint_var(m, s->var, value_taint(m, s->value) | control_taint(m));
        return;
    case IR_S_ASSIGN: {
        unsigned t = value_taint(m, s->value) | control_taint(m);
        int staging = staging_index(m, s);
        if (staging >= 0) m->stored[staging] |= t | address_taint(m, s->place);
        taint_var(m, assigned_local(s->place), t | address_taint(m, s->place));
        return;
    }
    case IR_S_IF:
        if (m->depth == 64) { m->refused = true; return; }
        m->control[m->depth++] = value_taint(m, s->cond);
        walk(m, s->then_s);
        walk(m, s->else_s);
        m->depth--;
        return;
    case IR_S_LOOP:
        if (m->depth == 64) { m->refused = true; return; }
        m->control[m->depth++] = exit_taint(m, s->body, s) | exit_taint(m, s->latch, s);
        walk(m, s->body);
        walk(m, s->latch);
        m->depth--;
        return;
    case IR_S_INTRINSIC: {
        unsigned t = control_taint(m);
        for (int i = 0; i < s->arg_count; i++) {
            t |= value_taint(m, s->args[i]);
            if (s->args[i]->type && s->args[i]->type->kind == IR_T_PTR) t |= memory_taint(s->args[i]->type);
        }
        if (ir_intrinsic_class_of(s->intrinsic) == IR_IC_ATOMIC) t |= TAINT_GROUP;
        taint_var(m, s->result, t);
        if (s->intrinsic == IR_I_BARRIER_THREADGROUP && (control_taint(m) & TAINT_POSITION)) m->refused = true;
        return;
    }
    default: return;
    }
}

/* rule 2: a device store or an atomic in s */
static bool writes_device(const ir_stmt *s) {
    if (s->kind == IR_S_INTRINSIC)
        return ir_intrinsic_class_of(s->intrinsic) == IR_IC_ATOMIC || s->intrinsic == IR_I_MATRIX_STORE;
    if (s->kind != IR_S_ASSIGN) return false;
    const ir_expr *p = s->place;
    while (p->kind == IR_E_FIELD || p->kind == IR_E_SWIZZLE || (p->kind == IR_E_INDEX && p->args[0]->type->kind != IR_T_PTR))
        p = p->args[0];
    const ir_expr *ptr = p->kind == IR_E_DEREF || p->kind == IR_E_INDEX ? p->args[0] : NULL;
    return ptr && ptr->type->kind == IR_T_PTR && ptr->type->space == IR_SPACE_DEVICE;
}

static int share_of(unsigned stored) {
    if (stored & TAINT_GROUP) return EN_WG_SHARED_NONE;
    return (stored & TAINT_X ? 0 : EN_WG_SHARED_X) | (stored & TAINT_Y ? 0 : EN_WG_SHARED_Y);
}

bool en_cuda_wgmma_merge_enabled(void) {
    const char *v = getenv("ENIGMA_CUDA_WGMMA_MERGE");
    return !v || strcmp(v, "0") != 0;
}

void en_cuda_wgmma_merge(const ir_func *f, en_arena *arena, en_wg_plan *plan) {
    plan->merge = false;
    plan->a_shared = plan->b_shared = EN_WG_SHARED_NONE;
    if (!en_cuda_wgmma_merge_enabled() || !plan->pipe) return;
    const ir_stmt *k_body = plan->k_loop->body;
    if (k_body->stmt_count != plan->pipe_to + 4 || !en_cuda_is_threadgroup_barrier(k_body->stmts[plan->pipe_to + 3]))
        return;
    const ir_stmt *body = f->body;
    for (int i = 0; i < body->stmt_count; i++) {
        if (ir_stmt_any(body->stmts[i], writes_device)) return;
        if (body->stmts[i] == plan->k_loop) break;
    }
    merge m = {.f = f, .plan = plan};
    m.taint = en_alloc(arena, (size_t)f->next_var_id + 1);
    if (!m.taint) return;
    /* to a fixed point: a taint only grows, 4 bits a variable */
    do {
        m.changed = false;
        m.stored[0] = m.stored[1] = 0;
        walk(&m, body);
    } while (m.changed && !m.refused);
    if (m.refused) return;
    plan->a_shared = share_of(m.stored[0]);
    plan->b_shared = share_of(m.stored[1]);
    plan->merge = plan->a_shared != EN_WG_SHARED_NONE && plan->b_shared != EN_WG_SHARED_NONE;
}

/* ---- a quad's staging: its slices in flight --------------------------------------------------
 * Four threadgroups as one block stage as much per step as a 128x128 tile, in two blocks an
 * SM where eight single threadgroups ran: with the kernel's two buffers, the bytes in flight
 * per SM (and so, at L2's latency, the rate) stay those of the single threadgroups. Where
 * the compiler pipelines the copy (wgmma_pipe.c) it owns the buffers, so a quad gets
 * EN_WG_QUAD_STAGES of them (emit.c): a barrier every second step (rule 6), S - 3 slices
 * copied ahead, the multiplies of one step still running past a barrier; S buffers hold the
 * slices being copied, the two being multiplied and the one whose multiplies still run. The
 * staging then passes the 48 KiB of static shared memory, so a quad's staging arrays are in
 * dynamic shared memory (emit.c, prelude en_wg_staging), sized here for driver.c too. */
#define EN_WG_QUAD_STAGES 6

int en_cuda_quad_stages(void) {
    const char *v = getenv("ENIGMA_CUDA_QUAD_STAGES"); /* A/B timing: 5 or 6 */
    int n = v ? atoi(v) : EN_WG_QUAD_STAGES;
    return n < 5 ? 5 : n > 6 ? 6 : n;
}

/* the buffers of a quad's staging array: the quad's stages where the compiler pipelines the
 * copy (the only quads made: rule 5), else the kernel's own count */
static int quad_buffers(const en_wg_plan *plan, const ir_var *array) {
    const ir_type *t = array->type;
    return t->elem && t->elem->kind == IR_T_ARRAY ? (int)t->count : plan->pipe ? en_cuda_quad_stages() : 1;
}

/* a staging buffer's bytes: A's 64 rows of 2 BK bytes, B's BK rows of 128 (emit.c wg_rows) */
static uint32_t buffer_bytes(const en_wg_plan *plan) { return 2048u * (uint32_t)plan->k_steps; }

/* the copies of an array in a quad: one a row (or column) of it, or one for all four */
static uint32_t copies(int shared) { return shared == EN_WG_SHARED_XY ? 1u : 2u; }

uint32_t en_cuda_quad_offset(const en_wg_plan *plan, const ir_var *array) {
    if (array == plan->a.array) return 0;
    return copies(plan->a_shared) * (uint32_t)quad_buffers(plan, plan->a.array) * buffer_bytes(plan);
}

uint32_t en_cuda_quad_shared_bytes(const en_wg_plan *plan) {
    return en_cuda_quad_offset(plan, plan->b.array) +
           copies(plan->b_shared) * (uint32_t)quad_buffers(plan, plan->b.array) * buffer_bytes(plan) +
           1024u; /* to align the dynamic memory's start on 1024 bytes (prelude: en_wg_staging) */
}
