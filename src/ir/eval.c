/* eval.c — the value of an integer expression whose variables the caller knows, computed
 * as the emitted code computes it (each operation wrapped to its type's width). Backends use
 * it to unroll loops with constant bounds and to tell which elements a loop's steps touch:
 * the CUDA backend's matrix pairs and wgmma plans, the cpu backend's blocks of products. */
#include "ir.h"

int64_t ir_int_wrap(int64_t v, const ir_type *t) {
    if (t->kind == IR_T_BOOL) return v != 0;
    int bits = (int)t->size * 8;
    if (bits >= 64) return v;
    uint64_t m = (1ull << bits) - 1, u = (uint64_t)v & m;
    if (ir_is_signed(t) && (u >> (bits - 1)) & 1u) u |= ~m;
    return (int64_t)u;
}

bool ir_is_int_like(const ir_type *t) { return t && (ir_is_integer(t) || t->kind == IR_T_BOOL); }

bool ir_eval_int(const ir_expr *e, ir_var_value value_of, const void *ctx, int64_t *out) {
    int64_t a, b, c;
    const ir_type *t = e->type;
    if (!ir_is_int_like(t)) return false;
    switch (e->kind) {
    case IR_E_CONST: *out = ir_is_signed(t) ? e->c.i : (int64_t)e->c.u; return true;
    case IR_E_VAR: return value_of(ctx, e->var, out);
    case IR_E_CONVERT:
        if (!ir_is_int_like(e->args[0]->type) || !ir_eval_int(e->args[0], value_of, ctx, &a)) return false;
        *out = t->kind == IR_T_BOOL ? a != 0 : ir_int_wrap(a, t);
        return true;
    case IR_E_UNARY:
        if (!ir_eval_int(e->args[0], value_of, ctx, &a)) return false;
        switch (e->op) {
        case IR_OP_NEG: *out = ir_int_wrap((int64_t)(0 - (uint64_t)a), t); return true;
        case IR_OP_NOT: *out = !a; return true;
        case IR_OP_BITNOT: *out = ir_int_wrap(~a, t); return true;
        default: return false;
        }
    case IR_E_SELECT:
        if (!ir_eval_int(e->args[0], value_of, ctx, &c)) return false;
        return ir_eval_int(e->args[c ? 1 : 2], value_of, ctx, out);
    case IR_E_BINARY: {
        if (!ir_eval_int(e->args[0], value_of, ctx, &a) || !ir_eval_int(e->args[1], value_of, ctx, &b)) return false;
        const ir_type *ot = e->args[0]->type;
        bool sgn = ir_is_signed(ot);
        uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
        int bits = (int)ot->size * 8;
        switch (e->op) {
        case IR_OP_ADD: *out = ir_int_wrap((int64_t)(ua + ub), t); return true;
        case IR_OP_SUB: *out = ir_int_wrap((int64_t)(ua - ub), t); return true;
        case IR_OP_MUL: *out = ir_int_wrap((int64_t)(ua * ub), t); return true;
        case IR_OP_DIV: case IR_OP_REM:
            if (b == 0 || (sgn && b == -1)) return false; /* leave the edge cases to the GPU */
            if (sgn) *out = ir_int_wrap(e->op == IR_OP_DIV ? a / b : a % b, t);
            else *out = ir_int_wrap((int64_t)(e->op == IR_OP_DIV ? ua / ub : ua % ub), t);
            return true;
        case IR_OP_SHL: *out = ir_int_wrap((int64_t)(ua << (ub % (uint64_t)bits)), t); return true;
        case IR_OP_SHR:
            *out = ir_int_wrap(sgn ? a >> (ub % (uint64_t)bits) : (int64_t)(ua >> (ub % (uint64_t)bits)), t);
            return true;
        case IR_OP_AND: *out = ir_int_wrap(a & b, t); return true;
        case IR_OP_OR: *out = ir_int_wrap(a | b, t); return true;
        case IR_OP_XOR: *out = ir_int_wrap(a ^ b, t); return true;
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
