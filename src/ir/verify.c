/* verify.c — the IR verifier: re-checks, between passes, every invariant that ir.h's top
 * comment promises, so that a pass that breaks one is caught at that pass and not in a
 * backend. It needs nothing (it must survive any malformed module: NULL pointers, bad
 * indices, cycles of break targets) and changes nothing. Each violation is an error
 *   "internal error: IR verifier (after <pass>): <what>"
 * at the offending node; the walk goes on so that one run reports every violation.
 *
 * Checked, beyond the shape of each node:
 *   - every expression has a type; operands of a binary operator have one type; a
 *     comparison yields bool or boolN of the operands' lanes; logical operators take bool;
 *   - conversions, splats, bitcasts (equal sizes), pointer casts (same address space) and
 *     pointer offsets are well-formed; vectors and aggregates have one operand per element;
 *   - INDEX bases are array or vector places or pointers, FIELD indexes exist, SWIZZLE
 *     lanes exist and are distinct when the swizzle is written;
 *   - an assignment's place is a place of the value's type, not in constant memory, not
 *     through a const pointer, not an atomic (atomics change only through intrinsics);
 *   - if-conditions are scalar bool; break/continue target an enclosing loop (continue
 *     not from its own loop's latch); return values match the function's return type;
 *   - IR_E_CALL intrinsics are PURE, IR_S_INTRINSIC ones are not; atomics act on
 *     pointers to atomics in device or threadgroup memory and give the atomic's type; SIMD
 *     and quad functions give their data's type (votes an integer, all/any/is_first bool); IR_S_CALL names a non-kernel function of the module with
 *     matching arguments, and none is left after the "inline" pass;
 *   - kernels return void and every parameter has a binding or attribute; buffer and
 *     threadgroup bindings are unique; helper functions have plain parameters;
 *   - variables are used only inside their declaration's scope and after it, declared
 *     once, listed in their function's locals, with ids unique in their function;
 *   - globals are constants with initializers of their type. */
#include "ir.h"

#include <string.h>

typedef EN_VEC(const ir_var *) var_list;
typedef EN_VEC(int) int_list;

typedef struct verifier {
    const ir_module *m;
    const ir_func *f;
    en_diags *d;
    const char *pass;
    en_arena scratch;                 /* type names for messages */
    bool ok;
    bool calls_allowed;               /* false after the inline pass */
    var_list scope;                   /* variables visible at this point, innermost last */
    var_list declared;                /* declared variables that the function does not list */
    /* the function's listed variables (params, threadgroup vars, locals) by id, and what is
       known of each: linear time for kernels of many thousand statements */
    const ir_var **by_id;
    uint8_t *facts;                   /* VAR_* bits per id */
    int nids;
    EN_VEC(const ir_stmt *) loops;    /* enclosing loops, innermost last */
    const ir_stmt *latch_of;          /* the loop whose latch is being walked, if any */
} verifier;

enum { VAR_IN_SCOPE = 1, VAR_DECLARED = 2, VAR_PARAM = 4, VAR_LOCAL = 8 };

static void fail(verifier *v, en_loc loc, const char *fmt, ...) EN_PRINTF(3, 4);
static void fail(verifier *v, en_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    en_buf what = {0};
    en_buf_vprintf(&what, fmt, ap);
    va_end(ap);
    if (v->pass)
        en_error(v->d, loc, "internal error: IR verifier (after %s): %s", v->pass,
                 what.data ? what.data : "");
    else
        en_error(v->d, loc, "internal error: IR verifier: %s", what.data ? what.data : "");
    en_buf_free(&what);
    v->ok = false;
}

static const char *tn(verifier *v, const ir_type *t) { return ir_type_name(t, &v->scratch); }

static const char *var_name(const ir_var *x) { return x && x->name ? x->name : "?"; }

static bool in_list(const ir_var *const *items, int n, const ir_var *x) {
    for (int i = 0; i < n; i++)
        if (items[i] == x) return true;
    return false;
}

/* the id of a variable the function lists, or -1 */
static int listed_id(const verifier *v, const ir_var *x) {
    return x->id >= 0 && x->id < v->nids && v->by_id[x->id] == x ? x->id : -1;
}

static void enter_scope(verifier *v, const ir_var *x) {
    EN_PUSH(&v->scratch, v->scope, x);
    int id = listed_id(v, x);
    if (id >= 0) v->facts[id] |= VAR_IN_SCOPE;
}

static void leave_scope(verifier *v, int mark) {
    while (v->scope.count > mark) {
        int id = listed_id(v, v->scope.items[--v->scope.count]);
        if (id >= 0) v->facts[id] &= (uint8_t)~VAR_IN_SCOPE;
    }
}

static bool is_bool_like(const ir_type *t) {
    const ir_type *s = ir_scalar_of(t);
    return s && s->kind == IR_T_BOOL;
}

/* a scalar or a vector of scalars (bool included) */
static bool is_numeric(const ir_type *t) {
    if (t && t->kind == IR_T_VEC) return ir_is_scalar(t->elem);
    return ir_is_scalar(t);
}

static const char *expr_kind_name(ir_expr_kind k) {
    static const char *names[] = {
        [IR_E_CONST] = "constant", [IR_E_VAR] = "variable", [IR_E_INDEX] = "index",
        [IR_E_FIELD] = "field", [IR_E_SWIZZLE] = "swizzle", [IR_E_DEREF] = "dereference",
        [IR_E_ADDR] = "address-of", [IR_E_UNARY] = "unary operation",
        [IR_E_BINARY] = "binary operation", [IR_E_SELECT] = "select",
        [IR_E_CONVERT] = "conversion", [IR_E_BITCAST] = "bitcast", [IR_E_PTRCAST] = "pointer cast",
        [IR_E_PTR_OFFSET] = "pointer offset", [IR_E_SPLAT] = "splat", [IR_E_VECTOR] = "vector",
        [IR_E_AGGREGATE] = "aggregate", [IR_E_CALL] = "intrinsic call",
    };
    return (unsigned)k < EN_COUNT(names) && names[k] ? names[k] : "expression";
}

/* ---- expressions ------------------------------------------------------------------- */
static int expected_args(ir_expr_kind k) {
    switch (k) {
    case IR_E_CONST: case IR_E_VAR: return 0;
    case IR_E_INDEX: case IR_E_BINARY: case IR_E_PTR_OFFSET: return 2;
    case IR_E_SELECT: return 3;
    case IR_E_FIELD: case IR_E_SWIZZLE: case IR_E_DEREF: case IR_E_ADDR: case IR_E_UNARY:
    case IR_E_CONVERT: case IR_E_BITCAST: case IR_E_PTRCAST: case IR_E_SPLAT: return 1;
    default: return -1; /* variable */
    }
}

static void check_var_use(verifier *v, const ir_var *x, en_loc loc) {
    if (x->storage == IR_VAR_CONSTANT) {
        if (!in_list((const ir_var *const *)v->m->globals.items, v->m->globals.count, x))
            fail(v, loc, "global '%s' is not in the module's globals", var_name(x));
        return;
    }
    int id = listed_id(v, x);
    bool visible = id >= 0 ? (v->facts[id] & VAR_IN_SCOPE) != 0 : in_list(v->scope.items, v->scope.count, x);
    if (!visible) fail(v, loc, "variable '%s' used outside its scope", var_name(x));
}

static bool check_expr(verifier *v, const ir_expr *e);

/* operand i, reported when missing; NULL when missing */
static const ir_expr *operand(verifier *v, const ir_expr *e, int i) {
    const ir_expr *a = i < e->arg_count && e->args ? e->args[i] : NULL;
    if (!a) fail(v, e->loc, "%s has no operand %d", expr_kind_name(e->kind), i);
    return a;
}

static void check_index(verifier *v, const ir_expr *e) {
    const ir_expr *base = e->args[0], *index = e->args[1];
    const ir_type *bt = base->type, *it = index->type;
    if (!ir_is_integer(it)) fail(v, e->loc, "index of type %s is not an integer", tn(v, it));
    if (bt->kind == IR_T_PTR) {
        if (e->type != bt->elem)
            fail(v, e->loc, "indexing %s gives %s, not %s", tn(v, bt), tn(v, bt->elem), tn(v, e->type));
    } else if (bt->kind == IR_T_ARRAY || bt->kind == IR_T_VEC) {
        if (!ir_is_place(base))
            fail(v, e->loc, "index base of type %s is not a place", tn(v, bt));
        if (e->type != bt->elem)
            fail(v, e->loc, "indexing %s gives %s, not %s", tn(v, bt), tn(v, bt->elem), tn(v, e->type));
    } else {
        fail(v, e->loc, "index base of type %s is not an array, vector or pointer", tn(v, bt));
    }
}

static void check_swizzle(verifier *v, const ir_expr *e) {
    const ir_type *bt = e->args[0]->type;
    if (bt->kind != IR_T_VEC) {
        fail(v, e->loc, "swizzle of non-vector type %s", tn(v, bt));
        return;
    }
    if (e->swizzle_len < 1 || e->swizzle_len > 4) {
        fail(v, e->loc, "swizzle of %d lanes", e->swizzle_len);
        return;
    }
    for (int i = 0; i < e->swizzle_len; i++)
        if (e->swizzle[i] >= bt->count)
            fail(v, e->loc, "swizzle lane %d of %s, which has %u lanes", e->swizzle[i],
                 tn(v, bt), bt->count);
    bool fits = e->swizzle_len == 1 ? e->type == bt->elem
                                    : e->type->kind == IR_T_VEC && e->type->elem == bt->elem &&
                                          e->type->count == (uint32_t)e->swizzle_len;
    if (!fits)
        fail(v, e->loc, "swizzle of %d lanes of %s has type %s", e->swizzle_len, tn(v, bt),
             tn(v, e->type));
}

static void check_unary(verifier *v, const ir_expr *e) {
    const ir_type *t = e->args[0]->type;
    if (e->type != t)
        fail(v, e->loc, "unary %s of %s has type %s", ir_op_name(e->op), tn(v, t), tn(v, e->type));
    switch (e->op) {
    case IR_OP_NEG:
        if (!is_numeric(t) || is_bool_like(t)) fail(v, e->loc, "negation of %s", tn(v, t));
        break;
    case IR_OP_NOT:
        if (!is_bool_like(t) || !is_numeric(t)) fail(v, e->loc, "logical not of %s, not bool", tn(v, t));
        break;
    case IR_OP_BITNOT:
        if (!is_numeric(t) || !ir_is_integer(ir_scalar_of(t))) fail(v, e->loc, "bitwise not of %s", tn(v, t));
        break;
    default: fail(v, e->loc, "unary operation with operator '%s'", ir_op_name(e->op)); break;
    }
}

static void check_binary(verifier *v, const ir_expr *e) {
    const ir_type *a = e->args[0]->type, *b = e->args[1]->type;
    const char *op = ir_op_name(e->op);
    if (a != b) {
        fail(v, e->loc, "operands of '%s' have different types: %s and %s", op, tn(v, a), tn(v, b));
        return;
    }
    if (a->kind == IR_T_PTR && (e->op == IR_OP_EQ || e->op == IR_OP_NE)) { /* p == q, p != nullptr */
        if (e->type->kind != IR_T_BOOL) fail(v, e->loc, "comparison '%s' of %s has type %s, not bool", op, tn(v, a), tn(v, e->type));
        return;
    }
    if (!is_numeric(a)) {
        fail(v, e->loc, "operator '%s' on %s", op, tn(v, a));
        return;
    }
    const ir_type *s = ir_scalar_of(a);
    switch (e->op) {
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
        if (s->kind == IR_T_BOOL) fail(v, e->loc, "arithmetic '%s' on %s", op, tn(v, a));
        if (e->type != a) fail(v, e->loc, "'%s' of %s has type %s", op, tn(v, a), tn(v, e->type));
        break;
    case IR_OP_SHL: case IR_OP_SHR: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR:
        if (!ir_is_integer(s) && !(s->kind == IR_T_BOOL && e->op >= IR_OP_AND))
            fail(v, e->loc, "bitwise '%s' on %s", op, tn(v, a));
        if (e->type != a) fail(v, e->loc, "'%s' of %s has type %s", op, tn(v, a), tn(v, e->type));
        break;
    case IR_OP_EQ: case IR_OP_NE: case IR_OP_LT: case IR_OP_LE: case IR_OP_GT: case IR_OP_GE:
        if (!is_bool_like(e->type) || ir_lanes(e->type) != ir_lanes(a) ||
            (e->type->kind == IR_T_VEC) != (a->kind == IR_T_VEC))
            fail(v, e->loc, "comparison '%s' of %s has type %s, not bool%s", op, tn(v, a),
                 tn(v, e->type), a->kind == IR_T_VEC ? en_fmt(&v->scratch, "%d", ir_lanes(a)) : "");
        break;
    case IR_OP_LOGAND: case IR_OP_LOGOR:
        if (!is_bool_like(a) || e->type != a)
            fail(v, e->loc, "logical '%s' of %s gives %s; both must be bool", op, tn(v, a), tn(v, e->type));
        break;
    default: fail(v, e->loc, "binary operation with operator '%s'", op); break;
    }
}

static void check_convert(verifier *v, const ir_expr *e) {
    const ir_type *from = e->args[0]->type, *to = e->type;
    if (!is_numeric(from) || !is_numeric(to))
        fail(v, e->loc, "conversion from %s to %s", tn(v, from), tn(v, to));
    else if (ir_lanes(from) != ir_lanes(to) || (from->kind == IR_T_VEC) != (to->kind == IR_T_VEC))
        fail(v, e->loc, "conversion from %s to %s changes the number of lanes", tn(v, from), tn(v, to));
}

static void check_aggregate(verifier *v, const ir_expr *e) {
    const ir_type *t = e->type;
    if (t->kind == IR_T_ARRAY) {
        if (e->arg_count != (int)t->count)
            fail(v, e->loc, "aggregate of %s has %d elements", tn(v, t), e->arg_count);
        for (int i = 0; i < e->arg_count && i < (int)t->count; i++)
            if (e->args[i] && e->args[i]->type != t->elem)
                fail(v, e->loc, "element %d of aggregate %s has type %s", i, tn(v, t),
                     tn(v, e->args[i]->type));
    } else if (t->kind == IR_T_STRUCT) {
        if (e->arg_count != t->field_count)
            fail(v, e->loc, "aggregate of %s has %d fields, not %d", tn(v, t), e->arg_count, t->field_count);
        for (int i = 0; i < e->arg_count && i < t->field_count; i++)
            if (e->args[i] && e->args[i]->type != t->fields[i].type)
                fail(v, e->loc, "field '%s' of aggregate %s has type %s", t->fields[i].name,
                     tn(v, t), tn(v, e->args[i]->type));
    } else {
        fail(v, e->loc, "aggregate of type %s, not an array or struct", tn(v, t));
    }
}

/* checks the node's own typing rule; operands are known to be present and typed */
static void check_node(verifier *v, const ir_expr *e) {
    const ir_type *t = e->type;
    const ir_type *a0 = e->arg_count > 0 ? e->args[0]->type : NULL;
    switch (e->kind) {
    case IR_E_CONST: /* a scalar, or the null pointer */
        if (!ir_is_scalar(t) && !(t->kind == IR_T_PTR && e->c.u == 0))
            fail(v, e->loc, "constant of non-scalar type %s", tn(v, t));
        break;
    case IR_E_VAR:
        if (!e->var) {
            fail(v, e->loc, "variable reference without a variable");
            break;
        }
        if (e->var->type != t)
            fail(v, e->loc, "reference to '%s' has type %s, but the variable has type %s",
                 var_name(e->var), tn(v, t), tn(v, e->var->type));
        check_var_use(v, e->var, e->loc);
        break;
    case IR_E_INDEX: check_index(v, e); break;
    case IR_E_FIELD:
        if (a0->kind != IR_T_STRUCT) fail(v, e->loc, "field of non-struct type %s", tn(v, a0));
        else if (e->field < 0 || e->field >= a0->field_count)
            fail(v, e->loc, "field %d of %s, which has %d fields", e->field, tn(v, a0), a0->field_count);
        else if (a0->fields[e->field].type != t)
            fail(v, e->loc, "field '%s' of %s has type %s, not %s", a0->fields[e->field].name,
                 tn(v, a0), tn(v, a0->fields[e->field].type), tn(v, t));
        break;
    case IR_E_SWIZZLE: check_swizzle(v, e); break;
    case IR_E_DEREF:
        if (a0->kind != IR_T_PTR) fail(v, e->loc, "dereference of non-pointer type %s", tn(v, a0));
        else if (a0->elem != t)
            fail(v, e->loc, "dereference of %s has type %s", tn(v, a0), tn(v, t));
        break;
    case IR_E_ADDR:
        if (!ir_is_place(e->args[0])) fail(v, e->loc, "address of a value that is not a place");
        if (t->kind != IR_T_PTR || t->elem != a0)
            fail(v, e->loc, "address of %s has type %s", tn(v, a0), tn(v, t));
        break;
    case IR_E_UNARY: check_unary(v, e); break;
    case IR_E_BINARY: check_binary(v, e); break;
    case IR_E_SELECT: {
        const ir_type *c = a0;
        if (!is_bool_like(c) || (c->kind == IR_T_VEC && ir_lanes(c) != ir_lanes(t)) ||
            c->kind == IR_T_ARRAY)
            fail(v, e->loc, "select condition of type %s for %s", tn(v, c), tn(v, t));
        if (e->args[1]->type != t || e->args[2]->type != t)
            fail(v, e->loc, "select arms of types %s and %s for %s", tn(v, e->args[1]->type),
                 tn(v, e->args[2]->type), tn(v, t));
        break;
    }
    case IR_E_CONVERT: check_convert(v, e); break;
    case IR_E_BITCAST:
        if (a0->size != t->size || a0->kind == IR_T_PTR || t->kind == IR_T_PTR)
            fail(v, e->loc, "bitcast from %s (%u bytes) to %s (%u bytes)", tn(v, a0), a0->size,
                 tn(v, t), t->size);
        break;
    case IR_E_PTRCAST:
        if (a0->kind != IR_T_PTR || t->kind != IR_T_PTR || a0->space != t->space)
            fail(v, e->loc, "pointer cast from %s to %s", tn(v, a0), tn(v, t));
        break;
    case IR_E_PTR_OFFSET:
        if (a0->kind != IR_T_PTR || t != a0 || !ir_is_integer(e->args[1]->type))
            fail(v, e->loc, "pointer offset of %s by %s giving %s", tn(v, a0),
                 tn(v, e->args[1]->type), tn(v, t));
        break;
    case IR_E_SPLAT:
        if (t->kind != IR_T_VEC || t->elem != a0)
            fail(v, e->loc, "splat of %s to %s", tn(v, a0), tn(v, t));
        break;
    case IR_E_VECTOR:
        if (t->kind != IR_T_VEC) {
            fail(v, e->loc, "vector construction of non-vector type %s", tn(v, t));
            break;
        }
        if (e->arg_count != (int)t->count)
            fail(v, e->loc, "vector %s built from %d scalars", tn(v, t), e->arg_count);
        for (int i = 0; i < e->arg_count; i++)
            if (e->args[i]->type != t->elem)
                fail(v, e->loc, "lane %d of vector %s has type %s", i, tn(v, t), tn(v, e->args[i]->type));
        break;
    case IR_E_AGGREGATE: check_aggregate(v, e); break;
    case IR_E_CALL:
        if ((unsigned)e->intrinsic >= IR_I_COUNT)
            fail(v, e->loc, "unknown intrinsic %d", (int)e->intrinsic);
        else if (ir_intrinsic_class_of(e->intrinsic) != IR_IC_PURE)
            fail(v, e->loc, "intrinsic '%s' in an expression is not pure; it must be a statement",
                 ir_intrinsic_name(e->intrinsic));
        if (t->kind == IR_T_VOID) fail(v, e->loc, "intrinsic call of type void in an expression");
        break;
    default: fail(v, e->loc, "expression of unknown kind %d", (int)e->kind); break;
    }
}

/* returns false when the expression is too broken to look at its type */
static bool check_expr(verifier *v, const ir_expr *e) {
    bool sound = true;
    int want = expected_args(e->kind);
    if (want >= 0 && e->arg_count != want) {
        fail(v, e->loc, "%s has %d operands, not %d", expr_kind_name(e->kind), e->arg_count, want);
        if (e->arg_count < want) sound = false;
    }
    for (int i = 0; i < e->arg_count; i++) {
        const ir_expr *a = operand(v, e, i);
        if (!a || !check_expr(v, a)) sound = false;
    }
    if (!e->type) {
        fail(v, e->loc, "%s has no type", expr_kind_name(e->kind));
        return false;
    }
    if (sound) check_node(v, e);
    return true;
}

/* a whole expression at statement level; NULL is reported as `what` missing */
static bool check_root(verifier *v, const ir_expr *e, en_loc loc, const char *what) {
    if (!e) {
        fail(v, loc, "%s is missing", what);
        return false;
    }
    return check_expr(v, e);
}

/* ---- places ------------------------------------------------------------------------ */
/* why a place may not be written, or NULL when it may */
static const char *unwritable(verifier *v, const ir_expr *place) {
    for (const ir_expr *p = place; p;) {
        switch (p->kind) {
        case IR_E_VAR:
            if (p->var && p->var->storage == IR_VAR_CONSTANT)
                return en_fmt(&v->scratch, "the constant '%s'", var_name(p->var));
            return NULL;
        case IR_E_INDEX:
            if (p->args[0]->type->kind == IR_T_PTR) {
                const ir_type *pt = p->args[0]->type;
                if (pt->space == IR_SPACE_CONSTANT) return "constant address space memory";
                if (pt->is_const) return en_fmt(&v->scratch, "memory behind a pointer to const (%s)", tn(v, pt));
                return NULL;
            }
            p = p->args[0];
            break;
        case IR_E_DEREF: {
            const ir_type *pt = p->args[0]->type;
            if (pt->space == IR_SPACE_CONSTANT) return "constant address space memory";
            if (pt->is_const) return en_fmt(&v->scratch, "memory behind a pointer to const (%s)", tn(v, pt));
            return NULL;
        }
        case IR_E_FIELD: case IR_E_SWIZZLE: p = p->args[0]; break;
        default: return NULL;
        }
    }
    return NULL;
}

static bool swizzle_lanes_distinct(const ir_expr *e) {
    for (int i = 0; i < e->swizzle_len && i < 4; i++)
        for (int k = 0; k < i; k++)
            if (e->swizzle[i] == e->swizzle[k]) return false;
    return true;
}

static void check_place(verifier *v, const ir_expr *place, en_loc loc) {
    if (!ir_is_place(place)) {
        fail(v, loc, "assignment to a %s, which is not a place", expr_kind_name(place->kind));
        return;
    }
    for (const ir_expr *p = place; p && p->kind != IR_E_VAR && p->kind != IR_E_DEREF;) {
        if (p->kind == IR_E_SWIZZLE && !swizzle_lanes_distinct(p))
            fail(v, p->loc, "assignment to a swizzle that repeats a lane");
        if (p->kind == IR_E_INDEX && p->args[0]->type->kind == IR_T_PTR) break;
        p = p->args[0];
    }
    const char *why = unwritable(v, place);
    if (why) fail(v, loc, "assignment to %s", why);
    if (place->type->kind == IR_T_ATOMIC)
        fail(v, loc, "assignment to an atomic %s; atomics change only through atomic functions",
             tn(v, place->type));
}

/* ---- statements -------------------------------------------------------------------- */
static void check_stmt(verifier *v, const ir_stmt *s);

static void check_args(verifier *v, ir_expr *const *args, int n, en_loc loc, const char *what) {
    if (n > 0 && !args) {
        fail(v, loc, "%s has no argument array", what);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (!args[i]) fail(v, loc, "argument %d of %s is missing", i, what);
        else check_expr(v, args[i]);
    }
}

static void check_result(verifier *v, const ir_stmt *s) {
    if (!s->result) return;
    if (s->result->storage != IR_VAR_LOCAL)
        fail(v, s->loc, "result '%s' is not a local variable", var_name(s->result));
    else check_var_use(v, s->result, s->loc);
}

static bool loop_is_enclosing(const verifier *v, const ir_stmt *loop) {
    for (int i = 0; i < v->loops.count; i++)
        if (v->loops.items[i] == loop) return true;
    return false;
}

static ir_type_kind scalar_kind(const ir_type *t) { return t ? t->kind : IR_T_VOID; }

/* SIMD and quad functions give a value of their data's type, except the votes */
static void check_group_result(verifier *v, const ir_stmt *s, const char *name) {
    switch (s->intrinsic) {
    case IR_I_SIMD_BALLOT: case IR_I_QUAD_BALLOT:
    case IR_I_SIMD_ACTIVE_THREADS_MASK: case IR_I_QUAD_ACTIVE_THREADS_MASK:
        if (s->result && !ir_is_integer(s->result->type))
            fail(v, s->loc, "'%s' gives %s, not an integer vote", name, tn(v, s->result->type));
        return;
    case IR_I_SIMD_ALL: case IR_I_SIMD_ANY: case IR_I_SIMD_IS_FIRST:
    case IR_I_QUAD_ALL: case IR_I_QUAD_ANY: case IR_I_QUAD_IS_FIRST:
        if (s->result && scalar_kind(s->result->type) != IR_T_BOOL)
            fail(v, s->loc, "'%s' gives %s, not bool", name, tn(v, s->result->type));
        return;
    default:
        break;
    }
    const ir_expr *data = s->arg_count > 0 && s->args ? s->args[0] : NULL;
    if (!data || !data->type) return; /* reported with the arguments */
    if (s->result && s->result->type != data->type)
        fail(v, s->loc, "'%s' of %s gives %s", name, tn(v, data->type), tn(v, s->result->type));
    bool fills = s->intrinsic == IR_I_SIMD_SHUFFLE_AND_FILL_UP || s->intrinsic == IR_I_SIMD_SHUFFLE_AND_FILL_DOWN ||
                 s->intrinsic == IR_I_QUAD_SHUFFLE_AND_FILL_UP || s->intrinsic == IR_I_QUAD_SHUFFLE_AND_FILL_DOWN;
    if (fills && s->arg_count > 1 && s->args[1] && s->args[1]->type != data->type)
        fail(v, s->loc, "'%s' fills %s data with %s", name, tn(v, data->type), tn(v, s->args[1]->type));
}

static void check_intrinsic_stmt(verifier *v, const ir_stmt *s) {
    if ((unsigned)s->intrinsic >= IR_I_COUNT) {
        fail(v, s->loc, "unknown intrinsic %d", (int)s->intrinsic);
        return;
    }
    const char *name = ir_intrinsic_name(s->intrinsic);
    ir_intrinsic_class cls = ir_intrinsic_class_of(s->intrinsic);
    if (cls == IR_IC_PURE)
        fail(v, s->loc, "pure intrinsic '%s' as a statement; it must be an expression", name);
    check_args(v, s->args, s->arg_count, s->loc, name);
    check_result(v, s);
    switch (cls) {
    case IR_IC_BARRIER:
        if (s->arg_count != 1 || (s->args && s->args[0] && s->args[0]->type &&
                                  !ir_is_integer(s->args[0]->type)))
            fail(v, s->loc, "'%s' takes one integer argument, its mem_flags", name);
        if (s->result) fail(v, s->loc, "'%s' has a result", name);
        break;
    case IR_IC_FENCE: {
        /* backends choose the fence instruction from the values: they must be known */
        bool known = s->arg_count == 3 && s->args;
        for (int i = 0; known && i < 3; i++)
            known = s->args[i] && s->args[i]->kind == IR_E_CONST && s->args[i]->type &&
                    ir_is_integer(s->args[i]->type);
        if (!known) fail(v, s->loc, "'%s' takes three integer constants: mem_flags, order, scope", name);
        else if (s->args[1]->c.u > IR_ORDER_SEQ_CST || s->args[2]->c.u > IR_SCOPE_SIMDGROUP)
            fail(v, s->loc, "'%s' with order %d and scope %d", name, (int)s->args[1]->c.i, (int)s->args[2]->c.i);
        if (s->result) fail(v, s->loc, "'%s' has a result", name);
        break;
    }
    case IR_IC_ATOMIC: {
        const ir_expr *obj = s->arg_count > 0 && s->args ? s->args[0] : NULL;
        const ir_type *t = obj ? obj->type : NULL;
        if (!t || t->kind != IR_T_PTR || !t->elem || t->elem->kind != IR_T_ATOMIC)
            fail(v, s->loc, "'%s' on %s, not a pointer to an atomic", name, t ? tn(v, t) : "nothing");
        else if (t->space != IR_SPACE_DEVICE && t->space != IR_SPACE_THREADGROUP)
            fail(v, s->loc, "'%s' on %s memory", name, ir_space_name(t->space));
        else if (s->result && s->intrinsic != IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK &&
                 scalar_kind(s->result->type) != t->elem->elem->kind)
            fail(v, s->loc, "'%s' on %s gives %s", name, tn(v, t->elem), tn(v, s->result->type));
        break;
    }
    case IR_IC_SIMD:
    case IR_IC_QUAD:
        check_group_result(v, s, name);
        break;
    default: break;
    }
}

static void check_call_stmt(verifier *v, const ir_stmt *s) {
    if (!v->calls_allowed) fail(v, s->loc, "function call statement left after inlining");
    check_args(v, s->args, s->arg_count, s->loc, "call");
    check_result(v, s);
    const ir_func *callee = s->callee;
    if (!callee) {
        fail(v, s->loc, "call without a callee");
        return;
    }
    bool known = false;
    for (int i = 0; i < v->m->funcs.count; i++) known |= v->m->funcs.items[i] == callee;
    if (!known) fail(v, s->loc, "call to '%s', which is not in the module", callee->name);
    if (callee->is_kernel) fail(v, s->loc, "call to the kernel '%s'", callee->name);
    if (s->arg_count != callee->param_count) {
        fail(v, s->loc, "call to '%s' with %d arguments, not %d", callee->name, s->arg_count,
             callee->param_count);
        return;
    }
    for (int i = 0; i < s->arg_count && s->args; i++)
        if (s->args[i] && callee->params[i] && s->args[i]->type != callee->params[i]->type)
            fail(v, s->loc, "argument %d of call to '%s' has type %s, not %s", i, callee->name,
                 tn(v, s->args[i]->type), tn(v, callee->params[i]->type));
    if (s->result && s->result->type != callee->return_type)
        fail(v, s->loc, "result '%s' of type %s receives '%s' returning %s", var_name(s->result),
             tn(v, s->result->type), callee->name, tn(v, callee->return_type));
}

static void check_decl(verifier *v, const ir_stmt *s) {
    const ir_var *x = s->var;
    if (!x) {
        fail(v, s->loc, "declaration without a variable");
        return;
    }
    if (s->value && check_expr(v, s->value) && s->value->type != x->type)
        fail(v, s->loc, "'%s' of type %s initialised with %s", var_name(x), tn(v, x->type),
             tn(v, s->value->type));
    if (!x->type || x->type->kind == IR_T_VOID)
        fail(v, s->loc, "'%s' declared without a type", var_name(x));
    if (x->storage != IR_VAR_LOCAL)
        fail(v, s->loc, "declaration of '%s', which is not a local", var_name(x));
    int id = listed_id(v, x);
    uint8_t facts = id >= 0 ? v->facts[id] : 0;
    if (id >= 0 ? (facts & VAR_DECLARED) != 0 : in_list(v->declared.items, v->declared.count, x))
        fail(v, s->loc, "'%s' is declared twice", var_name(x));
    else if (facts & VAR_PARAM)
        fail(v, s->loc, "declaration of the parameter '%s'", var_name(x));
    if (!(facts & VAR_LOCAL))
        fail(v, s->loc, "'%s' is not in the locals of '%s'", var_name(x), v->f->name);
    if (id >= 0) v->facts[id] |= VAR_DECLARED;
    else EN_PUSH(&v->scratch, v->declared, x);
    enter_scope(v, x);
}

static void check_block(verifier *v, const ir_stmt *s) {
    int scope_mark = v->scope.count;
    if (s->stmt_count > 0 && !s->stmts) fail(v, s->loc, "block has no statement array");
    else
        for (int i = 0; i < s->stmt_count; i++) check_stmt(v, s->stmts[i]);
    leave_scope(v, scope_mark);
}

/* an arm of an if or a loop body: its own scope even when it is not a block */
static void check_nested(verifier *v, const ir_stmt *s) {
    int scope_mark = v->scope.count;
    check_stmt(v, s);
    leave_scope(v, scope_mark);
}

static void check_stmt(verifier *v, const ir_stmt *s) {
    if (!s) {
        fail(v, v->f->loc, "missing statement in '%s'", v->f->name);
        return;
    }
    switch (s->kind) {
    case IR_S_BLOCK: check_block(v, s); break;
    case IR_S_DECL: check_decl(v, s); break;
    case IR_S_ASSIGN: {
        bool p = check_root(v, s->place, s->loc, "assignment's place");
        bool val = check_root(v, s->value, s->loc, "assignment's value");
        if (p) check_place(v, s->place, s->loc);
        if (p && val && s->place->type != s->value->type)
            fail(v, s->loc, "assignment of %s to a place of type %s", tn(v, s->value->type),
                 tn(v, s->place->type));
        break;
    }
    case IR_S_IF:
        if (check_root(v, s->cond, s->loc, "if condition") && s->cond->type->kind != IR_T_BOOL)
            fail(v, s->loc, "if condition of type %s, not bool", tn(v, s->cond->type));
        if (!s->then_s) fail(v, s->loc, "if without a then-statement");
        else check_nested(v, s->then_s);
        if (s->else_s) check_nested(v, s->else_s);
        break;
    case IR_S_LOOP: {
        if (loop_is_enclosing(v, s)) {
            fail(v, s->loc, "loop contains itself");
            break;
        }
        EN_PUSH(&v->scratch, v->loops, s);
        if (!s->body) fail(v, s->loc, "loop without a body");
        else check_nested(v, s->body);
        if (s->latch) {
            const ir_stmt *outer_latch = v->latch_of;
            v->latch_of = s;
            check_nested(v, s->latch);
            v->latch_of = outer_latch;
        }
        v->loops.count--;
        break;
    }
    case IR_S_BREAK:
    case IR_S_CONTINUE: {
        const char *what = s->kind == IR_S_BREAK ? "break" : "continue";
        if (!s->target) fail(v, s->loc, "%s without a target loop", what);
        else if (s->target->kind != IR_S_LOOP) fail(v, s->loc, "%s whose target is not a loop", what);
        else if (!loop_is_enclosing(v, s->target)) fail(v, s->loc, "%s out of a loop that does not enclose it", what);
        else if (s->kind == IR_S_CONTINUE && v->latch_of == s->target)
            fail(v, s->loc, "continue from the latch of its own loop");
        break;
    }
    case IR_S_RETURN: {
        const ir_type *rt = v->f->return_type;
        bool is_void = !rt || rt->kind == IR_T_VOID;
        if (s->value) {
            if (check_expr(v, s->value) && s->value->type != rt)
                fail(v, s->loc, "return of %s from '%s', which returns %s", tn(v, s->value->type),
                     v->f->name, tn(v, rt));
        } else if (!is_void) {
            fail(v, s->loc, "return without a value from '%s', which returns %s", v->f->name, tn(v, rt));
        }
        break;
    }
    case IR_S_INTRINSIC: check_intrinsic_stmt(v, s); break;
    case IR_S_CALL: check_call_stmt(v, s); break;
    default: fail(v, s->loc, "statement of unknown kind %d", (int)s->kind); break;
    }
}

/* ---- functions and the module ------------------------------------------------------ */
static bool is_position_type(const ir_type *t) {
    const ir_type *s = ir_scalar_of(t);
    return s && (s->kind == IR_T_U32 || s->kind == IR_T_U16) &&
           (t->kind != IR_T_VEC || t->count <= 3);
}

static void check_kernel_param(verifier *v, const ir_var *p, int_list *buffers, int_list *groups) {
    const ir_type *t = p->type;
    switch (p->param_kind) {
    case IR_PARAM_NONE:
        fail(v, p->loc, "kernel parameter '%s' has no [[buffer]], [[threadgroup]] or attribute",
             var_name(p));
        break;
    case IR_PARAM_BUFFER:
        if (t->kind != IR_T_PTR || (t->space != IR_SPACE_DEVICE && t->space != IR_SPACE_CONSTANT))
            fail(v, p->loc, "buffer parameter '%s' of type %s, not a device or constant pointer",
                 var_name(p), tn(v, t));
        for (int i = 0; i < buffers->count; i++)
            if (buffers->items[i] == p->binding)
                fail(v, p->loc, "two buffer parameters have binding %d", p->binding);
        EN_PUSH(&v->scratch, *buffers, p->binding);
        if (p->binding < 0) fail(v, p->loc, "buffer parameter '%s' has binding %d", var_name(p), p->binding);
        break;
    case IR_PARAM_THREADGROUP:
        if (t->kind != IR_T_PTR || t->space != IR_SPACE_THREADGROUP)
            fail(v, p->loc, "threadgroup parameter '%s' of type %s, not a threadgroup pointer",
                 var_name(p), tn(v, t));
        for (int i = 0; i < groups->count; i++)
            if (groups->items[i] == p->binding)
                fail(v, p->loc, "two threadgroup parameters have binding %d", p->binding);
        EN_PUSH(&v->scratch, *groups, p->binding);
        if (p->binding < 0) fail(v, p->loc, "threadgroup parameter '%s' has binding %d", var_name(p), p->binding);
        break;
    case IR_PARAM_ATTR:
        if (p->attr <= IR_ATTR_NONE || p->attr >= IR_ATTR_COUNT)
            fail(v, p->loc, "attribute parameter '%s' names no attribute", var_name(p));
        if (!is_position_type(t))
            fail(v, p->loc, "attribute parameter '%s' of type %s, not uint or ushort (vector)",
                 var_name(p), tn(v, t));
        break;
    }
}

/* indexes the function's listed variables by id; two variables with one id are an error */
static void index_vars(verifier *v, const ir_func *f) {
    v->nids = f->next_var_id > 0 ? f->next_var_id : 0;
    v->by_id = en_alloc(&v->scratch, sizeof(ir_var *) * (size_t)(v->nids + 1));
    v->facts = en_alloc(&v->scratch, (size_t)v->nids + 1);
    struct { ir_var *const *items; int count; uint8_t fact; } lists[] = {
        {f->params, f->param_count, VAR_PARAM},
        {f->threadgroup_vars.items, f->threadgroup_vars.count, 0},
        {f->locals.items, f->locals.count, VAR_LOCAL},
    };
    for (size_t l = 0; l < EN_COUNT(lists); l++)
        for (int i = 0; i < lists[l].count; i++) {
            const ir_var *x = lists[l].items ? lists[l].items[i] : NULL;
            if (!x) {
                fail(v, f->loc, "'%s' lists a NULL variable", f->name);
                continue;
            }
            if (x->id < 0 || x->id >= v->nids) {
                fail(v, x->loc, "'%s' has the id %d, outside the %d ids of '%s'", var_name(x), x->id,
                     v->nids, f->name);
                continue;
            }
            const ir_var *other = v->by_id[x->id];
            if (other && other != x) {
                fail(v, x->loc, "'%s' and '%s' share the id %d in '%s'", var_name(other), var_name(x),
                     x->id, f->name);
                continue;
            }
            v->by_id[x->id] = x;
            v->facts[x->id] |= lists[l].fact;
        }
}

static void check_func(verifier *v, const ir_func *f) {
    v->f = f;
    v->scope.count = v->declared.count = v->loops.count = 0;
    v->latch_of = NULL;
    if (!f->name) fail(v, f->loc, "function without a name");
    if (!f->return_type) fail(v, f->loc, "function '%s' without a return type", f->name);
    if (f->is_kernel && f->return_type && f->return_type->kind != IR_T_VOID)
        fail(v, f->loc, "kernel '%s' returns %s, not void", f->name, tn(v, f->return_type));
    index_vars(v, f);
    int_list buffers = {0}, groups = {0};
    for (int i = 0; i < f->param_count; i++) {
        const ir_var *p = f->params ? f->params[i] : NULL;
        if (!p) {
            fail(v, f->loc, "parameter %d of '%s' is missing", i, f->name);
            continue;
        }
        if (!p->type) fail(v, p->loc, "parameter '%s' without a type", var_name(p));
        else if (f->is_kernel) check_kernel_param(v, p, &buffers, &groups);
        else if (p->param_kind != IR_PARAM_NONE)
            fail(v, p->loc, "parameter '%s' of the helper function '%s' has a kernel binding",
                 var_name(p), f->name);
        if (p->storage != IR_VAR_LOCAL) fail(v, p->loc, "parameter '%s' is not a local", var_name(p));
        enter_scope(v, p);
    }
    for (int i = 0; i < f->threadgroup_vars.count; i++) {
        const ir_var *x = f->threadgroup_vars.items[i];
        if (!x) continue;
        if (x->storage != IR_VAR_THREADGROUP)
            fail(v, x->loc, "threadgroup variable '%s' without threadgroup storage", var_name(x));
        if (!f->is_kernel)
            fail(v, x->loc, "threadgroup variable '%s' in the helper function '%s'", var_name(x), f->name);
        enter_scope(v, x);
    }
    if (!f->body) fail(v, f->loc, "function '%s' without a body", f->name);
    else if (f->body->kind != IR_S_BLOCK) fail(v, f->body->loc, "body of '%s' is not a block", f->name);
    else check_stmt(v, f->body);
    v->f = NULL;
}

static bool is_constant_expr(const ir_expr *e) {
    if (!e) return false;
    switch (e->kind) {
    case IR_E_CONST: return true;
    case IR_E_VAR: return e->var && e->var->storage == IR_VAR_CONSTANT;
    case IR_E_CONVERT: case IR_E_SPLAT: case IR_E_VECTOR: case IR_E_AGGREGATE: case IR_E_BITCAST:
    case IR_E_UNARY: case IR_E_BINARY:
        for (int i = 0; i < e->arg_count; i++)
            if (!is_constant_expr(e->args[i])) return false;
        return true;
    default: return false;
    }
}

static void check_global(verifier *v, const ir_var *g) {
    if (g->storage != IR_VAR_CONSTANT) fail(v, g->loc, "global '%s' is not a constant", var_name(g));
    if (!g->init) {
        fail(v, g->loc, "constant '%s' without an initializer", var_name(g));
        return;
    }
    if (!check_expr(v, g->init)) return;
    if (g->init->type != g->type)
        fail(v, g->loc, "constant '%s' of type %s initialised with %s", var_name(g), tn(v, g->type),
             tn(v, g->init->type));
    if (!is_constant_expr(g->init))
        fail(v, g->loc, "initializer of the constant '%s' is not a constant expression", var_name(g));
}

bool ir_verify(const ir_module *m, en_diags *d, const char *after_pass) {
    verifier v = {.m = m, .d = d, .pass = after_pass, .ok = true};
    en_arena_init(&v.scratch);
    /* calls are gone from the inline pass on; the pipeline names later passes after it */
    v.calls_allowed = !after_pass || en_streq(after_pass, "check") || en_streq(after_pass, "parse") ||
                      en_streq(after_pass, "tailcall");
    for (int i = 0; i < m->globals.count; i++)
        if (m->globals.items[i]) check_global(&v, m->globals.items[i]);
    for (int i = 0; i < m->funcs.count; i++) {
        const ir_func *f = m->funcs.items[i];
        if (!f) {
            fail(&v, (en_loc){-1, 0, 0}, "NULL function in the module");
            continue;
        }
        if (!v.calls_allowed && !f->is_kernel)
            fail(&v, f->loc, "helper function '%s' left after inlining", f->name);
        check_func(&v, f);
    }
    en_arena_free(&v.scratch);
    return v.ok;
}
