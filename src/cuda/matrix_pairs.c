/* matrix_pairs.c — finds the simdgroup multiplies that tensor cores can do two or four at a time.
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
 * K pairs. m16n8k16 does two K steps at once: d = a*b + a'*b' + c for 16 rows, twice the work
 * of m16n8k8 at 1.37x its time (bench/RESULTS.md). A GEMM's K steps are iterations of a loop
 * that loads its a and b matrices and then multiplies (`for kk: load a[i], b[j]; acc[i][j] +=
 * a[i] * b[j]`), so the nest may hold loads and declarations of matrix variables too; each
 * iteration's declaration is a new copy of the variable (emit.c names the copies), and a pair
 * of multiplies joins the pair of the next K step on the same accumulators when nothing in
 * between reads or writes what the first pair touches: it moves down to the second's place,
 * behind the second step's loads.
 *
 * B layout. The B operand of mma.sync is the transpose of Metal's layout (prelude.cuh). A
 * 16-bit matrix variable declared in the nest, written only by loads and read only as the b of
 * 16-bit multiplies, is held in mma.sync's B layout (en_matrix_b): its loads read it transposed
 * (ldmatrix.trans from threadgroup memory), and no multiply transposes it again.
 *
 * Needs: a verified, inlined module; emit.c asks about one statement of a block at a time.
 * Gives: a plan for the loop nest, or the run of straight-line multiplies, starting at that
 *        statement — every multiply, load and declaration in program order, its loop
 *        variables' values, the copies of the nest's matrix variables it uses, the multiplies
 *        done together — or no plan (also when nothing pairs), and emit.c emits the statements
 *        as they are. A nest qualifies when:
 *          - each loop is `T v = e; loop { if (c) break; body } latch { v = e' }` whose start,
 *            exit test and step evaluate to constants under the enclosing loops' values
 *            (at most EN_MAD_MAX_ITERATIONS iterations, EN_MAD_MAX_MULTIPLIES operations in all);
 *          - bodies hold only multiplies and loads (with their result temporaries),
 *            declarations of matrix variables (or arrays of them) without a value, and such loops;
 *          - no loop variable is read after its loop or has its address taken, nor has a matrix
 *            variable declared in the nest. */
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
    const ir_var *decls[EN_MAD_MAX_DECLS]; /* matrix variables declared in the nest */
    int copies[EN_MAD_MAX_DECLS];          /* ... the copy the latest declaration made */
    int decl_count;
    EN_VEC(en_mad) mads;
    bool ok;
} walker;

static int slot_of(const walker *w, const ir_var *v) {
    for (int i = 0; i < w->var_count; i++)
        if (w->vars[i] == v) return i;
    return -1;
}

static int decl_of(const walker *w, const ir_var *v) {
    for (int i = 0; i < w->decl_count; i++)
        if (w->decls[i] == v) return i;
    return -1;
}

/* the value of a loop variable of the nest, where this point of the unrolling binds it */
static bool bound_value(const void *walker_, const ir_var *v, int64_t *out) {
    const walker *w = walker_;
    int s = slot_of(w, v);
    if (s < 0 || !w->bound[s]) return false;
    *out = w->values[s];
    return true;
}

static bool eval(const walker *w, const ir_expr *e, int64_t *out) { return ir_eval_int(e, bound_value, w, out); }

/* ---- the places multiplies read and write, named with constant indices ------------------- */
/* "v12[3][1].2", "v7#1[2]" for copy 1 of a variable declared in the nest: NULL when the
 * place is reached through a pointer or a variable index */
static const char *var_key(const walker *w, const ir_var *v) {
    if (v->storage != IR_VAR_LOCAL) return NULL;
    int d = decl_of(w, v);
    return d >= 0 ? en_fmt(w->arena, "v%d#%d", v->id, w->copies[d]) : en_fmt(w->arena, "v%d", v->id);
}

static const char *place_key(const walker *w, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR: return var_key(w, e->var);
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

/* true when x reads a loop variable of the nest that is not bound here, or a matrix
 * variable declared in the nest before any copy of it exists */
static bool reads_unbound(const walker *w, const ir_expr *x) {
    if (!x) return false;
    if (x->kind == IR_E_VAR) {
        int s = slot_of(w, x->var), d = decl_of(w, x->var);
        return (s >= 0 && !w->bound[s]) || (d >= 0 && w->copies[d] < 0);
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

static bool is_load(const ir_stmt *s) {
    return s->kind == IR_S_INTRINSIC && s->result && s->intrinsic == IR_I_MATRIX_LOAD && s->arg_count >= 1;
}

static bool holds_matrices(const ir_type *t) {
    while (t && t->kind == IR_T_ARRAY) t = t->elem;
    return t && t->kind == IR_T_SIMD_MATRIX;
}

/* an operation of the nest, at this point of its unrolling */
static en_mad *add_op(walker *w, en_mad_kind kind, const ir_stmt *op, const ir_expr *dest) {
    if (w->mads.count == EN_MAD_MAX_MULTIPLIES) { w->ok = false; return NULL; }
    en_mad m = {.kind = kind, .op = op, .dest = dest, .partner = -1, .k_first = -1};
    if (kind != EN_MAD_DECL) {
        for (int i = 0; i < op->arg_count; i++)
            if (reads_unbound(w, op->args[i])) { w->ok = false; return NULL; }
        if (dest && reads_unbound(w, dest)) { w->ok = false; return NULL; }
    }
    m.values = en_alloc(w->arena, sizeof(int64_t) * EN_MAD_MAX_VARS);
    memcpy(m.values, w->values, sizeof(int64_t) * EN_MAD_MAX_VARS);
    m.copies = en_alloc(w->arena, sizeof(int) * EN_MAD_MAX_DECLS);
    memcpy(m.copies, w->copies, sizeof(int) * EN_MAD_MAX_DECLS);
    EN_PUSH(w->arena, w->mads, m);
    return &w->mads.items[w->mads.count - 1];
}

static void add_multiply(walker *w, const ir_stmt *op, const ir_expr *dest) {
    en_mad *m = add_op(w, EN_MAD_MULTIPLY, op, dest);
    if (!m) return;
    /* operands and destination named now, while the loop variables hold this multiply's values */
    for (int i = 0; i < 3; i++) m->reads[i] = i < op->arg_count ? place_key(w, op->args[i]) : NULL;
    m->writes = dest ? place_key(w, dest) : var_key(w, op->result);
}

/* a load reads memory, which no operation of a nest writes: its only effect is its destination */
static void add_load(walker *w, const ir_stmt *op, const ir_expr *dest) {
    en_mad *m = add_op(w, EN_MAD_LOAD, op, dest);
    if (m) m->writes = dest ? place_key(w, dest) : var_key(w, op->result);
    if (m && !m->writes) w->ok = false;
}

/* `T v[4];` in the nest: each time it runs, a new copy of v */
static void add_decl(walker *w, const ir_stmt *s) {
    const ir_var *v = s->var;
    int d = decl_of(w, v);
    if (v->storage != IR_VAR_LOCAL || v->address_taken || (d < 0 && w->decl_count == EN_MAD_MAX_DECLS)) {
        w->ok = false;
        return;
    }
    if (d < 0) {
        d = w->decl_count++;
        w->decls[d] = v;
        w->copies[d] = -1;
    }
    w->copies[d]++;
    add_op(w, EN_MAD_DECL, s, NULL);
}

static void collect_loop(walker *w, const ir_stmt *decl, const ir_stmt *loop);

/* a body: multiplies and loads (each with its result temporary), declarations of matrix
 * variables, and counted loops, nothing else */
static void collect_seq(walker *w, ir_stmt *const *stmts, int n) {
    for (int i = 0; i < n && w->ok; i++) {
        const ir_stmt *s = stmts[i];
        const ir_stmt *next = i + 1 < n ? stmts[i + 1] : NULL;
        if (s->kind == IR_S_BLOCK) {
            collect_seq(w, s->stmts, s->stmt_count);
        } else if (s->kind == IR_S_DECL && !s->value && s->var->type->kind == IR_T_SIMD_MATRIX && next &&
                   (is_multiply(next) || is_load(next)) && next->result == s->var) {
            /* a result temporary: written by the multiply or load that follows, then copied to
             * its destination (which the plan writes directly) */
            const ir_stmt *copy = i + 2 < n ? stmts[i + 2] : NULL;
            if (!copy || copy->kind != IR_S_ASSIGN || copy->value->kind != IR_E_VAR || copy->value->var != s->var)
                w->ok = false;
        } else if (s->kind == IR_S_DECL && !s->value && holds_matrices(s->var->type)) {
            add_decl(w, s);
        } else if (is_load(s)) {
            if (next && next->kind == IR_S_ASSIGN && next->value->kind == IR_E_VAR && next->value->var == s->result) {
                add_load(w, s, next->place); /* d = t after t = load */
                i++;
            } else {
                add_load(w, s, NULL);
            }
        } else if (is_multiply(s)) {
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
    if (!ir_is_int_like(v->type) || v->address_taken || v->storage != IR_VAR_LOCAL || !step || !body ||
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
    w->values[s] = ir_int_wrap(x, v->type);
    w->bound[s] = true;
    for (int iterations = 0; w->ok; iterations++) {
        int64_t leave;
        if (!eval(w, test->cond, &leave) || iterations > EN_MAD_MAX_ITERATIONS) { w->ok = false; break; }
        if (leave) break;
        collect_seq(w, body->stmts + 1, body->stmt_count - 1);
        if (!eval(w, step, &x)) { w->ok = false; break; }
        w->values[s] = ir_int_wrap(x, v->type);
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
/* everything the operation reads and writes has a name (declarations touch nothing) */
static bool named(const en_mad *m) {
    if (m->kind == EN_MAD_DECL) return true;
    if (!m->writes) return false;
    for (int i = 0; m->kind == EN_MAD_MULTIPLY && i < m->op->arg_count && i < 3; i++)
        if (!m->reads[i]) return false;
    return true;
}
/* r and m may run in either order */
static bool independent(const en_mad *r, const en_mad *m) {
    return named(r) && !reads(m, r->writes) && !reads(r, m->writes) && !same(r->writes, m->writes);
}
static bool accumulates(const en_mad *m) {
    return m->kind == EN_MAD_MULTIPLY && !m->fused && m->op->intrinsic == IR_I_MATRIX_MULTIPLY_ACCUMULATE && named(m);
}

/* q can run together with p, ahead of the operations between them: it reads nothing they or p
 * write, and writes nothing they read or write */
static bool may_fuse(const en_mad *mads, int p, int q) {
    const en_mad *mp = &mads[p], *mq = &mads[q];
    if (reads(mq, mp->writes) || same(mq->writes, mp->writes)) return false;
    for (int r = p + 1; r < q; r++)
        if (!independent(&mads[r], mq)) return false;
    return true;
}

static void pair_up(en_mad *mads, int n) {
    for (int p = 0; p < n; p++) {
        en_mad *mp = &mads[p];
        if (!accumulates(mp) || mp->partner >= 0) continue;
        for (int q = p + 1; q < n; q++) {
            en_mad *mq = &mads[q];
            if (!accumulates(mq) || mq->partner >= 0) continue;
            /* the same b, and a of one type: one tile */
            if (!same(mp->reads[1], mq->reads[1]) || mp->op->args[0]->type != mq->op->args[0]->type) continue;
            if (!may_fuse(mads, p, q)) continue;
            mp->partner = q;
            mq->fused = true;
            break;
        }
    }
}

/* the 16-bit element type that a and b of m share, or NULL: m16n8k16 (and the B layout) */
static const ir_type *sixteen_bit(const en_mad *m) {
    const ir_type *a = m->op->args[0]->type->elem, *b = m->op->args[1]->type->elem;
    return (a->kind == IR_T_F16 || a->kind == IR_T_BF16) && a->kind == b->kind ? a : NULL;
}

/* m (mads[at]) may move to position `to`: no operation that runs between them (at its
 * instruction's place: runs_at), other than the multiplies of m's own instruction (group),
 * depends on m or m on it */
static bool may_move(const en_mad *mads, int n, const int *runs_at, int at, int to, const int group[4]) {
    int lo = at < to ? at : to, hi = at < to ? to : at;
    for (int r = 0; r < n; r++) {
        bool member = false;
        for (int g = 0; g < 4; g++) member |= group[g] == r;
        if (!member && runs_at[r] > lo && runs_at[r] < hi && !independent(&mads[r], &mads[at])) return false;
    }
    return true;
}

/* the first step of a K pair leaves its sum in float: rounding it to half or bfloat between
 * the steps, as the kernel says, is what m16n8k16 would skip */
static bool float_result(const en_mad *m) { return m->op->result->type->elem->kind == IR_T_F32; }

/* K pairs: the leader p2 of a pair (or a lone multiply) takes the previous step on the same
 * accumulators, p1 with its partner, into one m16n8k16: d = a1*b1 + a2*b2 + c. Both steps are
 * 16-bit, of the same shape, p1's result is float, and p2 accumulates onto what p1 wrote. */
static void join_k_steps(en_mad *mads, int n, en_arena *arena) {
    int *runs_at = en_alloc(arena, sizeof(int) * (size_t)n); /* where each operation's instruction is */
    for (int i = 0; i < n; i++) runs_at[i] = i;
    for (int i = 0; i < n; i++)
        if (mads[i].partner >= 0) runs_at[mads[i].partner] = i;
    for (int p2 = 0; p2 < n; p2++) {
        en_mad *m2 = &mads[p2];
        if (!accumulates(m2) || m2->k_first >= 0 || !sixteen_bit(m2)) continue;
        int p1 = p2 - 1; /* the last operation before p2 that writes its accumulator */
        while (p1 >= 0 && !(mads[p1].kind != EN_MAD_DECL && same(mads[p1].writes, m2->writes))) p1--;
        if (p1 < 0) continue;
        en_mad *m1 = &mads[p1];
        if (m1->kind != EN_MAD_MULTIPLY || m1->fused || m1->k_first >= 0 || m1->op->intrinsic != IR_I_MATRIX_MULTIPLY_ACCUMULATE ||
            !named(m1) || !float_result(m1) || sixteen_bit(m1) != sixteen_bit(m2) || (m1->partner >= 0) != (m2->partner >= 0))
            continue;
        int q1 = m1->partner, q2 = m2->partner;
        int group[4] = {p1, q1, p2, q2};
        const en_mad *n1 = q1 >= 0 ? &mads[q1] : NULL, *n2 = q2 >= 0 ? &mads[q2] : NULL;
        /* each second step accumulates onto its first step's result, and reads it nowhere else */
        bool ok = same(m2->reads[2], m1->writes) && !same(m2->reads[0], m1->writes) && !same(m2->reads[1], m1->writes);
        if (n1)
            ok = ok && same(n2->writes, n1->writes) && same(n2->reads[2], n1->writes) && !same(n2->reads[0], n1->writes) &&
                 !same(n2->reads[1], n1->writes) && !reads(m2, n1->writes) && !reads(n2, m1->writes) &&
                 sixteen_bit(n1) == sixteen_bit(m1) && float_result(n1) && n1->op->args[0]->type == n2->op->args[0]->type;
        /* the first step's operations wait until the second's place */
        ok = ok && may_move(mads, n, runs_at, p1, p2, group) && (q1 < 0 || may_move(mads, n, runs_at, q1, p2, group));
        if (!ok) continue;
        m2->k_first = p1;
        m1->fused = true;
        runs_at[p1] = p2;
        if (q1 >= 0) runs_at[q1] = p2;
    }
}

/* the root variable of a place */
static const ir_var *root_of(const ir_expr *x) {
    while (x && (x->kind == IR_E_INDEX || x->kind == IR_E_FIELD)) x = x->args[0];
    return x && x->kind == IR_E_VAR ? x->var : NULL;
}

/* which of the nest's matrix variables live in mma.sync's B layout: 16-bit, written only by
 * loads, read only as b of 16-bit multiplies */
static void choose_b_layouts(const walker *w, const en_mad *mads, int n, bool b_layout[EN_MAD_MAX_DECLS]) {
    for (int d = 0; d < w->decl_count; d++) {
        const ir_type *t = w->decls[d]->type;
        while (t->kind == IR_T_ARRAY) t = t->elem;
        b_layout[d] = t->elem->kind == IR_T_F16 || t->elem->kind == IR_T_BF16;
        bool read = false;
        for (int i = 0; i < n && b_layout[d]; i++) {
            const en_mad *m = &mads[i];
            if (m->kind == EN_MAD_DECL) continue;
            const ir_expr *dest = m->dest;
            if (m->kind == EN_MAD_MULTIPLY) {
                if ((dest ? root_of(dest) : m->op->result) == w->decls[d] || root_of(m->op->args[0]) == w->decls[d] ||
                    (m->op->arg_count > 2 && root_of(m->op->args[2]) == w->decls[d]))
                    b_layout[d] = false;
                if (root_of(m->op->args[1]) == w->decls[d]) {
                    read = true;
                    if (!sixteen_bit(m)) b_layout[d] = false;
                }
            }
            for (int k = 0; m->kind == EN_MAD_LOAD && k < m->op->arg_count; k++)
                if (root_of(m->op->args[k]) == w->decls[d]) b_layout[d] = false;
        }
        b_layout[d] = b_layout[d] && read;
    }
}

/* true when x is one of the nest's loop variables */
static bool is_nest_var(const ir_expr *x, const void *walker_) {
    return x->kind == IR_E_VAR && slot_of(walker_, x->var) >= 0;
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

/* the nest or run of multiplies from stmts[at], unrolled into w: the statements it covers,
 * 0 when there is none */
static int unroll(ir_stmt *const *stmts, int count, int at, bool nests_only, walker *w) {
    int used = 0;
    if (at + 1 < count && stmts[at]->kind == IR_S_DECL && stmts[at]->value && stmts[at + 1]->kind == IR_S_LOOP) {
        /* a loop nest, whose variables nothing after it reads */
        collect_loop(w, stmts[at], stmts[at + 1]);
        used = 2;
        for (int i = at + 2; i < count && w->ok; i++)
            if (ir_stmt_any_expr(stmts[i], is_nest_var, w)) w->ok = false;
    } else if (!nests_only) {
        /* straight-line multiplies (tinygrad writes its unrolled tiles so) */
        int n = 0;
        for (int len; at + used < count && (len = multiply_length(stmts, count, at + used)) > 0; n++) used += len;
        if (n < 2) return 0;
        collect_seq(w, stmts + at, used);
    }
    return w->ok && w->mads.count >= 2 ? used : 0;
}

static void fill_plan(const walker *w, en_mad_plan *plan) {
    plan->mads = w->mads.items;
    plan->count = w->mads.count;
    memcpy(plan->vars, w->vars, sizeof w->vars);
    plan->var_count = w->var_count;
    memcpy(plan->decls, w->decls, sizeof w->decls);
    plan->decl_count = w->decl_count;
}

int en_cuda_mad_plan(ir_stmt *const *stmts, int count, int at, en_arena *arena, en_mad_plan *plan) {
    memset(plan, 0, sizeof *plan);
    walker w = {.arena = arena, .ok = true};
    int used = unroll(stmts, count, at, false, &w);
    if (!used) return 0;
    pair_up(w.mads.items, w.mads.count);
    join_k_steps(w.mads.items, w.mads.count, arena);
    bool paired = false;
    for (int i = 0; i < w.mads.count; i++) paired |= w.mads.items[i].partner >= 0 || w.mads.items[i].k_first >= 0;
    if (!paired) return 0; /* as written, then */
    fill_plan(&w, plan);
    choose_b_layouts(&w, w.mads.items, w.mads.count, plan->b_layout);
    return used;
}

int en_cuda_mad_nest(ir_stmt *const *stmts, int count, int at, en_arena *arena, en_mad_plan *plan) {
    memset(plan, 0, sizeof *plan);
    walker w = {.arena = arena, .ok = true};
    int used = unroll(stmts, count, at, true, &w);
    if (used) fill_plan(&w, plan);
    return used;
}
