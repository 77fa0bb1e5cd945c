/* fold.c — the fold pass: constant propagation, constant folding, constant control flow
 * and dead locals, over the inlined kernels. After inlining, values a template argument or
 * a function constant fixes are constants only as locals (`int num_steps = 0;` then
 * `for (s = 0; s < num_steps; ...)`); this pass makes them constants at their uses and
 * removes the code they rule out, as Metal's compiler does once function constants are
 * set, so that backends do not generate (and gcc does not compile) code no thread runs.
 *
 * Needs: a verified module after the inline pass (no IR_S_CALL; ids of a kernel's
 *        variables below its next_var_id).
 * Guarantees (each kernel, repeated to a fixed point, at most FOLD_ROUNDS rounds):
 *   - propagation: a read of a scalar local whose value on every path to the read is one
 *     constant (from its declaration or an assignment of the whole variable) becomes that
 *     constant. The walk follows the structured control flow: both arms of an if must
 *     agree; a variable written anywhere in a loop's body or latch is unknown throughout
 *     the loop and after it; a variable whose address is taken (IR_E_ADDR of it or of part
 *     of it, anywhere in the kernel) is never tracked. Scalar program-scope constants with
 *     a constant initializer are read as that constant;
 *   - copies: likewise a read of a local that holds a copy of another tracked local or
 *     parameter (`int a = b;`, as inlining makes of every argument) becomes a read of that
 *     one, while neither is written again and that one is in scope (a block's end ends the
 *     copies of what it declares);
 *   - folding: unary, binary, select and convert nodes with constant operands become
 *     constants computed as the backends compute them at run time: integers wrap in the
 *     width of their IR type; integer division and remainder by zero (and the signed
 *     MIN / -1), shifts by a negative amount or by the width or more are left alone;
 *     floats are only compared, negated and converted where the result is exact (no float
 *     arithmetic is folded: backends may contract or flush it). `false && x`, `true || x`
 *     and their mirrors fold whatever x is (expressions are pure);
 *   - control flow: an if with a constant condition becomes the arm taken (the other arm,
 *     barriers and all, is gone); an if with empty arms is gone; a loop whose body opens
 *     with `if (c) break` (to itself) where c is true on entry is gone; statements after
 *     a break, continue or return in their block are gone;
 *   - dead locals: a local that is never read (its address never taken, not an intrinsic's
 *     result) loses its declaration and every assignment to it or to a part of it, and
 *     leaves the function's locals; stores through pointers and intrinsic statements are
 *     never removed;
 *   - every node keeps its source location; a constant that replaces a read carries the
 *     read's location. */
#include "pass.h"

#include <math.h>
#include <string.h>

enum { FOLD_ROUNDS = 8 };

/* one change to the known values, so that an if's arms and a loop's body can be walked
 * from one state and the state restored (linear in the statements, not in the variables) */
typedef struct trail_entry {
    int id;
    ir_expr *old;
} trail_entry;

typedef struct folder {
    ir_module *m;
    ir_func *f;
    int nvars;
    ir_type *bool_type;
    uint8_t *addressed;  /* per id: its address (or a part's) is taken somewhere */
    ir_expr **known;     /* per id: the constant the variable holds here, or the variable
                            (IR_E_VAR) it is a copy of, or NULL */
    EN_VEC(int) *copies; /* per id: the variables once known to be copies of it (some may
                            be no more): a write to it ends them */
    EN_VEC(trail_entry) trail;
    int *stamp;          /* per id: scratch marks for merging an if's arms */
    ir_expr **arm_value; /* per id: an arm's end value, where stamp says so */
    int stamp_now;
    /* dead locals */
    int *reads;          /* per id: reads, address-of and intrinsic results */
    uint8_t *declared;   /* per id: a declaration is still in the body */
    bool changed;
} folder;

/* ---- variables ------------------------------------------------------------------------ */
static bool id_ok(const folder *fo, const ir_var *v) {
    return v && v->storage == IR_VAR_LOCAL && v->id >= 0 && v->id < fo->nvars;
}

static bool tracked(const folder *fo, const ir_var *v) {
    return id_ok(fo, v) && !fo->addressed[v->id];
}

/* the variable a place writes when it is a variable or a part of one; NULL when it is
 * memory reached through a pointer */
static ir_var *place_root(const ir_expr *e) {
    while (e) {
        switch (e->kind) {
        case IR_E_VAR: return e->var;
        case IR_E_INDEX:
            if (e->args[0]->type->kind == IR_T_PTR) return NULL;
            e = e->args[0];
            break;
        case IR_E_FIELD:
        case IR_E_SWIZZLE: e = e->args[0]; break;
        default: return NULL;
        }
    }
    return NULL;
}

static void set_known(folder *fo, int id, ir_expr *value) {
    if (fo->known[id] == value) return;
    EN_PUSH(fo->m->arena, fo->trail, ((trail_entry){id, fo->known[id]}));
    fo->known[id] = value;
}

static void undo_to(folder *fo, int mark) {
    while (fo->trail.count > mark) {
        trail_entry t = fo->trail.items[--fo->trail.count];
        fo->known[t.id] = t.old;
    }
}

/* the variable id now holds `value` (a constant, a tracked variable, or anything else:
 * then unknown); copies of its former value are no longer copies */
static void write_var(folder *fo, int id, ir_expr *value) {
    for (int i = 0; i < fo->copies[id].count; i++) {
        int c = fo->copies[id].items[i];
        ir_expr *k = fo->known[c];
        if (k && k->kind == IR_E_VAR && k->var->id == id) set_known(fo, c, NULL);
    }
    if (value && value->kind == IR_E_VAR && (!tracked(fo, value->var) || value->var->id == id)) value = NULL;
    else if (value && value->kind != IR_E_VAR && !(value->kind == IR_E_CONST && ir_is_scalar(value->type))) value = NULL;
    if (value && value->kind == IR_E_VAR) EN_PUSH(fo->m->arena, fo->copies[value->var->id], id);
    set_known(fo, id, value);
}

/* ---- constants ------------------------------------------------------------------------- */
static int bits_of(const ir_type *t) { return (int)t->size * 8; }

/* a constant's bits as an unsigned 64-bit value (signed kinds sign-extended) */
static uint64_t raw_of(const ir_expr *e) {
    return ir_is_signed(e->type) ? (uint64_t)e->c.i : e->c.u;
}

/* the integer constant of type t whose low bits are `raw`: wraps as the backends do */
static ir_expr *int_const(folder *fo, ir_type *t, uint64_t raw, en_loc loc) {
    if (t->kind == IR_T_BOOL) return ir_const_uint(fo->m, t, raw != 0, loc);
    int w = bits_of(t);
    if (w < 64) raw &= ((uint64_t)1 << w) - 1;
    if (ir_is_signed(t)) {
        if (w < 64 && (raw >> (w - 1)) & 1) raw |= ~(((uint64_t)1 << w) - 1);
        return ir_const_int(fo->m, t, (int64_t)raw, loc);
    }
    return ir_const_uint(fo->m, t, raw, loc);
}

static ir_expr *bool_const(folder *fo, bool v, en_loc loc) {
    return ir_const_uint(fo->m, fo->bool_type, v, loc);
}

static bool is_const(const ir_expr *e) { return e && e->kind == IR_E_CONST && ir_is_scalar(e->type); }
static bool is_true(const ir_expr *e) { return is_const(e) && e->type->kind == IR_T_BOOL && e->c.u; }
static bool is_false(const ir_expr *e) { return is_const(e) && e->type->kind == IR_T_BOOL && !e->c.u; }

/* the largest integer a float kind represents exactly together with all below it */
static double exact_int_limit(ir_type_kind k) {
    switch (k) {
    case IR_T_F32: return 16777216.0;  /* 2^24 */
    case IR_T_F16: return 2048.0;      /* 2^11 */
    case IR_T_BF16: return 256.0;      /* 2^8 */
    default: return 0;
    }
}

static ir_expr *fold_convert(folder *fo, const ir_expr *e, const ir_expr *a) {
    ir_type *to = e->type, *from = a->type;
    if (!ir_is_scalar(to)) return NULL;
    if (to->kind == IR_T_BOOL) {
        if (ir_is_float(from)) return bool_const(fo, a->c.f != 0, e->loc);
        return bool_const(fo, raw_of(a) != 0, e->loc);
    }
    if (ir_is_float(to)) {
        if (ir_is_float(from)) { /* widening is exact; narrowing rounds: left alone */
            if (from->kind == to->kind || to->kind == IR_T_F32)
                return ir_const_float(fo->m, to, a->c.f, e->loc);
            return NULL;
        }
        double v = ir_is_signed(from) ? (double)a->c.i : (double)a->c.u;
        if (fabs(v) > exact_int_limit(to->kind)) return NULL;
        return ir_const_float(fo->m, to, v, e->loc);
    }
    if (ir_is_float(from)) { /* truncation toward zero when the result is in range */
        double t = trunc(a->c.f);
        if (!isfinite(t)) return NULL;
        int w = bits_of(to);
        double lo = ir_is_signed(to) ? -ldexp(1.0, w - 1) : 0, hi = ir_is_signed(to) ? ldexp(1.0, w - 1) : ldexp(1.0, w);
        if (!(t >= lo && t < hi)) return NULL;
        return ir_is_signed(to) ? int_const(fo, to, (uint64_t)(int64_t)t, e->loc)
                                : int_const(fo, to, (uint64_t)t, e->loc);
    }
    return int_const(fo, to, raw_of(a), e->loc); /* integer or bool to integer: wraps */
}

static ir_expr *fold_unary(folder *fo, const ir_expr *e, const ir_expr *a) {
    ir_type *t = e->type;
    if (ir_is_float(t)) return e->op == IR_OP_NEG ? ir_const_float(fo->m, t, -a->c.f, e->loc) : NULL;
    switch (e->op) {
    case IR_OP_NOT: return bool_const(fo, raw_of(a) == 0, e->loc);
    case IR_OP_NEG: return int_const(fo, t, 0 - raw_of(a), e->loc);
    case IR_OP_BITNOT:
        if (t->kind == IR_T_BOOL) return bool_const(fo, raw_of(a) == 0, e->loc);
        return int_const(fo, t, ~raw_of(a), e->loc);
    default: return NULL;
    }
}

static ir_expr *fold_float_compare(folder *fo, const ir_expr *e, double x, double y) {
    switch (e->op) {
    case IR_OP_EQ: return bool_const(fo, x == y, e->loc);
    case IR_OP_NE: return bool_const(fo, x != y, e->loc);
    case IR_OP_LT: return bool_const(fo, x < y, e->loc);
    case IR_OP_LE: return bool_const(fo, x <= y, e->loc);
    case IR_OP_GT: return bool_const(fo, x > y, e->loc);
    case IR_OP_GE: return bool_const(fo, x >= y, e->loc);
    default: return NULL; /* float arithmetic: see the top of this file */
    }
}

static ir_expr *fold_binary(folder *fo, const ir_expr *e, const ir_expr *a, const ir_expr *b) {
    ir_type *t = a->type;
    if (ir_is_float(t)) return fold_float_compare(fo, e, a->c.f, b->c.f);
    bool sgn = ir_is_signed(t);
    uint64_t x = raw_of(a), y = raw_of(b);
    int64_t sx = (int64_t)x, sy = (int64_t)y;
    int w = t->kind == IR_T_BOOL ? 1 : bits_of(t);
    switch (e->op) {
    case IR_OP_ADD: return int_const(fo, t, x + y, e->loc);
    case IR_OP_SUB: return int_const(fo, t, x - y, e->loc);
    case IR_OP_MUL: return int_const(fo, t, x * y, e->loc);
    case IR_OP_DIV:
    case IR_OP_REM: {
        if (y == 0) return NULL;                  /* the backends' guard decides */
        if (sgn) {
            int64_t min = w == 64 ? INT64_MIN : -((int64_t)1 << (w - 1));
            if (sx == min && sy == -1) return NULL;
            return int_const(fo, t, (uint64_t)(e->op == IR_OP_DIV ? sx / sy : sx % sy), e->loc);
        }
        return int_const(fo, t, e->op == IR_OP_DIV ? x / y : x % y, e->loc);
    }
    case IR_OP_SHL:
    case IR_OP_SHR:
        if ((sgn && sy < 0) || y >= (uint64_t)w) return NULL; /* backends mask the count */
        if (e->op == IR_OP_SHL) return int_const(fo, t, x << y, e->loc);
        return int_const(fo, t, sgn ? (uint64_t)(sx >> sy) : x >> y, e->loc);
    case IR_OP_AND: return int_const(fo, t, x & y, e->loc);
    case IR_OP_OR: return int_const(fo, t, x | y, e->loc);
    case IR_OP_XOR: return int_const(fo, t, x ^ y, e->loc);
    case IR_OP_EQ: return bool_const(fo, x == y, e->loc);
    case IR_OP_NE: return bool_const(fo, x != y, e->loc);
    case IR_OP_LT: return bool_const(fo, sgn ? sx < sy : x < y, e->loc);
    case IR_OP_LE: return bool_const(fo, sgn ? sx <= sy : x <= y, e->loc);
    case IR_OP_GT: return bool_const(fo, sgn ? sx > sy : x > y, e->loc);
    case IR_OP_GE: return bool_const(fo, sgn ? sx >= sy : x >= y, e->loc);
    case IR_OP_LOGAND: return bool_const(fo, x && y, e->loc);
    case IR_OP_LOGOR: return bool_const(fo, x || y, e->loc);
    default: return NULL;
    }
}

/* ---- expressions ------------------------------------------------------------------------ */
static ir_expr *fold_expr(folder *fo, ir_expr *e);

/* e with its operands replaced; e itself when none changed (nodes are never modified in
 * place: a loop's exit test is folded under its entry values without touching it) */
static ir_expr *with_args(folder *fo, ir_expr *e, ir_expr **args) {
    bool same = true;
    for (int i = 0; i < e->arg_count; i++) same = same && args[i] == e->args[i];
    if (same) return e;
    ir_expr *c = ir_expr_new(fo->m, e->kind, e->type, e->loc, 0);
    *c = *e;
    c->args = en_alloc(fo->m->arena, sizeof(ir_expr *) * (size_t)e->arg_count);
    memcpy(c->args, args, sizeof(ir_expr *) * (size_t)e->arg_count);
    return c;
}

/* a read of a variable: the constant it holds, the variable it is a copy of, or itself */
static ir_expr *var_read(folder *fo, ir_expr *e) {
    ir_var *v = e->var;
    ir_expr *c = NULL;
    if (tracked(fo, v)) c = fo->known[v->id];
    else if (v && v->storage == IR_VAR_CONSTANT && is_const(v->init) && v->init->type == e->type) c = v->init;
    if (!c) return e;
    if (c->kind == IR_E_VAR) return ir_var_ref(fo->m, c->var, e->loc);
    ir_expr *r = ir_expr_new(fo->m, IR_E_CONST, e->type, e->loc, 0);
    r->c = c->c;
    return r;
}

/* a place: indices and the pointers it goes through are values; its variable stays where
 * the place is written or addressed, and where it is read becomes the variable it is a
 * copy of (never a constant: a part of a variable is not a scalar's value) */
static ir_expr *fold_place(folder *fo, ir_expr *e, bool read) {
    ir_expr *args[2];
    switch (e->kind) {
    case IR_E_VAR: {
        ir_expr *r = read ? var_read(fo, e) : e;
        return r->kind == IR_E_VAR ? r : e;
    }
    case IR_E_INDEX:
        args[0] = e->args[0]->type->kind == IR_T_PTR ? fold_expr(fo, e->args[0]) : fold_place(fo, e->args[0], read);
        args[1] = fold_expr(fo, e->args[1]);
        return with_args(fo, e, args);
    case IR_E_FIELD:
    case IR_E_SWIZZLE:
        args[0] = fold_place(fo, e->args[0], read);
        return with_args(fo, e, args);
    case IR_E_DEREF:
        args[0] = fold_expr(fo, e->args[0]);
        return with_args(fo, e, args);
    default: return e; /* a value the verifier objects to */
    }
}

static ir_expr *fold_expr(folder *fo, ir_expr *e) {
    if (!e) return NULL;
    switch (e->kind) {
    case IR_E_CONST: return e;
    case IR_E_VAR: return var_read(fo, e);
    case IR_E_INDEX:
    case IR_E_FIELD:
    case IR_E_SWIZZLE:
        if (!ir_is_place(e->args[0]) && e->args[0]->type->kind != IR_T_PTR) break; /* of a value */
        return fold_place(fo, e, true);
    case IR_E_DEREF: return fold_place(fo, e, true);
    case IR_E_ADDR: {
        ir_expr *args[1] = {fold_place(fo, e->args[0], false)};
        return with_args(fo, e, args);
    }
    default: break;
    }
    ir_expr *small[4], **args = e->arg_count <= 4 ? small : en_alloc(fo->m->arena, sizeof(ir_expr *) * (size_t)e->arg_count);
    for (int i = 0; i < e->arg_count; i++) args[i] = fold_expr(fo, e->args[i]);
    ir_expr *r = NULL;
    switch (e->kind) {
    case IR_E_UNARY:
        if (is_const(args[0]) && ir_is_scalar(e->type)) r = fold_unary(fo, e, args[0]);
        break;
    case IR_E_BINARY:
        if (is_const(args[0]) && is_const(args[1]) && ir_is_scalar(e->type)) r = fold_binary(fo, e, args[0], args[1]);
        else if (e->op == IR_OP_LOGAND && (is_false(args[0]) || is_false(args[1]))) r = bool_const(fo, false, e->loc);
        else if (e->op == IR_OP_LOGOR && (is_true(args[0]) || is_true(args[1]))) r = bool_const(fo, true, e->loc);
        else if (e->op == IR_OP_LOGAND && is_true(args[0]) && args[1]->type == e->type) r = args[1];
        else if (e->op == IR_OP_LOGAND && is_true(args[1]) && args[0]->type == e->type) r = args[0];
        else if (e->op == IR_OP_LOGOR && is_false(args[0]) && args[1]->type == e->type) r = args[1];
        else if (e->op == IR_OP_LOGOR && is_false(args[1]) && args[0]->type == e->type) r = args[0];
        break;
    case IR_E_SELECT:
        if (is_const(args[0]) && args[0]->type->kind == IR_T_BOOL) r = args[0]->c.u ? args[1] : args[2];
        break;
    case IR_E_CONVERT:
        if (is_const(args[0])) r = fold_convert(fo, e, args[0]);
        break;
    default: break;
    }
    if (r) return r;
    return with_args(fo, e, args);
}

static ir_expr *fold_value(folder *fo, ir_expr *e) {
    ir_expr *r = fold_expr(fo, e);
    if (r != e) fo->changed = true;
    return r;
}

/* ---- statements ------------------------------------------------------------------------- */
/* the variable one statement writes (declares, assigns, receives an intrinsic's result)
 * becomes unknown */
static void forget_one(const ir_stmt *s, void *folder_ctx) {
    folder *fo = folder_ctx;
    ir_var *v = s->kind == IR_S_DECL                                   ? s->var
                : s->kind == IR_S_ASSIGN                               ? place_root(s->place)
                : s->kind == IR_S_INTRINSIC || s->kind == IR_S_CALL ? s->result
                                                                       : NULL;
    if (tracked(fo, v)) write_var(fo, v->id, NULL);
}

/* every variable the statement or one nested in it writes becomes unknown: what a loop
 * does before its body runs */
static void forget_written(folder *fo, const ir_stmt *s) { ir_stmt_each(s, forget_one, fo); }

static bool is_break_of(const ir_stmt *s, const ir_stmt *loop) {
    while (s && s->kind == IR_S_BLOCK && s->stmt_count == 1) s = s->stmts[0];
    return s && s->kind == IR_S_BREAK && s->target == loop;
}

/* does the loop leave before doing anything on its first iteration? (its body opens with
 * `if (c) break` to itself, and c is true under the values known on entry) */
static bool leaves_on_entry(folder *fo, const ir_stmt *loop) {
    const ir_stmt *b = loop->body;
    while (b && b->kind == IR_S_BLOCK && b->stmt_count > 0) b = b->stmts[0];
    if (!b || b->kind != IR_S_IF || !is_break_of(b->then_s, loop)) return false;
    return is_true(fold_expr(fo, b->cond));
}

static bool is_empty(const ir_stmt *s) {
    if (!s) return true;
    if (s->kind != IR_S_BLOCK) return false;
    for (int i = 0; i < s->stmt_count; i++)
        if (!is_empty(s->stmts[i])) return false;
    return true;
}

static ir_stmt *fold_stmt(folder *fo, ir_stmt *s, bool *falls_through);

/* the known values after an if whose arms were walked from one state: each variable
 * either arm changed keeps a value only where both arms end with it */
typedef struct arm_end {
    EN_VEC(trail_entry) values; /* (id, value at the arm's end) for ids the arm changed */
    bool falls_through;
} arm_end;

static void arm_values(folder *fo, int mark, arm_end *out) {
    for (int i = mark; i < fo->trail.count; i++) {
        int id = fo->trail.items[i].id;
        EN_PUSH(fo->m->arena, out->values, ((trail_entry){id, fo->known[id]}));
    }
}

static bool same_value(const ir_expr *a, const ir_expr *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->type != b->type) return false;
    if (a->kind == IR_E_VAR) return a->var == b->var;
    return memcmp(&a->c, &b->c, sizeof a->c) == 0;
}

static void merge_arms(folder *fo, const arm_end *t, const arm_end *e) {
    if (!t->falls_through && !e->falls_through) return;
    if (!t->falls_through || !e->falls_through) { /* only one arm reaches what follows */
        const arm_end *live = t->falls_through ? t : e;
        for (int i = 0; i < live->values.count; i++)
            write_var(fo, live->values.items[i].id, live->values.items[i].old);
        return;
    }
    /* the else arm's end values by id; the known values are still those before the if */
    int stamp = ++fo->stamp_now;
    for (int i = 0; i < e->values.count; i++) {
        int id = e->values.items[i].id;
        fo->stamp[id] = stamp;
        fo->arm_value[id] = e->values.items[i].old;
    }
    ir_expr **at_end = en_alloc(fo->m->arena, sizeof(ir_expr *) * (size_t)(t->values.count + e->values.count + 1));
    int *ids = en_alloc(fo->m->arena, sizeof(int) * (size_t)(t->values.count + e->values.count + 1));
    if (fo->m->arena->out_of_memory) return;
    int n = 0;
    for (int i = 0; i < t->values.count; i++) { /* changed by the then arm (maybe by both) */
        int id = t->values.items[i].id;
        ir_expr *tv = t->values.items[i].old;
        ir_expr *ev = fo->stamp[id] == stamp ? fo->arm_value[id] : fo->known[id];
        ids[n] = id;
        at_end[n++] = same_value(tv, ev) ? tv : NULL;
    }
    for (int i = 0; i < t->values.count; i++) fo->stamp[t->values.items[i].id] = -stamp;
    for (int i = 0; i < e->values.count; i++) { /* changed by the else arm only */
        int id = e->values.items[i].id;
        if (fo->stamp[id] == -stamp) continue;
        ids[n] = id;
        at_end[n++] = same_value(fo->known[id], e->values.items[i].old) ? fo->known[id] : NULL;
    }
    for (int i = 0; i < n; i++) write_var(fo, ids[i], at_end[i]);
}

static ir_stmt *fold_if(folder *fo, ir_stmt *s, bool *falls_through) {
    s->cond = fold_value(fo, s->cond);
    if (is_const(s->cond)) {
        fo->changed = true;
        return fold_stmt(fo, s->cond->c.u ? s->then_s : s->else_s, falls_through);
    }
    arm_end t = {0}, e = {0};
    int mark = fo->trail.count;
    s->then_s = fold_stmt(fo, s->then_s, &t.falls_through);
    arm_values(fo, mark, &t);
    undo_to(fo, mark);
    s->else_s = fold_stmt(fo, s->else_s, &e.falls_through);
    arm_values(fo, mark, &e);
    undo_to(fo, mark);
    merge_arms(fo, &t, &e);
    *falls_through = t.falls_through || e.falls_through;
    if (is_empty(s->then_s) && is_empty(s->else_s)) {
        fo->changed = true;
        return NULL;
    }
    if (!s->then_s) s->then_s = ir_block(fo->m, s->loc);
    if (s->else_s && is_empty(s->else_s)) s->else_s = NULL;
    return s;
}

static ir_stmt *fold_loop(folder *fo, ir_stmt *s) {
    if (leaves_on_entry(fo, s)) {
        fo->changed = true;
        return NULL;
    }
    forget_written(fo, s); /* unknown from the loop's head on, and after it */
    int mark = fo->trail.count;
    bool ignored;
    s->body = fold_stmt(fo, s->body, &ignored);
    undo_to(fo, mark);
    s->latch = fold_stmt(fo, s->latch, &ignored);
    undo_to(fo, mark);
    if (!s->body) s->body = ir_block(fo->m, s->loc);
    return s;
}

static bool declares(const ir_stmt *block) {
    for (int i = 0; i < block->stmt_count; i++)
        if (block->stmts[i]->kind == IR_S_DECL) return true;
    return false;
}

/* a block's statements folded; a block left empty goes, and one that declares nothing
 * (an if's arm taken for good, an inlined body) is spliced into its parent */
static ir_stmt *fold_block(folder *fo, ir_stmt *s, bool *falls_through) {
    ir_stmt kept = {.kind = IR_S_BLOCK}; /* appended to as ir_block_append does */
    for (int i = 0; i < s->stmt_count; i++) {
        bool through = true;
        ir_stmt *k = fold_stmt(fo, s->stmts[i], &through);
        if (k && k != s->stmts[i]) fo->changed = true;
        if (k && is_empty(k)) {
            fo->changed = true;
            k = NULL;
        }
        if (k && k->kind == IR_S_BLOCK && !declares(k)) {
            fo->changed = true;
            for (int j = 0; j < k->stmt_count; j++) ir_block_append(fo->m, &kept, k->stmts[j]);
        } else if (k) {
            ir_block_append(fo->m, &kept, k);
        }
        if (!through) {
            if (i + 1 < s->stmt_count) fo->changed = true; /* what follows is never reached */
            *falls_through = false;
            break;
        }
    }
    s->stmts = kept.stmts;
    s->stmt_count = kept.stmt_count;
    /* its variables end here: what copied them must not name them after the block */
    for (int i = 0; i < s->stmt_count; i++)
        if (s->stmts[i]->kind == IR_S_DECL && tracked(fo, s->stmts[i]->var)) write_var(fo, s->stmts[i]->var->id, NULL);
    return s;
}

/* the statement after propagation and folding, or NULL when nothing of it is left;
 * *falls_through is false when control never reaches the statement after it */
static ir_stmt *fold_stmt(folder *fo, ir_stmt *s, bool *falls_through) {
    *falls_through = true;
    if (!s) return NULL;
    switch (s->kind) {
    case IR_S_BLOCK: return fold_block(fo, s, falls_through);
    case IR_S_DECL:
        s->value = fold_value(fo, s->value);
        if (tracked(fo, s->var)) write_var(fo, s->var->id, s->value);
        return s;
    case IR_S_ASSIGN: {
        ir_expr *place = fold_place(fo, s->place, false);
        if (place != s->place) fo->changed = true;
        s->place = place;
        s->value = fold_value(fo, s->value);
        ir_var *v = place_root(s->place);
        if (tracked(fo, v)) write_var(fo, v->id, s->place->kind == IR_E_VAR ? s->value : NULL);
        return s;
    }
    case IR_S_IF: return fold_if(fo, s, falls_through);
    case IR_S_LOOP: return fold_loop(fo, s);
    case IR_S_BREAK:
    case IR_S_CONTINUE:
        *falls_through = false;
        return s;
    case IR_S_RETURN:
        s->value = fold_value(fo, s->value);
        *falls_through = false;
        return s;
    case IR_S_INTRINSIC:
    case IR_S_CALL:
        for (int i = 0; i < s->arg_count; i++) s->args[i] = fold_value(fo, s->args[i]);
        if (tracked(fo, s->result)) write_var(fo, s->result->id, NULL);
        return s;
    }
    return s;
}

/* ---- dead locals --------------------------------------------------------------------- */
static void count_expr(folder *fo, const ir_expr *e) {
    if (!e) return;
    if (e->kind == IR_E_VAR && id_ok(fo, e->var)) fo->reads[e->var->id]++;
    for (int i = 0; i < e->arg_count; i++) count_expr(fo, e->args[i]);
}

/* a place's reads: its indices and the pointers it goes through, not its variable */
static void count_place(folder *fo, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_INDEX:
        if (e->args[0]->type->kind == IR_T_PTR) count_expr(fo, e->args[0]);
        else count_place(fo, e->args[0]);
        count_expr(fo, e->args[1]);
        break;
    case IR_E_FIELD:
    case IR_E_SWIZZLE: count_place(fo, e->args[0]); break;
    case IR_E_VAR: break;
    default: count_expr(fo, e); break;
    }
}

/* the reads of one statement's own expressions (ir_stmt_each visits the nested ones) */
static void count_stmt_reads(const ir_stmt *s, void *folder_ctx) {
    folder *fo = folder_ctx;
    switch (s->kind) {
    case IR_S_DECL: count_expr(fo, s->value); break;
    case IR_S_ASSIGN:
        count_place(fo, s->place);
        count_expr(fo, s->value);
        break;
    case IR_S_IF: count_expr(fo, s->cond); break;
    case IR_S_RETURN: count_expr(fo, s->value); break;
    case IR_S_INTRINSIC:
    case IR_S_CALL:
        for (int i = 0; i < s->arg_count; i++) count_expr(fo, s->args[i]);
        if (id_ok(fo, s->result)) fo->reads[s->result->id]++; /* the statement stays */
        break;
    default: break;
    }
}

static bool dead(const folder *fo, const ir_var *v) {
    return id_ok(fo, v) && v->param_kind == IR_PARAM_NONE && fo->reads[v->id] == 0 &&
           !fo->addressed[v->id];
}

static ir_stmt *drop_dead(folder *fo, ir_stmt *s) {
    if (!s) return NULL;
    switch (s->kind) {
    case IR_S_BLOCK: {
        int kept = 0;
        for (int i = 0; i < s->stmt_count; i++) {
            ir_stmt *k = drop_dead(fo, s->stmts[i]);
            if (k) s->stmts[kept++] = k;
        }
        if (kept != s->stmt_count) fo->changed = true;
        s->stmt_count = kept;
        return s;
    }
    case IR_S_DECL:
        if (dead(fo, s->var)) return NULL;
        if (id_ok(fo, s->var)) fo->declared[s->var->id] = 1;
        return s;
    case IR_S_ASSIGN: return dead(fo, place_root(s->place)) ? NULL : s;
    case IR_S_IF:
        s->then_s = drop_dead(fo, s->then_s);
        s->else_s = drop_dead(fo, s->else_s);
        if (!s->then_s) s->then_s = ir_block(fo->m, s->loc);
        return s;
    case IR_S_LOOP:
        s->body = drop_dead(fo, s->body);
        s->latch = drop_dead(fo, s->latch);
        if (!s->body) s->body = ir_block(fo->m, s->loc);
        return s;
    default: return s;
    }
}

static void remove_dead_locals(folder *fo) {
    memset(fo->reads, 0, sizeof(int) * (size_t)fo->nvars);
    memset(fo->declared, 0, (size_t)fo->nvars);
    ir_stmt_each(fo->f->body, count_stmt_reads, fo);
    fo->f->body = drop_dead(fo, fo->f->body);
    if (!fo->f->body) fo->f->body = ir_block(fo->m, fo->f->loc);
    /* the backends declare every listed local: those without a declaration go */
    int kept = 0;
    for (int i = 0; i < fo->f->locals.count; i++) {
        ir_var *v = fo->f->locals.items[i];
        if (!id_ok(fo, v) || fo->declared[v->id]) fo->f->locals.items[kept++] = v;
    }
    fo->f->locals.count = kept;
}

/* ---- the pass --------------------------------------------------------------------------- */
/* marks the variable e takes the address of (or of a part of); false, so that
 * ir_stmt_any_expr goes on to every expression */
static bool mark_addressed(const ir_expr *e, const void *folder_) {
    const folder *fo = folder_;
    if (e->kind == IR_E_ADDR) {
        ir_var *v = place_root(e->args[0]);
        if (id_ok(fo, v)) fo->addressed[v->id] = 1;
    }
    return false;
}

static void fold_func(folder *fo, ir_func *f) {
    fo->f = f;
    fo->nvars = f->next_var_id;
    size_t n = (size_t)fo->nvars + 1;
    en_arena *a = fo->m->arena;
    fo->addressed = en_alloc(a, n);
    fo->copies = en_alloc(a, sizeof *fo->copies * n);
    fo->known = en_alloc(a, sizeof(ir_expr *) * n);
    fo->stamp = en_alloc(a, sizeof(int) * n);
    fo->arm_value = en_alloc(a, sizeof(ir_expr *) * n);
    fo->reads = en_alloc(a, sizeof(int) * n);
    fo->declared = en_alloc(a, n);
    if (a->out_of_memory) return; /* the allocator's stand-in block is not n long */
    for (int i = 0; i < f->param_count + f->locals.count; i++) {
        ir_var *v = i < f->param_count ? f->params[i] : f->locals.items[i - f->param_count];
        if (!id_ok(fo, v)) continue;
        if (v->address_taken) fo->addressed[v->id] = 1;
    }
    ir_stmt_any_expr(f->body, mark_addressed, fo);

    for (int round = 0; round < FOLD_ROUNDS; round++) {
        fo->changed = false;
        memset(fo->known, 0, sizeof(ir_expr *) * n);
        for (size_t i = 0; i < n; i++) fo->copies[i].count = 0;
        fo->trail.count = 0;
        bool ignored;
        f->body = fold_stmt(fo, f->body, &ignored);
        if (!f->body) f->body = ir_block(fo->m, f->loc);
        remove_dead_locals(fo);
        if (!fo->changed || fo->m->arena->out_of_memory) break;
    }
}

bool en_pass_fold(en_ctx *c, ir_module *m) {
    (void)c;
    folder fo = {.m = m, .bool_type = ir_type_scalar(m, IR_T_BOOL)};
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i]->is_kernel) fold_func(&fo, m->funcs.items[i]);
    return !m->arena->out_of_memory;
}
