/* consteval.c — constant folding of checked expressions, for what C++ needs constant:
 * array sizes, template value arguments, case labels, enumerator values, static_assert,
 * constexpr initializers and mem_flags / memory_order arguments.
 *
 * Needs: IR expressions whose names were already replaced by constants where they are
 * constant (the checker substitutes constexpr variables and enumerators at their use).
 * Guarantees: a folded result is an IR_E_CONST of the expression's type (or an
 * IR_E_AGGREGATE / IR_E_VECTOR / IR_E_SPLAT of constants); integer arithmetic wraps like
 * the target type and never traps here (division by zero is "not constant"). */
#include "check.h"

bool ck_is_const(const ir_expr *e) { return e && e->kind == IR_E_CONST; }

static uint64_t wrap(const ir_type *t, uint64_t v) {
    int bits = (int)t->size * 8;
    if (t->kind == IR_T_BOOL) return v != 0;
    if (bits >= 64 || bits <= 0) return v;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    v &= mask;
    if (ir_is_signed(t) && ((v >> (bits - 1)) & 1)) v |= ~mask;
    return v;
}

static ir_expr *make(checker *ck, ir_type *t, en_loc loc) {
    return ir_expr_new(ck->m, IR_E_CONST, t, loc, 0);
}

static ir_expr *fold_unary(checker *ck, ir_expr *e, ir_expr *a) {
    ir_type *t = e->type;
    if (!ir_is_scalar(t) || !ir_is_scalar(a->type)) return NULL;
    ir_expr *r = make(ck, t, e->loc);
    switch (e->op) {
    case IR_OP_NEG:
        if (ir_is_float(t)) r->c.f = -a->c.f;
        else r->c.u = wrap(t, (uint64_t)0 - a->c.u);
        return r;
    case IR_OP_NOT:
        r->c.u = ir_is_float(a->type) ? a->c.f == 0 : a->c.u == 0;
        return r;
    case IR_OP_BITNOT:
        if (ir_is_float(t)) return NULL;
        r->c.u = wrap(t, ~a->c.u);
        return r;
    default:
        return NULL;
    }
}

static ir_expr *fold_binary(checker *ck, ir_expr *e, ir_expr *a, ir_expr *b) {
    ir_type *t = e->type, *ot = a->type;
    if (!ir_is_scalar(t) || !ir_is_scalar(ot)) return NULL;
    ir_expr *r = make(ck, t, e->loc);
    bool fl = ir_is_float(ot), sg = ir_is_signed(ot);
    double x = a->c.f, y = b->c.f;
    uint64_t u = a->c.u, v = b->c.u;
    int64_t i = a->c.i, j = b->c.i;
    switch (e->op) {
    case IR_OP_EQ: r->c.u = fl ? x == y : u == v; return r;
    case IR_OP_NE: r->c.u = fl ? x != y : u != v; return r;
    case IR_OP_LT: r->c.u = fl ? x < y : sg ? i < j : u < v; return r;
    case IR_OP_LE: r->c.u = fl ? x <= y : sg ? i <= j : u <= v; return r;
    case IR_OP_GT: r->c.u = fl ? x > y : sg ? i > j : u > v; return r;
    case IR_OP_GE: r->c.u = fl ? x >= y : sg ? i >= j : u >= v; return r;
    case IR_OP_LOGAND: r->c.u = (fl ? x != 0 : u != 0) && (fl ? y != 0 : v != 0); return r;
    case IR_OP_LOGOR: r->c.u = (fl ? x != 0 : u != 0) || (fl ? y != 0 : v != 0); return r;
    default: break;
    }
    if (fl) {
        double f;
        switch (e->op) {
        case IR_OP_ADD: f = x + y; break;
        case IR_OP_SUB: f = x - y; break;
        case IR_OP_MUL: f = x * y; break;
        case IR_OP_DIV: f = x / y; break;
        default: return NULL;
        }
        r->c.f = ck_round_float(t->kind, f);
        return r;
    }
    int bits = (int)ot->size * 8;
    uint64_t res;
    switch (e->op) {
    case IR_OP_ADD: res = u + v; break;
    case IR_OP_SUB: res = u - v; break;
    case IR_OP_MUL: res = u * v; break;
    case IR_OP_DIV:
    case IR_OP_REM:
        if (v == 0) return NULL;
        if (sg) {
            if (i == INT64_MIN && j == -1) return NULL;
            res = (uint64_t)(e->op == IR_OP_DIV ? i / j : i % j);
        } else {
            res = e->op == IR_OP_DIV ? u / v : u % v;
        }
        break;
    case IR_OP_SHL:
        if (v >= (uint64_t)bits) return NULL;
        res = u << v;
        break;
    case IR_OP_SHR:
        if (v >= (uint64_t)bits) return NULL;
        res = sg ? (uint64_t)(i >> v) : (wrap(ot, u) & (bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1))) >> v;
        break;
    case IR_OP_AND: res = u & v; break;
    case IR_OP_OR: res = u | v; break;
    case IR_OP_XOR: res = u ^ v; break;
    default: return NULL;
    }
    r->c.u = wrap(t, res);
    return r;
}

ir_expr *ck_fold(checker *ck, ir_expr *e) {
    if (!e) return NULL;
    switch (e->kind) {
    case IR_E_CONST:
        return e;
    case IR_E_CONVERT: {
        ir_expr *a = ck_fold(ck, e->args[0]);
        if (!a || a->kind != IR_E_CONST || !ir_is_scalar(e->type)) return NULL;
        return ck_convert(ck, a, e->type, e->loc);
    }
    case IR_E_UNARY: {
        ir_expr *a = ck_fold(ck, e->args[0]);
        return a && a->kind == IR_E_CONST ? fold_unary(ck, e, a) : NULL;
    }
    case IR_E_BINARY: {
        ir_expr *a = ck_fold(ck, e->args[0]), *b = ck_fold(ck, e->args[1]);
        if (!a || !b || a->kind != IR_E_CONST || b->kind != IR_E_CONST) return NULL;
        return fold_binary(ck, e, a, b);
    }
    case IR_E_SELECT: {
        ir_expr *c = ck_fold(ck, e->args[0]);
        if (!c || c->kind != IR_E_CONST) return NULL;
        return ck_fold(ck, e->args[c->c.u ? 1 : 2]);
    }
    case IR_E_SPLAT: case IR_E_VECTOR: case IR_E_AGGREGATE: {
        ir_expr *r = ir_expr_new(ck->m, e->kind, e->type, e->loc, e->arg_count);
        for (int i = 0; i < e->arg_count; i++)
            if (!(r->args[i] = ck_fold(ck, e->args[i]))) return NULL;
        return r;
    }
    case IR_E_FIELD: { /* a member of a constant object: `(a * b).real` of constexpr values */
        ir_expr *o = ck_fold(ck, e->args[0]);
        if (!o || o->kind != IR_E_AGGREGATE || e->field < 0 || e->field >= o->arg_count) return NULL;
        return o->args[e->field];
    }
    default:
        return NULL;
    }
}

bool ck_const_int(checker *ck, ir_expr *e, int64_t *out) {
    ir_expr *f = ck_fold(ck, e);
    if (!f || f->kind != IR_E_CONST || !(ir_is_integer(f->type) || f->type->kind == IR_T_BOOL))
        return false;
    *out = f->c.i;
    if (!ir_is_signed(f->type) && f->type->size < 8) *out = (int64_t)(f->c.u);
    return true;
}
