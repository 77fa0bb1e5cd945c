/* emit_tile.c — register tiles: barrier-free kernels whose loops are the same in every
 * thread run eight (or four) rows of 16 threads at a time, each per-thread value a vector
 * register.
 *
 * Needs: an emitter whose variables are classified (cpu_classify_vars) for an unchecked
 *   build; the function's locals' initialisers in em->inits.
 * Guarantees: cpu_tile_body() either appends to em->out one block, `if (<shape test>) {
 *   ... return; }`, that runs the whole threadgroup, and returns true; or appends nothing and
 *   returns false. The region code (emit_region.c) always follows, so a group of another
 *   shape (partial groups at the grid's edge, widths that are not a multiple of 16, heights
 *   that are not a multiple of 4, 3-D groups) still runs. Two blocks are emitted: 8 rows
 *   per tile where the group's height allows, else 4.
 *
 * Why. seed 002's naive GEMM, `for (k = 0; k < K; k++) acc = fma(A[row * K + k],
 * B[k * N + col], acc)`, is the shape of a BLAS micro-kernel once several threads share one
 * pass of the k loop: 16 threads of a row (col = x) read B's row slice as one vector; each
 * row's A element is one value for its 16 threads (a broadcast); the 16 accumulators of a
 * row are one vector. Eight rows in one k loop keep eight independent accumulator vectors in
 * registers (eight fma chains) and load B's slice once for the eight (measured: 1.3-1.9x the
 * speed of four rows, bench/NOTES-cpu.md change 10). The region emitter
 * runs a SIMD group through a whole k loop alone, with its accumulators in memory, and gcc
 * does not vectorise a per-thread k loop whose B index steps by a run-time N.
 *
 * The class (classify() checks it; anything else keeps the region code). The body is a
 * list of statements at the top level, none nested but loops:
 *   - declarations and assignments of scalar locals, and stores `P[i] = v` through a
 *     buffer parameter;
 *   - loops the same in every thread: `loop { if (!(c)) break; <assignments of locals> }
 *     latch { <assignments of locals> }`, where c does not depend on the thread (its
 *     "shape" is uniform, below) and the body neither stores nor leaves early.
 * Expressions: constants, locals, buffer parameters, thread_position_in_grid and
 * thread_position_in_threadgroup (uint or uint2 components), other group-wide attributes,
 * `*p` of a constant buffer (read once per group), loads `P[i]` through a buffer parameter,
 * arithmetic, conversions between 32-bit integers and to float, selects and comparisons
 * (where no value is per column), fma. Values per column (vectors) are f32, u32 or i32.
 *
 * Shapes. Each value is uniform (the same in the whole group), per row (depends on the
 * thread's y, not on x), per column (on x, not y) or per thread. A uniform value is one C
 * scalar; a per-row value a C scalar per row, a per-column or per-thread value a 16-lane GCC
 * vector (`enk_tv_f32`, prelude.txt) per row, in arrays over the tile's rows that each
 * statement walks in a C loop gcc unrolls (emit_simple). A local's shape is the join of
 * every value assigned to it (a fixed point). A local that varies by column, is never
 * assigned, and whose initialiser reads neither memory nor an assigned local is inlined at
 * each use, so `k * N + col` stays visibly affine in x.
 *
 * Loads. A load whose index is uniform or per row is one scalar load per row (a broadcast
 * where it meets a vector). A per-column index that is x plus a value independent of x
 * (lane_step proves the step is 1 in 32-bit wrapping arithmetic) is one vector load from
 * the index at x = _x0, when that index + 15 does not wrap (tested per access: a scalar
 * compare); otherwise, and for every other per-column index, 16 scalar loads (the exact
 * semantics, slow). A load that does not depend on the row is made once per statement and
 * shared by the rows. Stores take the same two paths.
 *
 * Order. Per thread, statements run in program order; between threads, Metal gives no
 * order to accesses without a barrier, so running rows one after another inside each
 * statement is one allowed interleaving. Loop bodies do not store, so hoisting a load out
 * of the rows never moves it across a store. */
#include "emit.h"

#include <string.h>

#define TILE_WIDTH 16

typedef enum shape { SH_UNIFORM = 0, SH_ROW = 1, SH_COLUMN = 2, SH_THREAD = 3 } shape;

static bool varies_by_x(shape s) { return (s & SH_COLUMN) != 0; }

typedef enum tile_var_kind {
    TV_NONE,    /* not a local the class allows */
    TV_INLINE,  /* never assigned, no load in its initialiser: its initialiser at each use */
    TV_STORED,  /* a C variable per row (scalar or vector by shape), or one if uniform */
} tile_var_kind;

typedef struct tile_var {
    tile_var_kind kind;
    shape sh;
} tile_var;

typedef struct memo {
    const ir_expr *expr;
    const char *temp;
    bool vec;
} memo;

typedef struct tile {
    emitter *em;
    const ir_func *f;
    bool failed;
    tile_var *vars;             /* by local id */
    EN_VEC(const ir_var *) derefs; /* `*p` of constant buffers, read once per group */
    EN_VEC(memo) shared;        /* this statement's loads made once for the rows */
    const ir_var *counter;      /* the enclosing loop's counter, stepped by a constant (emit_loop) */
    const char *counter_ahead;  /* its value PREFETCH_STEPS steps on, as C */
    bool ahead;                 /* var_name gives counter_ahead for the counter (prefetch addresses) */
} tile;

/* a value as C text: a scalar of the IR type's C type, or a vector of 16 of them */
typedef struct tval {
    const char *text;
    bool vec;
} tval;

/* ---- the class ---------------------------------------------------------------------- */

static bool lane_type(const ir_type *t) {
    return t->kind == IR_T_F32 || t->kind == IR_T_U32 || t->kind == IR_T_I32;
}

static bool plain_scalar(const ir_type *t) {
    return ir_is_scalar(t) && t->kind != IR_T_F16 && t->kind != IR_T_BF16;
}

/* a buffer parameter the kernel never assigns */
static bool buffer_param(tile *t, const ir_var *v) {
    return v->param_kind == IR_PARAM_BUFFER && v->type->kind == IR_T_PTR &&
           cpu_info_of(t->em, v)->kind == VK_UNIFORM;
}

static bool position_attr(ir_attr a) {
    return a == IR_ATTR_THREAD_POSITION_IN_GRID || a == IR_ATTR_THREAD_POSITION_IN_THREADGROUP;
}

static bool group_attr(ir_attr a) {
    switch (a) {
    case IR_ATTR_THREADS_PER_GRID:
    case IR_ATTR_THREADS_PER_THREADGROUP:
    case IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP:
    case IR_ATTR_THREADGROUP_POSITION_IN_GRID:
    case IR_ATTR_THREADGROUPS_PER_GRID:
        return true;
    default:
        return false;
    }
}

/* an attribute parameter the class reads: uint or uint2/uint3 of a position, or a
 * group-wide one (any component) */
static bool attr_ok(const ir_var *v) {
    if (v->param_kind != IR_PARAM_ATTR || v->storage != IR_VAR_LOCAL) return false;
    const ir_type *e = ir_scalar_of(v->type);
    if (e->kind != IR_T_U32) return false;
    return position_attr(v->attr) || group_attr(v->attr);
}

static shape attr_shape(const ir_var *v, int comp) {
    if (!position_attr(v->attr)) return SH_UNIFORM;
    return comp == 0 ? SH_COLUMN : comp == 1 ? SH_ROW : SH_UNIFORM;
}

static bool is_local(tile *t, const ir_var *v) {
    return v->storage == IR_VAR_LOCAL && v->param_kind == IR_PARAM_NONE && v->id >= 0 &&
           v->id < t->em->var_count;
}

/* does e read a local that is assigned after its declaration? (its value at a later use may
 * differ from the one e saw) */
static bool reads_assigned_local(const ir_expr *e) {
    if (!e) return false;
    if (e->kind == IR_E_VAR && e->var->param_kind == IR_PARAM_NONE && e->var->is_assigned) return true;
    for (int i = 0; i < e->arg_count; i++)
        if (reads_assigned_local(e->args[i])) return true;
    return false;
}

static bool reads_memory(const ir_expr *e) {
    if (!e) return false;
    if (e->kind == IR_E_INDEX && e->args[0]->type->kind == IR_T_PTR) return true;
    if (e->kind == IR_E_DEREF) return true;
    for (int i = 0; i < e->arg_count; i++)
        if (reads_memory(e->args[i])) return true;
    return false;
}

/* the shape of e, or fail; stored locals read their current shape (the fixed point) */
static shape shape_of(tile *t, const ir_expr *e, int depth);

static shape join(shape a, shape b) { return (shape)(a | b); }

static shape var_shape(tile *t, const ir_var *v, int comp, int depth) {
    if (v->param_kind == IR_PARAM_ATTR) {
        if (!attr_ok(v)) t->failed = true;
        return attr_shape(v, comp);
    }
    if (v->param_kind == IR_PARAM_BUFFER) {
        if (!buffer_param(t, v)) t->failed = true;
        return SH_UNIFORM;
    }
    if (!is_local(t, v) || t->vars[v->id].kind == TV_NONE) {
        t->failed = true;
        return SH_UNIFORM;
    }
    if (t->vars[v->id].kind == TV_INLINE) return shape_of(t, t->em->inits[v->id], depth + 1);
    return t->vars[v->id].sh;
}

static shape shape_of(tile *t, const ir_expr *e, int depth) {
    if (t->failed) return SH_UNIFORM;
    if (!e || depth > 64) {
        t->failed = true;
        return SH_UNIFORM;
    }
    const ir_type *ty = e->type;
    if (ty->kind != IR_T_PTR && !plain_scalar(ty)) {
        if (!(e->kind == IR_E_VAR && e->var->param_kind == IR_PARAM_ATTR)) { /* a vector attribute under a swizzle */
            t->failed = true;
            return SH_UNIFORM;
        }
    }
    switch (e->kind) {
    case IR_E_CONST: return SH_UNIFORM;
    case IR_E_VAR:
        if (e->var->param_kind == IR_PARAM_ATTR && e->var->type->kind != IR_T_U32) break; /* a whole uint2 */
        return var_shape(t, e->var, 0, depth);
    case IR_E_SWIZZLE: {
        const ir_expr *a = e->args[0];
        if (e->swizzle_len != 1 || a->kind != IR_E_VAR || a->var->param_kind != IR_PARAM_ATTR) break;
        return var_shape(t, a->var, e->swizzle[0], depth);
    }
    case IR_E_DEREF: {
        const ir_expr *p = e->args[0];
        if (p->kind != IR_E_VAR || !buffer_param(t, p->var) || !lane_type(ty)) break;
        const ir_type *pt = p->var->type;
        if (!(pt->is_const || pt->space == IR_SPACE_CONSTANT)) break; /* read once: nothing writes it */
        return SH_UNIFORM;
    }
    case IR_E_INDEX: {
        const ir_expr *p = e->args[0];
        if (p->kind != IR_E_VAR || !buffer_param(t, p->var) || !lane_type(ty)) break;
        if (!ir_is_integer(e->args[1]->type)) break;
        shape s = shape_of(t, e->args[1], depth + 1);
        if (varies_by_x(s) && !lane_type(e->args[1]->type)) break;
        return s;
    }
    case IR_E_UNARY:
        if (e->op != IR_OP_NEG) {
            shape s = shape_of(t, e->args[0], depth + 1);
            if (varies_by_x(s)) break;
            return s;
        }
        return shape_of(t, e->args[0], depth + 1);
    case IR_E_BINARY: {
        shape s = join(shape_of(t, e->args[0], depth + 1), shape_of(t, e->args[1], depth + 1));
        if (varies_by_x(s)) {
            bool arith = e->op == IR_OP_ADD || e->op == IR_OP_SUB || e->op == IR_OP_MUL;
            if (!arith || !lane_type(ty) || !lane_type(e->args[0]->type)) break;
        }
        return s;
    }
    case IR_E_SELECT: {
        shape s = join(shape_of(t, e->args[0], depth + 1),
                       join(shape_of(t, e->args[1], depth + 1), shape_of(t, e->args[2], depth + 1)));
        if (varies_by_x(s)) break;
        return s;
    }
    case IR_E_CONVERT: {
        shape s = shape_of(t, e->args[0], depth + 1);
        const ir_type *from = e->args[0]->type;
        if (varies_by_x(s)) {
            bool ok = lane_type(ty) && lane_type(from) && (ty->kind != IR_T_F32 || from->kind != IR_T_F32) &&
                      !(from->kind == IR_T_F32 && ty->kind != IR_T_F32); /* float to int saturates: scalar only */
            if (!ok) break;
        }
        if (ty->kind == IR_T_BOOL || from->kind == IR_T_BOOL) {
            if (varies_by_x(s)) break;
        }
        return s;
    }
    case IR_E_CALL:
        if (e->intrinsic != IR_I_FMA || e->arg_count != 3 || ty->kind != IR_T_F32) break;
        return join(shape_of(t, e->args[0], depth + 1),
                    join(shape_of(t, e->args[1], depth + 1), shape_of(t, e->args[2], depth + 1)));
    default: break;
    }
    t->failed = true;
    return SH_UNIFORM;
}

/* `if (!(c)) break;` as the first statement of loop s: c, or NULL */
static const ir_expr *loop_exit_test(const ir_stmt *s) {
    const ir_stmt *b = s->body;
    if (!b || b->kind != IR_S_BLOCK || b->stmt_count < 1) return NULL;
    const ir_stmt *test = b->stmts[0];
    if (test->kind != IR_S_IF || test->else_s) return NULL;
    const ir_stmt *then = test->then_s;
    if (then && then->kind == IR_S_BLOCK && then->stmt_count == 1) then = then->stmts[0];
    if (!then || then->kind != IR_S_BREAK || then->target != s) return NULL;
    const ir_expr *c = test->cond;
    if (c->kind != IR_E_UNARY || c->op != IR_OP_NOT) return NULL;
    return c->args[0];
}

/* the statements of a block, or s alone */
static int stmts_of(const ir_stmt *s, const ir_stmt *const **items, const ir_stmt **single) {
    if (!s) return 0;
    if (s->kind == IR_S_BLOCK) {
        *items = (const ir_stmt *const *)s->stmts;
        return s->stmt_count;
    }
    *single = s;
    *items = single;
    return 1;
}

/* an assignment of a local (in or out of loops), or a store through a buffer (top level) */
static bool simple_stmt_ok(tile *t, const ir_stmt *s, bool top_level) {
    switch (s->kind) {
    case IR_S_DECL:
        return top_level && is_local(t, s->var) && plain_scalar(s->var->type) && !s->var->address_taken;
    case IR_S_ASSIGN:
        if (s->place->kind == IR_E_VAR)
            return is_local(t, s->place->var) && plain_scalar(s->place->type) && !s->place->var->address_taken;
        if (!top_level || s->place->kind != IR_E_INDEX) return false;
        {
            const ir_expr *p = s->place->args[0];
            return p->kind == IR_E_VAR && buffer_param(t, p->var) && lane_type(s->place->type) &&
                   !(p->var->type->is_const || p->var->type->space == IR_SPACE_CONSTANT);
        }
    default: return false;
    }
}

static bool loop_ok(tile *t, const ir_stmt *s) {
    if (!loop_exit_test(s)) return false;
    const ir_stmt *const *items;
    const ir_stmt *single;
    int n = stmts_of(s->body, &items, &single);
    for (int i = 1; i < n; i++)
        if (!simple_stmt_ok(t, items[i], false)) return false;
    n = stmts_of(s->latch, &items, &single);
    for (int i = 0; i < n; i++)
        if (!simple_stmt_ok(t, items[i], false)) return false;
    return true;
}

/* every local: inlined or stored (and which); false when the body leaves the class */
static bool classify(tile *t, const ir_func *f) {
    const ir_stmt *body = f->body;
    if (!body || body->kind != IR_S_BLOCK) return false;
    for (int i = 0; i < body->stmt_count; i++) {
        const ir_stmt *s = body->stmts[i];
        if (s->kind == IR_S_LOOP ? !loop_ok(t, s) : !simple_stmt_ok(t, s, true)) return false;
    }
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        if (!is_local(t, v)) return false;
        const ir_expr *init = t->em->inits[v->id];
        /* inlined: never assigned, and its initialiser gives the same value wherever it is read */
        bool inline_ok = !v->is_assigned && init && !reads_memory(init) && !reads_assigned_local(init);
        t->vars[v->id] = (tile_var){inline_ok ? TV_INLINE : TV_STORED, SH_UNIFORM};
    }
    /* shapes of stored locals: the join of what is assigned to them, to a fixed point */
    for (int round = 0; round < 64; round++) {
        bool changed = false;
        for (int i = 0; i < body->stmt_count; i++) {
            const ir_stmt *top = body->stmts[i];
            const ir_stmt *const *lists[3];
            const ir_stmt *singles[3];
            int counts[3] = {0, 0, 0};
            if (top->kind == IR_S_LOOP) {
                counts[0] = stmts_of(top->body, &lists[0], &singles[0]);
                counts[1] = stmts_of(top->latch, &lists[1], &singles[1]);
            } else {
                singles[2] = top;
                lists[2] = &singles[2];
                counts[2] = 1;
            }
            for (int l = 0; l < 3; l++)
                for (int j = 0; j < counts[l]; j++) {
                    const ir_stmt *s = lists[l][j];
                    const ir_var *v = s->kind == IR_S_DECL ? s->var
                                      : s->kind == IR_S_ASSIGN && s->place->kind == IR_E_VAR ? s->place->var
                                                                                               : NULL;
                    const ir_expr *value = s->kind == IR_S_DECL || s->kind == IR_S_ASSIGN ? s->value : NULL;
                    if (!v || !value || t->vars[v->id].kind != TV_STORED) continue;
                    shape sh = join(t->vars[v->id].sh, shape_of(t, value, 0));
                    if (sh != t->vars[v->id].sh) {
                        t->vars[v->id].sh = sh;
                        changed = true;
                    }
                }
        }
        if (t->failed) return false;
        if (!changed) break;
        if (round == 63) return false;
    }
    /* an inlined local only needs to stay inline where lane_step must see through it (it
     * varies by column); the others are computed once per row at their declaration, which
     * keeps the C short (emission time counts on every cache hit) */
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        if (t->vars[v->id].kind != TV_INLINE) continue;
        shape sh = shape_of(t, t->em->inits[v->id], 0);
        if (!varies_by_x(sh)) t->vars[v->id] = (tile_var){TV_STORED, sh};
    }
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        if (t->vars[v->id].kind == TV_STORED && varies_by_x(t->vars[v->id].sh) && !lane_type(v->type)) return false;
    }
    /* every expression of the body has a shape, loop tests are uniform, stores' values fit */
    for (int i = 0; i < body->stmt_count && !t->failed; i++) {
        const ir_stmt *s = body->stmts[i];
        if (s->kind == IR_S_LOOP) {
            if (shape_of(t, loop_exit_test(s), 0) != SH_UNIFORM) return false;
            const ir_stmt *const *items;
            const ir_stmt *single;
            int n = stmts_of(s->body, &items, &single);
            for (int j = 1; j < n; j++) shape_of(t, items[j]->value, 0);
            n = stmts_of(s->latch, &items, &single);
            for (int j = 0; j < n; j++) shape_of(t, items[j]->value, 0);
        } else {
            if (s->value) shape_of(t, s->value, 0);
            if (s->kind == IR_S_ASSIGN && s->place->kind == IR_E_INDEX) shape_of(t, s->place->args[1], 0);
        }
    }
    return !t->failed;
}

/* ---- lane steps: is an index x plus a value independent of x? ------------------------ */

/* the constant c with e(x) = e(0) + c * (x - x0) for every x of a row, in e's 32-bit
 * wrapping arithmetic; false when no constant c is known */
static bool lane_step(tile *t, const ir_expr *e, int64_t *c, int depth) {
    if (depth > 64) return false;
    shape s = shape_of(t, e, 0);
    if (!varies_by_x(s)) {
        *c = 0;
        return true;
    }
    if (!lane_type(e->type) || e->type->kind == IR_T_F32) return false;
    int64_t a, b;
    switch (e->kind) {
    case IR_E_SWIZZLE: *c = 1; return true; /* the x component of a position */
    case IR_E_VAR:
        if (e->var->param_kind == IR_PARAM_ATTR) { *c = 1; return true; }
        if (is_local(t, e->var) && t->vars[e->var->id].kind == TV_INLINE)
            return lane_step(t, t->em->inits[e->var->id], c, depth + 1);
        return false;
    case IR_E_CONVERT:
        if (!lane_type(e->args[0]->type) || e->args[0]->type->kind == IR_T_F32) return false;
        return lane_step(t, e->args[0], c, depth + 1);
    case IR_E_UNARY:
        if (e->op != IR_OP_NEG || !lane_step(t, e->args[0], &a, depth + 1)) return false;
        *c = -a;
        return true;
    case IR_E_BINARY:
        if (!lane_step(t, e->args[0], &a, depth + 1) || !lane_step(t, e->args[1], &b, depth + 1)) return false;
        if (e->op == IR_OP_ADD) *c = a + b;
        else if (e->op == IR_OP_SUB) *c = a - b;
        else if (e->op == IR_OP_MUL && a == 0 && e->args[0]->kind == IR_E_CONST) *c = (int64_t)e->args[0]->c.i * b;
        else if (e->op == IR_OP_MUL && b == 0 && e->args[1]->kind == IR_E_CONST) *c = a * (int64_t)e->args[1]->c.i;
        else return false;
        return *c > -(1 << 20) && *c < (1 << 20);
    default: return false;
    }
}

/* ---- emission ----------------------------------------------------------------------- */

static const char *tv_type(emitter *em, const ir_type *t) {
    return cpu_S(em, "enk_tv_%s", t->kind == IR_T_F32 ? "f32" : t->kind == IR_T_U32 ? "u32" : "i32");
}
static const char *tv_suffix(const ir_type *t) {
    return t->kind == IR_T_F32 ? "f32" : t->kind == IR_T_U32 ? "u32" : "i32";
}

static tval scalar(const char *text) { return (tval){text, false}; }

/* v as a vector of type t */
static const char *as_vec(tile *t, tval v, const ir_type *ty) {
    if (v.vec) return v.text;
    return cpu_S(t->em, "enk_tv_splat_%s(%s)", tv_suffix(ty), v.text);
}

static const char *var_name(tile *t, const ir_var *v, int row) {
    const tile_var *tv = &t->vars[v->id];
    if (t->ahead && v == t->counter) return t->counter_ahead;
    if (tv->sh == SH_UNIFORM) return cpu_S(t->em, "_u%d", v->id);
    return cpu_S(t->em, "_r%d[_row]", v->id);
}

/* e for the row `_row` of the tile (the C loop over rows, see emit_simple); lane0: the value of
 * its first column, as a scalar. (row is the row this text stands for; the text reads _row) */
static tval tex(tile *t, const ir_expr *e, int row, bool lane0);

static tval attr_value(tile *t, const ir_var *v, int comp, int row, bool lane0) {
    emitter *em = t->em;
    if (!position_attr(v->attr)) {
        const char *field = v->attr == IR_ATTR_THREADS_PER_GRID ? "grid"
                            : v->attr == IR_ATTR_THREADS_PER_THREADGROUP ? "size"
                            : v->attr == IR_ATTR_DISPATCH_THREADS_PER_THREADGROUP ? "group_size"
                            : v->attr == IR_ATTR_THREADGROUP_POSITION_IN_GRID ? "position"
                                                                              : "groups";
        return scalar(cpu_S(em, "((uint32_t)g->%s[%d])", field, comp));
    }
    bool grid = v->attr == IR_ATTR_THREAD_POSITION_IN_GRID;
    if (comp == 1) return scalar(grid ? "(_g1 + _y0 + _row)" : "(_y0 + _row)");
    if (comp == 2) return scalar(grid ? "((uint32_t)(g->position[2] * g->group_size[2]))" : "0u");
    if (lane0) return scalar(grid ? "(_g0 + _x0)" : "_x0");
    return (tval){grid ? "(_xv + (_g0 + _x0))" : "(_xv + _x0)", true};
}

static tval load(tile *t, const ir_expr *e, int row, bool lane0) {
    emitter *em = t->em;
    const ir_expr *p = e->args[0], *index = e->args[1];
    const char *base = cpu_info_of(em, p->var)->cname;
    shape s = shape_of(t, index, 0);
    if (lane0 && varies_by_x(s)) { /* lane_step never finds a step through a per-column load */
        t->failed = true;
        return scalar("0");
    }
    if (!varies_by_x(s)) return scalar(cpu_S(em, "%s[%s]", base, tex(t, index, row, lane0).text));
    int64_t step = 0;
    const char *sfx = tv_suffix(e->type);
    const char *signedness = index->type->kind == IR_T_I32 ? "i" : "u";
    tval iv = tex(t, index, row, false);
    if (lane_step(t, index, &step, 0) && step == 1) { /* consecutive unless the first + 15 wraps */
        tval first = tex(t, index, row, true);
        return (tval){cpu_S(em, "enk_tv_loadx%s_%s(%s, %s, %s)", *signedness == 'i' ? "i" : "", sfx, base, first.text,
                            as_vec(t, iv, index->type)),
                      true};
    }
    return (tval){cpu_S(em, "enk_tv_gather%s_%s(%s, %s)", signedness, sfx, base, as_vec(t, iv, index->type)), true};
}

static tval tex(tile *t, const ir_expr *e, int row, bool lane0) {
    emitter *em = t->em;
    if (!lane0)
        for (int i = 0; i < t->shared.count; i++)
            if (t->shared.items[i].expr == e) return (tval){t->shared.items[i].temp, t->shared.items[i].vec};
    const ir_type *ty = e->type;
    switch (e->kind) {
    case IR_E_CONST: return scalar(cpu_ex(em, e, -1));
    case IR_E_VAR: {
        const ir_var *v = e->var;
        if (v->param_kind == IR_PARAM_ATTR) return attr_value(t, v, 0, row, lane0);
        if (v->param_kind == IR_PARAM_BUFFER) return scalar(cpu_info_of(em, v)->cname);
        if (t->vars[v->id].kind == TV_INLINE) /* the initialiser has the local's type (IR conversions are explicit) */
            return tex(t, em->inits[v->id], row, lane0);
        if (lane0 && varies_by_x(t->vars[v->id].sh)) return scalar(cpu_S(em, "%s[0]", var_name(t, v, row)));
        return (tval){var_name(t, v, row), varies_by_x(t->vars[v->id].sh)};
    }
    case IR_E_SWIZZLE: return attr_value(t, e->args[0]->var, e->swizzle[0], row, lane0);
    case IR_E_DEREF: {
        const ir_var *p = e->args[0]->var;
        for (int i = 0; i < t->derefs.count; i++)
            if (t->derefs.items[i] == p) return scalar(cpu_S(em, "_d%d", p->id));
        EN_PUSH(&em->arena, t->derefs, p);
        return scalar(cpu_S(em, "_d%d", p->id));
    }
    case IR_E_INDEX: return load(t, e, row, lane0);
    case IR_E_UNARY: {
        tval a = tex(t, e->args[0], row, lane0);
        if (a.vec) {
            if (ty->kind == IR_T_F32) return (tval){cpu_S(em, "(-%s)", a.text), true};
            return (tval){cpu_S(em, "((%s)(0u - (enk_tv_u32)%s))", tv_type(em, ty), a.text), true};
        }
        if (e->op == IR_OP_NEG) {
            if (ir_is_float(ty)) return scalar(cpu_S(em, "(-%s)", a.text));
            return scalar(cpu_S(em, "((%s)(0u - (%s)%s))", cpu_scalar_ctype(ty->kind), cpu_wide_unsigned(ty), a.text));
        }
        if (e->op == IR_OP_NOT) return scalar(cpu_S(em, "(!%s)", a.text));
        if (ty->kind == IR_T_BOOL) return scalar(cpu_S(em, "(!%s)", a.text));
        return scalar(cpu_S(em, "((%s)~%s)", cpu_scalar_ctype(ty->kind), a.text));
    }
    case IR_E_BINARY: {
        tval a = tex(t, e->args[0], row, lane0);
        tval b = tex(t, e->args[1], row, lane0);
        const ir_type *ot = e->args[0]->type;
        const char *sym = ir_op_name(e->op);
        /* uint32_t arithmetic wraps in C as it is (no promotion to int): no casts needed */
        bool plain = ot->kind == IR_T_U32 && (e->op == IR_OP_ADD || e->op == IR_OP_SUB || e->op == IR_OP_MUL);
        if (!a.vec && !b.vec) {
            if (plain) return scalar(cpu_S(em, "(%s %s %s)", a.text, sym, b.text));
            return scalar(cpu_binary_expr(em, e->op, ot, a.text, b.text));
        }
        const char *x = as_vec(t, a, ot), *y = as_vec(t, b, ot);
        if (ot->kind == IR_T_F32 || plain) return (tval){cpu_S(em, "(%s %s %s)", x, sym, y), true};
        /* integers wrap, as on the GPU: computed unsigned */
        return (tval){cpu_S(em, "((%s)((enk_tv_u32)%s %s (enk_tv_u32)%s))", tv_type(em, ty), x, sym, y), true};
    }
    case IR_E_SELECT: {
        tval c = tex(t, e->args[0], row, lane0);
        tval a = tex(t, e->args[1], row, lane0);
        tval b = tex(t, e->args[2], row, lane0);
        return scalar(cpu_S(em, "(%s ? %s : %s)", c.text, a.text, b.text));
    }
    case IR_E_CONVERT: {
        tval a = tex(t, e->args[0], row, lane0);
        const ir_type *from = e->args[0]->type;
        if (!a.vec) {
            if (ty->kind == IR_T_BOOL) return scalar(cpu_S(em, "(%s != 0)", a.text));
            if (ir_is_float(ty)) return scalar(cpu_S(em, "(float)(%s)", a.text));
            if (ir_is_float(from)) return scalar(cpu_S(em, "enk_cvt_%s(%s)", cpu_suffix_of(ty), a.text));
            return scalar(cpu_S(em, "((%s)(%s))", cpu_scalar_ctype(ty->kind), a.text));
        }
        if (ty->kind == IR_T_F32) return (tval){cpu_S(em, "__builtin_convertvector(%s, enk_tv_f32)", a.text), true};
        return (tval){cpu_S(em, "((%s)%s)", tv_type(em, ty), a.text), true}; /* u32 <-> i32: the same bits */
    }
    case IR_E_CALL: {
        tval a = tex(t, e->args[0], row, lane0);
        tval b = tex(t, e->args[1], row, lane0);
        tval c = tex(t, e->args[2], row, lane0);
        if (!a.vec && !b.vec && !c.vec) return scalar(cpu_S(em, "__builtin_fmaf(%s, %s, %s)", a.text, b.text, c.text));
        return (tval){cpu_S(em, "enk_tv_fma_f32(%s, %s, %s)", as_vec(t, a, ty), as_vec(t, b, ty), as_vec(t, c, ty)),
                      true};
    }
    default: break;
    }
    t->failed = true;
    return scalar("0");
}

/* Inside a loop stepped by a constant (emit_loop), a column load whose index moves with the
 * counter (`B[k * N + col]`: a row of B a step, N floats apart) prefetches the address
 * PREFETCH_STEPS steps on, to L2. Each step is a new 4 KiB page at N = 1024, which the
 * hardware prefetchers do not follow: seed 002's naive GEMM at 1024^3 waited on every
 * step's line (one core, a harness over the generated C: 5.9 -> 31 GFLOP/s at 16 steps on,
 * 16 at 8, 32 at 32). A prefetch never faults; a wrong address costs bandwidth only. */
enum { PREFETCH_STEPS = 16 };

static void prefetch_ahead(tile *t, const ir_expr *load) {
    if (!t->counter) return;
    const ir_expr *index = load->args[1];
    tval now = tex(t, index, 0, true);
    t->ahead = true;
    tval later = tex(t, index, 0, true);
    t->ahead = false;
    if (!strcmp(now.text, later.text)) return; /* the index does not move with the counter */
    cpu_line(t->em, "__builtin_prefetch((const void *)((uintptr_t)%s + (uint64_t)%s * %uu), 0, 2);",
             cpu_info_of(t->em, load->args[0]->var)->cname, later.text, load->type->size);
}

/* loads in e that are the same for every row (made once per statement, before the rows) */
static void share_loads(tile *t, const ir_expr *e) {
    if (!e) return;
    if (e->kind == IR_E_INDEX && e->args[0]->type->kind == IR_T_PTR && shape_of(t, e, 0) == SH_COLUMN) {
        prefetch_ahead(t, e);
        tval v = tex(t, e, 0, false);
        const char *temp = cpu_S(t->em, "_s%d", cpu_fresh(t->em));
        cpu_line(t->em, "const %s %s = %s;", tv_type(t->em, e->type), temp, v.text);
        EN_PUSH(&t->em->arena, t->shared, ((memo){e, temp, true}));
        return;
    }
    if (e->kind == IR_E_VAR && is_local(t, e->var) && t->vars[e->var->id].kind == TV_INLINE) return;
    for (int i = 0; i < e->arg_count; i++) share_loads(t, e->args[i]);
}

static void emit_simple(tile *t, const ir_stmt *s) {
    emitter *em = t->em;
    t->shared.count = 0;
    cpu_line(em, "/* %s */", cpu_source_note(em, s->loc));
    if (s->kind == IR_S_DECL && t->vars[s->var->id].kind == TV_INLINE) return;
    if (s->kind == IR_S_DECL && !s->value) return; /* declared at the top, zeroed */
    const ir_expr *place = s->kind == IR_S_DECL ? NULL : s->place;
    const ir_var *v = s->kind == IR_S_DECL ? s->var : place->kind == IR_E_VAR ? place->var : NULL;
    share_loads(t, s->value);
    if (place && place->kind == IR_E_INDEX) share_loads(t, place->args[1]);
    if (v && t->vars[v->id].sh == SH_UNIFORM) { /* once for the group */
        tval x = tex(t, s->value, 0, false);
        cpu_line(em, "%s = %s;", var_name(t, v, 0), x.text);
        return;
    }
    /* a C loop over the rows, unrolled by gcc (so each row's variables, arrays indexed by
     * _row, stay in registers): a row's statement reads only its own variables and the
     * shared loads, so the rows may go in any order */
    cpu_line(em, "_Pragma(\"GCC unroll 8\")");
    OPEN("for (uint32_t _row = 0; _row < _R; _row++) {");
    tval x = tex(t, s->value, 0, false);
    if (v) {
        bool vec = varies_by_x(t->vars[v->id].sh);
        cpu_line(em, "%s = %s;", var_name(t, v, 0), vec ? as_vec(t, x, v->type) : x.text);
        CLOSE();
        return;
    }
    /* a store through a buffer */
    const ir_expr *index = place->args[1];
    const char *base = cpu_info_of(em, place->args[0]->var)->cname;
    shape is = shape_of(t, index, 0);
    const char *sfx = tv_suffix(place->type);
    const char *signedness = index->type->kind == IR_T_I32 ? "i" : "u";
    int64_t step = 0;
    if (!varies_by_x(is)) { /* every column stores to one address: the last column's value wins */
        tval i = tex(t, index, 0, false);
        cpu_line(em, "%s[%s] = %s;", base, i.text, x.vec ? cpu_S(em, "%s[15]", x.text) : x.text);
    } else if (lane_step(t, index, &step, 0) && step == 1) {
        const char *value = as_vec(t, x, place->type);
        tval iv = tex(t, index, 0, false);
        tval first = tex(t, index, 0, true);
        cpu_line(em, "enk_tv_storex%s_%s(%s, %s, %s, %s);", *signedness == 'i' ? "i" : "", sfx, base, first.text,
                 as_vec(t, iv, index->type), value);
    } else {
        const char *value = as_vec(t, x, place->type);
        tval iv = tex(t, index, 0, false);
        cpu_line(em, "enk_tv_scatter%s_%s(%s, %s, %s);", signedness, sfx, base, as_vec(t, iv, index->type), value);
    }
    CLOSE();
}

/* `v = v + C` among the latch's statements, v a uniform local and C a positive constant
 * (`k++`): v, else NULL. Only prefetch addresses rest on it, so nothing else is checked. */
static const ir_var *stepped_counter(tile *t, const ir_stmt *const *latch, int n, unsigned long long *step) {
    for (int i = 0; i < n; i++) {
        const ir_var *v = ir_stepped_var(latch[i], step);
        if (v && is_local(t, v) && t->vars[v->id].sh == SH_UNIFORM && t->vars[v->id].kind == TV_STORED &&
            (v->type->kind == IR_T_U32 || v->type->kind == IR_T_I32))
            return v;
    }
    return NULL;
}

static void emit_loop(tile *t, const ir_stmt *s) {
    emitter *em = t->em;
    OPEN("for (;;) { /* the same in every thread: %s */", cpu_source_note(em, s->loc));
    t->shared.count = 0; /* the previous statement's shared loads are out of scope */
    tval c = tex(t, loop_exit_test(s), 0, false);
    cpu_line(em, "if (!(%s)) break;", c.text);
    const ir_stmt *const *items, *const *latch;
    const ir_stmt *single, *latch_single;
    int n = stmts_of(s->body, &items, &single), latch_n = stmts_of(s->latch, &latch, &latch_single);
    unsigned long long step = 0;
    const ir_var *outer = t->counter;
    const char *outer_ahead = t->counter_ahead;
    t->counter = stepped_counter(t, latch, latch_n, &step);
    if (t->counter) /* in the counter's type, wrapping */
        t->counter_ahead = cpu_S(em, "((%s)((uint32_t)%s + %lluu))", cpu_scalar_ctype(t->counter->type->kind),
                                 var_name(t, t->counter, 0), PREFETCH_STEPS * step);
    for (int i = 1; i < n; i++) emit_simple(t, items[i]);
    t->counter = NULL; /* the latch's statements are the step itself */
    for (int i = 0; i < latch_n; i++) emit_simple(t, latch[i]);
    t->counter = outer;
    t->counter_ahead = outer_ahead;
    CLOSE();
}

/* the body of a tile, once: it reads the row count as _R, which each block defines */
static bool emit_tile_body(tile *t, const ir_func *f, en_buf *body) {
    emitter *em = t->em;
    en_buf *out = em->out;
    int indent = em->indent;
    em->out = body;
    em->indent = indent + 3;
    for (int k = 0; k < f->locals.count; k++) {
        const ir_var *v = f->locals.items[k];
        const tile_var *tv = &t->vars[v->id];
        if (tv->kind != TV_STORED) continue;
        bool vec = varies_by_x(tv->sh);
        const char *T = vec ? tv_type(em, v->type) : cpu_ctype(em, v->type);
        if (tv->sh == SH_UNIFORM)
            cpu_line(em, "%s %s = 0; (void)%s; /* %s, the same in every thread */", T, var_name(t, v, 0),
                     var_name(t, v, 0), v->name);
        else
            cpu_line(em, "%s _r%d[_R] = {0}; /* %s, per row */", T, v->id, v->name);
    }
    for (int i = 0; i < f->body->stmt_count && !t->failed; i++) {
        const ir_stmt *s = f->body->stmts[i];
        if (s->kind == IR_S_LOOP) emit_loop(t, s);
        else emit_simple(t, s);
    }
    em->out = out;
    em->indent = indent;
    return !t->failed && !em->failed && !body->out_of_memory;
}

/* `if (<the group's shape fits tiles of `rows` rows>) { ... return; }` around the body */
static void emit_tile_block(tile *t, int rows, const char *body) {
    emitter *em = t->em;
    cpu_line(em, "/* register tiles (emit_tile.c): %d rows of %d threads run the body together, every", rows,
             TILE_WIDTH);
    cpu_line(em, " * per-thread value a vector of the row's 16 threads (or a scalar where it does not");
    cpu_line(em, " * depend on the column); loops the same in every thread run once for the tile */");
    OPEN("if (g->size[2] == 1 && g->size[0] %% %uu == 0 && g->size[1] %% %uu == 0) {", TILE_WIDTH, rows);
    cpu_line(em, "enum { _R = %d }; /* rows per tile */", rows);
    cpu_line(em, "const uint32_t _sx = g->size[0], _sy = g->size[1];");
    cpu_line(em, "const uint32_t _g0 = g->position[0] * g->group_size[0], _g1 = g->position[1] * g->group_size[1];");
    cpu_line(em, "(void)_g0; (void)_g1;");
    cpu_line(em, "const enk_tv_u32 _xv = ENK_TV_IOTA; (void)_xv;");
    for (int i = 0; i < t->derefs.count; i++) {
        const ir_var *p = t->derefs.items[i];
        const char *cn = cpu_info_of(em, p)->cname;
        cpu_line(em, "const %s _d%d = %s ? *%s : 0; /* constant: read once */", cpu_ctype(em, p->type->elem), p->id, cn,
                 cn);
    }
    OPEN("for (uint32_t _y0 = 0; _y0 < _sy; _y0 += _R) {");
    OPEN("for (uint32_t _x0 = 0; _x0 < _sx; _x0 += %uu) {", TILE_WIDTH);
    en_buf_puts(em->out, body);
    CLOSE();
    CLOSE();
    cpu_line(em, "return;");
    CLOSE();
}

EN_INTERNAL bool cpu_tile_body(emitter *em, const ir_func *f) {
    if (em->checked || !em->fast_paths || f->threadgroup_vars.count) return false;
    for (int k = 0; k < f->param_count; k++) {
        const ir_var *v = f->params[k];
        if (v->param_kind == IR_PARAM_THREADGROUP) return false;
        if (v->param_kind == IR_PARAM_ATTR && !attr_ok(v)) return false;
        if (v->param_kind == IR_PARAM_BUFFER && cpu_info_of(em, v)->kind != VK_UNIFORM) return false;
    }
    tile ts = {0}, *t = &ts;
    t->em = em;
    t->f = f;
    t->vars = en_alloc(&em->arena, sizeof(tile_var) * (size_t)em->var_count);
    for (int i = 0; i < em->var_count; i++) t->vars[i] = (tile_var){TV_NONE, SH_UNIFORM};
    if (!classify(t, f)) return false;
    /* the tile pays only where a loop carries a per-thread value (else the region code's
     * lane loops are as good) */
    bool carried = false;
    for (int i = 0; i < f->body->stmt_count; i++) {
        const ir_stmt *s = f->body->stmts[i];
        if (s->kind != IR_S_LOOP) continue;
        const ir_stmt *const *items;
        const ir_stmt *single;
        int n = stmts_of(s->body, &items, &single);
        for (int j = 1; j < n; j++)
            if (items[j]->kind == IR_S_ASSIGN && items[j]->place->kind == IR_E_VAR &&
                t->vars[items[j]->place->var->id].sh == SH_THREAD)
                carried = true;
    }
    if (!carried) return false;

    en_buf body = {0};
    int counter = em->counter;
    bool ok = emit_tile_body(t, f, &body);
    if (ok) {
        /* eight rows where the group's height allows (B's slice read once per eight fma), else four */
        emit_tile_block(t, 8, body.data ? body.data : "");
        emit_tile_block(t, 4, body.data ? body.data : "");
    } else {
        em->counter = counter;
    }
    en_buf_free(&body);
    return ok;
}
