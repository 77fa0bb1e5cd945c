/* matrix_pairs.c — finds the simdgroup multiplies that tensor cores can do two at a time.
 *
 * An 8x8 simdgroup multiply fills half of mma.sync's 16x8 tile (prelude.cuh, "simdgroup_matrix
 * on tensor cores"): the upper rows of the A operand. Two multiply-accumulates that share
 * their B operand fill a whole tile: d1 = a1*b + c1 and d2 = a2*b + c2 are one m16n8k8 with
 * a1 above a2. GEMM kernels write their multiplies as small counted loops over arrays of
 * matrices (`for i, for j: acc[i][j] += a[i] * b[j]`, llama.cpp's `mc[i] += mb[i/4] * ma[i%4]`),
 * so this file unrolls such a loop nest at emit time: it runs the loops' control on constants,
 * names every multiply's operands by constant indices, and pairs multiplies whose fusion no
 * read or write between them can observe.
 *
 * Needs: a verified, inlined module; emit.c asks about one statement of a block at a time.
 * Gives: a plan for the loop nest, or the run of straight-line multiplies, starting at that
 *        statement — every multiply in program order, its loop variables' values, and its
 *        partner — or no plan (also when nothing pairs), and emit.c emits the statements as
 *        they are. A nest qualifies when:
 *          - each loop is `T v = e; loop { if (c) break; body } latch { v = e' }` whose start,
 *            exit test and step evaluate to constants under the enclosing loops' values
 *            (at most EN_MAD_MAX_ITERATIONS iterations, EN_MAD_MAX_MULTIPLIES in all);
 *          - bodies hold only multiplies (with their result temporaries) and such loops;
 *          - no loop variable is read after its loop or has its address taken. */
#include <string.h>

#include "internal.h"

#define EN_MAD_MAX_ITERATIONS 64
#define EN_MAD_MAX_MULTIPLIES 256

typedef struct walker {
    en_arena *arena;
    const ir_var *vars[EN_MAD_MAX_VARS];
    int64_t values[EN_MAD_MAX_VARS];
    bool bound[EN_MAD_MAX_VARS];
    int var_count;
    EN_VEC(en_mad) mads;
    bool ok;
} walker;

static int slot_of(const walker *w, const ir_var *v) {
    for (int i = 0; i < w->var_count; i++)
        if (w->vars[i] == v) return i;
    return -1;
}

/* ---- integer expressions on constants ----------------------------------------------------- */
/* v as a value of type t: wrapped to its width, sign-extended when signed */
static int64_t wrap(int64_t v, const ir_type *t) {
    if (t->kind == IR_T_BOOL) return v != 0;
    int bits = (int)t->size * 8;
    if (bits >= 64) return v;
    uint64_t m = (1ull << bits) - 1, u = (uint64_t)v & m;
    if (ir_is_signed(t) && (u >> (bits - 1)) & 1u) u |= ~m;
    return (int64_t)u;
}

static bool is_int_like(const ir_type *t) { return t && (ir_is_integer(t) || t->kind == IR_T_BOOL); }

static bool eval(const walker *w, const ir_expr *e, int64_t *out) {
    int64_t a, b, c;
    const ir_type *t = e->type;
    if (!is_int_like(t)) return false;
    switch (e->kind) {
    case IR_E_CONST: *out = ir_is_signed(t) ? e->c.i : (int64_t)e->c.u; return true;
    case IR_E_VAR: {
        int s = slot_of(w, e->var);
        if (s < 0 || !w->bound[s]) return false;
        *out = w->values[s];
        return true;
    }
    case IR_E_CONVERT:
        if (!is_int_like(e->args[0]->type) || !eval(w, e->args[0], &a)) return false;
        *out = t->kind == IR_T_BOOL ? a != 0 : wrap(a, t);
        return true;
    case IR_E_UNARY:
        if (!eval(w, e->args[0], &a)) return false;
        switch (e->op) {
        case IR_OP_NEG: *out = wrap((int64_t)(0 - (uint64_t)a), t); return true;
        case IR_OP_NOT: *out = !a; return true;
        case IR_OP_BITNOT: *out = wrap(~a, t); return true;
        default: return false;
        }
    case IR_E_SELECT:
        if (!eval(w, e->args[0], &c)) return false;
        return eval(w, e->args[c ? 1 : 2], out);
    case IR_E_BINARY: {
        if (!eval(w, e->args[0], &a) || !eval(w, e->args[1], &b)) return false;
        const ir_type *ot = e->args[0]->type;
        bool sgn = ir_is_signed(ot);
        uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
        int bits = (int)ot->size * 8;
        switch (e->op) {
        case IR_OP_ADD: *out = wrap((int64_t)(ua + ub), t); return true;
        case IR_OP_SUB: *out = wrap((int64_t)(ua - ub), t); return true;
        case IR_OP_MUL: *out = wrap((int64_t)(ua * ub), t); return true;
        case IR_OP_DIV: case IR_OP_REM:
            if (b == 0 || (sgn && b == -1)) return false; /* leave the edge cases to the GPU */
            if (sgn) *out = wrap(e->op == IR_OP_DIV ? a / b : a % b, t);
            else *out = wrap((int64_t)(e->op == IR_OP_DIV ? ua / ub : ua % ub), t);
            return true;
        case IR_OP_SHL: *out = wrap((int64_t)(ua << (ub % (uint64_t)bits)), t); return true;
        case IR_OP_SHR:
            *out = wrap(sgn ? a >> (ub % (uint64_t)bits) : (int64_t)(ua >> (ub % (uint64_t)bits)), t);
            return true;
        case IR_OP_AND: *out = wrap(a & b, t); return true;
        case IR_OP_OR: *out = wrap(a | b, t); return true;
        case IR_OP_XOR: *out = wrap(a ^ b, t); return true;
        case IR_OP_EQ: *out = a == b; return true;
        case IR_OP_NE: *out = a != b; return true;
        case IR_OP_LT: *out = sgn ? a < b : ua < ub; return true;
        case IR_OP_LE: *out = sgn ? a <= b : ua <= ub; return true;
        case IR_OP_GT: *out = sgn ? a > b : ua > ub; return true;
        case IR_OP_GE: *out = sgn ? a >= b : ua >= ub; return true;
        case IR_OP_LOGAND: *out = a && b; return true;
        case IR_OP_LOGOR: *out = a || b; return true;
        default: return false;
        }
    }
    default: return false;
    }
}

/* ---- the places multiplies read and write, named with constant indices ------------------- */
/* "v12[3][1].2": NULL when the place is reached through a pointer or a variable index */
static const char *place_key(const walker *w, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR:
        return e->var->storage == IR_VAR_LOCAL ? en_fmt(w->arena, "v%d", e->var->id) : NULL;
    case IR_E_INDEX: {
        int64_t i;
        const char *base = e->args[0]->type->kind == IR_T_ARRAY ? place_key(w, e->args[0]) : NULL;
        if (!base || !eval(w, e->args[1], &i)) return NULL;
        return en_fmt(w->arena, "%s[%lld]", base, (long long)i);
    }
    case IR_E_FIELD: {
        const char *base = place_key(w, e->args[0]);
        return base ? en_fmt(w->arena, "%s.%d", base, e->field) : NULL;
    }
    default: return NULL;
    }
}

/* true when x reads a loop variable of the nest that is not bound here */
static bool reads_unbound(const walker *w, const ir_expr *x) {
    if (!x) return false;
    if (x->kind == IR_E_VAR) {
        int s = slot_of(w, x->var);
        return s >= 0 && !w->bound[s];
    }
    for (int i = 0; i < x->arg_count; i++)
        if (reads_unbound(w, x->args[i])) return true;
    return false;
}

static bool is_multiply(const ir_stmt *s) {
    return s->kind == IR_S_INTRINSIC && s->result &&
           (s->intrinsic == IR_I_MATRIX_MULTIPLY || s->intrinsic == IR_I_MATRIX_MULTIPLY_ACCUMULATE) &&
           s->arg_count >= (s->intrinsic == IR_I_MATRIX_MULTIPLY ? 2 : 3);
}

static void add_multiply(walker *w, const ir_stmt *op, const ir_expr *dest) {
    if (w->mads.count == EN_MAD_MAX_MULTIPLIES) { w->ok = false; return; }
    en_mad m = {.op = op, .dest = dest, .partner = -1};
    for (int i = 0; i < op->arg_count; i++)
        if (reads_unbound(w, op->args[i])) { w->ok = false; return; }
    if (dest && reads_unbound(w, dest)) { w->ok = false; return; }
    m.values = en_alloc(w->arena, sizeof(int64_t) * EN_MAD_MAX_VARS);
    memcpy(m.values, w->values, sizeof(int64_t) * EN_MAD_MAX_VARS);
    /* operands and destination named now, while the loop variables hold this multiply's values */
    for (int i = 0; i < 3; i++) m.reads[i] = i < op->arg_count ? place_key(w, op->args[i]) : NULL;
    m.writes = dest ? place_key(w, dest) : en_fmt(w->arena, "v%d", op->result->id);
    EN_PUSH(w->arena, w->mads, m);
}

static void collect_loop(walker *w, const ir_stmt *decl, const ir_stmt *loop);

/* a body: multiplies (each with its result temporary) and counted loops, nothing else */
static void collect_seq(walker *w, ir_stmt *const *stmts, int n) {
    for (int i = 0; i < n && w->ok; i++) {
        const ir_stmt *s = stmts[i];
        if (s->kind == IR_S_BLOCK) {
            collect_seq(w, s->stmts, s->stmt_count);
        } else if (s->kind == IR_S_DECL && !s->value && s->var->type->kind == IR_T_SIMD_MATRIX) {
            /* a multiply's result temporary: written by the multiply that follows, then copied
             * to the multiply's destination (which the plan writes directly) */
            const ir_stmt *copy = i + 2 < n ? stmts[i + 2] : NULL;
            if (!copy || !is_multiply(stmts[i + 1]) || stmts[i + 1]->result != s->var || copy->kind != IR_S_ASSIGN ||
                copy->value->kind != IR_E_VAR || copy->value->var != s->var)
                w->ok = false;
        } else if (is_multiply(s)) {
            const ir_stmt *next = i + 1 < n ? stmts[i + 1] : NULL;
            if (next && next->kind == IR_S_ASSIGN && next->value->kind == IR_E_VAR && next->value->var == s->result) {
                add_multiply(w, s, next->place); /* d = t after t = a * b + c */
                i++;
            } else {
                add_multiply(w, s, NULL);
            }
        } else if (s->kind == IR_S_DECL && s->value && i + 1 < n && stmts[i + 1]->kind == IR_S_LOOP) {
            collect_loop(w, s, stmts[i + 1]);
            i++;
        } else {
            w->ok = false;
        }
    }
}

/* the latch `v = e` of a counted loop over v */
static const ir_expr *step_of(const ir_stmt *latch, const ir_var *v) {
    if (latch && latch->kind == IR_S_BLOCK && latch->stmt_count == 1) latch = latch->stmts[0];
    if (!latch || latch->kind != IR_S_ASSIGN || latch->place->kind != IR_E_VAR || latch->place->var != v) return NULL;
    return latch->value;
}

static void collect_loop(walker *w, const ir_stmt *decl, const ir_stmt *loop) {
    const ir_var *v = decl->var;
    const ir_stmt *body = loop->body;
    const ir_expr *step = step_of(loop->latch, v);
    int s = slot_of(w, v); /* an inner loop runs once per iteration of the outer ones */
    if (!is_int_like(v->type) || v->address_taken || v->storage != IR_VAR_LOCAL || !step || !body ||
        body->kind != IR_S_BLOCK || body->stmt_count < 1 || (s >= 0 && w->bound[s]) ||
        (s < 0 && w->var_count == EN_MAD_MAX_VARS)) {
        w->ok = false;
        return;
    }
    /* the exit test opening the body: `if (c) break;` out of this loop */
    const ir_stmt *test = body->stmts[0], *brk = test->then_s;
    if (brk && brk->kind == IR_S_BLOCK && brk->stmt_count == 1) brk = brk->stmts[0];
    if (test->kind != IR_S_IF || test->else_s || !brk || brk->kind != IR_S_BREAK || brk->target != loop) {
        w->ok = false;
        return;
    }
    if (s < 0) {
        s = w->var_count++;
        w->vars[s] = v;
    }
    int64_t x;
    if (!eval(w, decl->value, &x)) { w->ok = false; return; }
    w->values[s] = wrap(x, v->type);
    w->bound[s] = true;
    for (int iterations = 0; w->ok; iterations++) {
        int64_t leave;
        if (!eval(w, test->cond, &leave) || iterations > EN_MAD_MAX_ITERATIONS) { w->ok = false; break; }
        if (leave) break;
        collect_seq(w, body->stmts + 1, body->stmt_count - 1);
        if (!eval(w, step, &x)) { w->ok = false; break; }
        w->values[s] = wrap(x, v->type);
    }
    w->bound[s] = false;
}

/* ---- pairing ---------------------------------------------------------------------------------- */
static bool same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }
static bool reads(const en_mad *m, const char *key) {
    for (int i = 0; i < 3; i++)
        if (same(m->reads[i], key)) return true;
    return false;
}
static bool named(const en_mad *m) {
    if (!m->writes) return false;
    for (int i = 0; i < m->op->arg_count && i < 3; i++)
        if (!m->reads[i]) return false;
    return true;
}

/* q can run together with p, ahead of the multiplies between them: it reads nothing they or p
 * write, and writes nothing they read or write */
static bool may_fuse(const en_mad *mads, int p, int q) {
    const en_mad *mp = &mads[p], *mq = &mads[q];
    if (reads(mq, mp->writes) || same(mq->writes, mp->writes)) return false;
    for (int r = p + 1; r < q; r++) {
        const en_mad *mr = &mads[r];
        if (!named(mr) || reads(mq, mr->writes) || reads(mr, mq->writes) || same(mr->writes, mq->writes)) return false;
    }
    return true;
}

static void pair_up(en_mad *mads, int n) {
    for (int p = 0; p < n; p++) {
        en_mad *mp = &mads[p];
        if (mp->fused || mp->partner >= 0 || mp->op->intrinsic != IR_I_MATRIX_MULTIPLY_ACCUMULATE || !named(mp)) continue;
        for (int q = p + 1; q < n; q++) {
            en_mad *mq = &mads[q];
            if (mq->fused || mq->partner >= 0 || mq->op->intrinsic != IR_I_MATRIX_MULTIPLY_ACCUMULATE || !named(mq))
                continue;
            /* the same b, and a of one type: one tile */
            if (!same(mp->reads[1], mq->reads[1]) || mp->op->args[0]->type != mq->op->args[0]->type) continue;
            if (!may_fuse(mads, p, q)) continue;
            mp->partner = q;
            mq->fused = true;
            break;
        }
    }
}

/* true when x reads one of the nest's loop variables */
static bool reads_var(const walker *w, const ir_expr *x) {
    if (!x) return false;
    if (x->kind == IR_E_VAR && slot_of(w, x->var) >= 0) return true;
    for (int i = 0; i < x->arg_count; i++)
        if (reads_var(w, x->args[i])) return true;
    return false;
}

static bool stmt_reads_var(const walker *w, const ir_stmt *s) {
    if (!s) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (stmt_reads_var(w, s->stmts[i])) return true;
        return false;
    case IR_S_DECL: case IR_S_RETURN: return reads_var(w, s->value);
    case IR_S_ASSIGN: return reads_var(w, s->place) || reads_var(w, s->value);
    case IR_S_IF: return reads_var(w, s->cond) || stmt_reads_var(w, s->then_s) || stmt_reads_var(w, s->else_s);
    case IR_S_LOOP: return stmt_reads_var(w, s->body) || stmt_reads_var(w, s->latch);
    case IR_S_INTRINSIC: case IR_S_CALL:
        for (int i = 0; i < s->arg_count; i++)
            if (reads_var(w, s->args[i])) return true;
        return false;
    default: return false;
    }
}

/* the statements of the multiply starting at stmts[at] (its result temporary's declaration,
 * the multiply, the copy to its destination); 0 when none starts there */
static int multiply_length(ir_stmt *const *stmts, int count, int at) {
    const ir_stmt *s = stmts[at];
    int first = at;
    if (s->kind == IR_S_DECL && !s->value && s->var->type->kind == IR_T_SIMD_MATRIX) first++;
    if (first >= count || !is_multiply(stmts[first])) return 0;
    const ir_stmt *copy = first + 1 < count ? stmts[first + 1] : NULL;
    bool copied = copy && copy->kind == IR_S_ASSIGN && copy->value->kind == IR_E_VAR &&
                  copy->value->var == stmts[first]->result;
    if (first > at && !copied) return 0;
    return first - at + 1 + copied;
}

int en_cuda_mad_plan(ir_stmt *const *stmts, int count, int at, en_arena *arena, en_mad_plan *plan) {
    memset(plan, 0, sizeof *plan);
    walker w = {.arena = arena, .ok = true};
    int used = 0;
    if (at + 1 < count && stmts[at]->kind == IR_S_DECL && stmts[at]->value && stmts[at + 1]->kind == IR_S_LOOP) {
        /* a loop nest, whose variables nothing after it reads */
        collect_loop(&w, stmts[at], stmts[at + 1]);
        used = 2;
        for (int i = at + 2; i < count && w.ok; i++)
            if (stmt_reads_var(&w, stmts[i])) w.ok = false;
    } else {
        /* straight-line multiplies (tinygrad writes its unrolled tiles so) */
        int n = 0;
        for (int len; at + used < count && (len = multiply_length(stmts, count, at + used)) > 0; n++) used += len;
        if (n < 2) return 0;
        collect_seq(&w, stmts + at, used);
    }
    if (!w.ok || w.mads.count < 2) return 0;
    pair_up(w.mads.items, w.mads.count);
    bool paired = false;
    for (int i = 0; i < w.mads.count; i++) paired |= w.mads.items[i].partner >= 0;
    if (!paired) return 0; /* as written, then */
    plan->mads = w.mads.items;
    plan->count = w.mads.count;
    memcpy(plan->vars, w.vars, sizeof w.vars);
    plan->var_count = w.var_count;
    return used;
}
