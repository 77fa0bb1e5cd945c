/* conv.c — MSL's conversions, made explicit in the IR.
 *
 * Needs: checked operand expressions. Guarantees: every conversion the language does
 * implicitly comes out as IR_E_CONVERT / IR_E_SPLAT (constants folded), and every one it
 * does not do is an error naming both types. The rules (Metal spec "Implicit Type
 * Conversions", C++ usual arithmetic conversions, clang's vector rules that Metal uses):
 *   - scalars convert among each other implicitly (bool included);
 *   - a scalar converts to a vector by converting to the lane type and splatting; in an
 *     operator, only when that does not truncate (or the scalar is a constant);
 *   - vectors never convert implicitly to another lane type or lane count; packed_T3 and
 *     T3 convert to each other;
 *   - pointers convert only by adding const; arrays decay to pointers to their first
 *     element; simd_vote converts only explicitly. */
#include "check.h"

#include <math.h>

ir_type *ck_t(checker *ck, ir_type_kind k) { return ir_type_scalar(ck->m, k); }

static int int_rank(ir_type_kind k) {
    switch (k) {
    case IR_T_BOOL: return 0;
    case IR_T_I8: case IR_T_U8: return 1;
    case IR_T_I16: case IR_T_U16: return 2;
    case IR_T_I32: case IR_T_U32: return 3;
    case IR_T_I64: case IR_T_U64: return 4;
    default: return -1;
    }
}

static int float_rank(ir_type_kind k) {
    switch (k) {
    case IR_T_F16: case IR_T_BF16: return 1;
    case IR_T_F32: return 2;
    default: return -1;
    }
}

ir_type *ck_promote(checker *ck, ir_type *t) {
    if (t && (t->kind == IR_T_BOOL || int_rank(t->kind) == 1 || int_rank(t->kind) == 2))
        return ck_t(ck, IR_T_I32);
    return t;
}

ir_type *ck_bool_like(checker *ck, const ir_type *t) {
    ir_type *b = ck_t(ck, IR_T_BOOL);
    if (t && t->kind == IR_T_VEC) return ir_type_vec(ck->m, b, t->count, false);
    return b;
}

static bool same_vector_shape(const ir_type *a, const ir_type *b) {
    return a && b && a->kind == IR_T_VEC && b->kind == IR_T_VEC && a->elem == b->elem &&
           a->count == b->count;
}

ck_rank ck_conv_rank(const ir_type *from, const ir_type *to, bool is_const) {
    (void)is_const;
    if (!from || !to) return CK_RANK_NONE;
    if (from == to) return CK_RANK_EXACT;
    if (ck_is_vote(from) || ck_is_vote(to)) return CK_RANK_NONE;
    if (ir_is_scalar(from) && ir_is_scalar(to)) {
        if (to->kind == IR_T_I32 && (from->kind == IR_T_BOOL || int_rank(from->kind) == 1 ||
                                     int_rank(from->kind) == 2))
            return CK_RANK_PROMOTION;
        if (to->kind == IR_T_F32 && (from->kind == IR_T_F16 || from->kind == IR_T_BF16))
            return CK_RANK_PROMOTION;
        return CK_RANK_CONVERSION;
    }
    if (ir_is_scalar(from) && to->kind == IR_T_VEC) return CK_RANK_SPLAT;
    if (same_vector_shape(from, to)) return CK_RANK_EXACT; /* packed <-> unpacked */
    /* constant memory is read-only whether or not `const` is written (MSL): constant
     * const T* and constant T* convert both ways */
    if (from->kind == IR_T_PTR && to->kind == IR_T_PTR && from->elem == to->elem &&
        from->space == to->space && (!from->is_const || to->is_const || to->space == IR_SPACE_CONSTANT))
        return CK_RANK_CONVERSION;
    if (from->kind == IR_T_ARRAY && to->kind == IR_T_PTR && from->elem == to->elem)
        return CK_RANK_CONVERSION;
    /* the only constant of pointer type is nullptr, which converts to every pointer */
    if (is_const && from->kind == IR_T_PTR && to->kind == IR_T_PTR) return CK_RANK_CONVERSION;
    return CK_RANK_NONE;
}

/* ---- constant conversion ----------------------------------------------------------- */
/* v rounded to nearest-even in a binary format with `digits` significant bits, minimum
 * normal exponent `emin` and overflow at 2^(emax+1) */
static double round_binary(double v, int digits, int emin, int emax) {
    if (v != v || isinf(v) || v == 0) return v;
    double a = fabs(v);
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int exp = e - 1;
    double ulp = exp < emin ? ldexp(1.0, emin - digits + 1) : ldexp(1.0, exp - digits + 1);
    double r = nearbyint(a / ulp) * ulp;
    if (r >= ldexp(1.0, emax + 1)) r = INFINITY;
    return copysign(r, v);
}

double ck_round_float(ir_type_kind k, double v) {
    switch (k) {
    case IR_T_F32: return (double)(float)v;
    case IR_T_F16: return round_binary(v, 11, -14, 15);
    case IR_T_BF16: return round_binary(v, 8, -126, 127);
    default: return v;
    }
}

static double round_to(ir_type_kind k, double v) { return ck_round_float(k, v); }

static ir_expr *fold_convert(checker *ck, ir_expr *c, ir_type *to, en_loc loc) {
    const ir_type *from = c->type;
    ir_expr *r = ir_expr_new(ck->m, IR_E_CONST, to, loc, 0);
    bool from_float = ir_is_float(from), from_signed = ir_is_signed(from);
    if (to->kind == IR_T_BOOL) {
        r->c.u = from_float ? c->c.f != 0 : c->c.u != 0;
    } else if (ir_is_float(to)) {
        r->c.f = round_to(to->kind, from_float ? c->c.f
                                   : from_signed ? (double)c->c.i
                                                 : (double)c->c.u);
    } else {
        uint64_t bits;
        if (from_float) {
            double f = c->c.f;
            /* out-of-range float to integer is undefined; clamp to stay defined here */
            if (f != f) f = 0;
            if (ir_is_signed(to)) {
                if (f >= 9.2e18) f = 9.2e18;
                if (f <= -9.2e18) f = -9.2e18;
                bits = (uint64_t)(int64_t)f;
            } else {
                if (f < 0) f = 0;
                if (f >= 1.8e19) f = 1.8e19;
                bits = (uint64_t)f;
            }
        } else {
            bits = c->c.u;
        }
        int size = (int)to->size * 8;
        if (size < 64) {
            uint64_t mask = ((uint64_t)1 << size) - 1;
            bits &= mask;
            if (ir_is_signed(to) && (bits >> (size - 1)) & 1) bits |= ~mask;
        }
        r->c.u = bits;
    }
    return r;
}

ir_expr *ck_convert(checker *ck, ir_expr *e, ir_type *to, en_loc loc) {
    if (!e || !to || e->type == to) return e;
    if (to->kind == IR_T_VEC && ir_is_scalar(e->type)) {
        ir_expr *lane = ck_convert(ck, e, to->elem, loc);
        ir_expr *s = ir_expr_new(ck->m, IR_E_SPLAT, to, loc, 1);
        s->args[0] = lane;
        return s;
    }
    if (e->kind == IR_E_CONST && ir_is_scalar(to) && ir_is_scalar(e->type))
        return fold_convert(ck, e, to, loc);
    return ir_convert(ck->m, to, e, loc);
}

static ir_expr *decay_or_null(checker *ck, ir_expr *e, ir_type *to, en_loc loc) {
    if (e->type->kind == IR_T_ARRAY && to->kind == IR_T_PTR && e->type->elem == to->elem &&
        ir_is_place(e)) {
        return ck_decay(ck, e, loc);
    }
    return NULL;
}

ir_expr *ck_null_pointer(checker *ck, ir_type *ptr_type, en_loc loc) {
    if (!ptr_type) ptr_type = ir_type_ptr(ck->m, ck_t(ck, IR_T_VOID), IR_SPACE_THREAD, false);
    ir_expr *n = ir_expr_new(ck->m, IR_E_CONST, ptr_type, loc, 0);
    n->c.u = 0;
    return n;
}

bool ck_is_null_pointer(const ir_expr *e) {
    return e && e->kind == IR_E_CONST && e->type->kind == IR_T_PTR;
}

ir_expr *ck_implicit(checker *ck, ir_expr *e, ir_type *to, en_loc loc) {
    if (!e || !to) return NULL;
    ir_type *from = e->type;
    if (from == to) return e;
    if (ck_is_null_pointer(e) && to->kind == IR_T_PTR) return ck_null_pointer(ck, to, loc);
    if (from->kind == IR_T_STRUCT) {
        ir_expr *c = ck_struct_conversion(ck, e, to, loc);
        if (c) return c;
    }
    if (from && to->kind == IR_T_PTR && from->kind == IR_T_ARRAY) {
        ir_expr *d = decay_or_null(ck, e, to, loc);
        if (d) return d->type == to ? d : ck_implicit(ck, d, to, loc);
    }
    ck_rank r = ck_conv_rank(from, to, ck_is_const(e));
    if (r == CK_RANK_NONE && to->kind == IR_T_STRUCT && ck_has_constructor(ck, to)) {
        /* a converting constructor of the destination (MLX: float to complex64_t) */
        en_diags quiet = {.arena = ck->diags->arena, .sources = ck->diags->sources};
        en_diags *loud = ck->diags;
        ck->diags = &quiet;
        ir_expr *made = ck_construct(ck, to, &e, &loc, 1, loc);
        ck->diags = loud;
        if (made && !quiet.errors) return made;
    }
    if (r == CK_RANK_NONE) {
        if (from && from->kind == IR_T_PTR && to->kind == IR_T_PTR && from->elem == to->elem &&
            from->space == to->space && from->is_const && !to->is_const)
            en_error(ck->diags, loc, "cannot convert '%s' to '%s': it drops const",
                     ck_type_name(ck, from), ck_type_name(ck, to));
        else
            en_error(ck->diags, loc, "cannot convert '%s' to '%s'", ck_type_name(ck, from),
                     ck_type_name(ck, to));
        return NULL;
    }
    if (from->kind == IR_T_PTR) {
        ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, to, loc, 1);
        p->args[0] = e;
        return p;
    }
    return ck_convert(ck, e, to, loc);
}

ir_expr *ck_explicit(checker *ck, ir_expr *e, ir_type *to, en_loc loc) {
    if (!e || !to) return NULL;
    ir_type *from = e->type;
    if (from == to) return e;
    if (from->kind == IR_T_STRUCT) {
        ir_expr *c = ck_struct_conversion(ck, e, to, loc);
        if (c) return c;
    }
    if (to->kind == IR_T_STRUCT && ck_has_constructor(ck, to)) /* (complex64_t)x; at program scope a constant */
        return ck_construct(ck, to, &e, &loc, 1, loc);
    if (ck_is_vote(from) && (ir_is_integer(to) || to->kind == IR_T_BOOL)) {
        ir_expr *bits = ir_convert(ck->m, ck_t(ck, IR_T_U64), e, loc);
        if (to->kind == IR_T_BOOL)
            return ir_binary(ck->m, IR_OP_NE, to, bits, ir_const_uint(ck->m, ck_t(ck, IR_T_U64), 0, loc), loc);
        return ck_convert(ck, bits, to, loc);
    }
    if (ck_is_vote(to) && ir_is_integer(from)) {
        ir_expr *bits = ck_convert(ck, e, ck_t(ck, IR_T_U64), loc);
        return ir_convert(ck->m, to, bits, loc);
    }
    if (ir_is_scalar(from) && ck_is_arith(to)) return ck_convert(ck, e, to, loc);
    if (from->kind == IR_T_VEC && to->kind == IR_T_VEC && from->count == to->count)
        return ck_convert(ck, e, to, loc);
    if (from->kind == IR_T_PTR && to->kind == IR_T_PTR) {
        if (from->space != to->space) {
            en_error(ck->diags, loc, "cannot cast '%s' to '%s': address spaces differ",
                     ck_type_name(ck, from), ck_type_name(ck, to));
            return NULL;
        }
        ir_expr *p = ir_expr_new(ck->m, IR_E_PTRCAST, to, loc, 1);
        p->args[0] = e;
        return p;
    }
    if (from->kind == IR_T_ARRAY && to->kind == IR_T_PTR) {
        if (ir_is_place(e)) return ck_explicit(ck, ck_decay(ck, e, loc), to, loc);
    }
    if (from->kind == IR_T_ARRAY && to->kind == IR_T_ARRAY && from->count == to->count &&
        from->elem->kind == IR_T_VEC && to->elem->kind == IR_T_VEC && from->elem->count == to->elem->count &&
        ck->fn) {
        /* (half4x4)m: a matrix converted column by column */
        ir_expr *src = ir_is_place(e) ? e : ir_var_ref(ck->m, ck_temp_init(ck, from, e, loc), loc);
        ir_expr *agg = ir_expr_new(ck->m, IR_E_AGGREGATE, to, loc, (int)to->count);
        for (uint32_t i = 0; i < to->count; i++) {
            ir_expr *col = ir_index(ck->m, from->elem, src, ir_const_int(ck->m, ck_t(ck, IR_T_I32), (int64_t)i, loc), loc);
            agg->args[i] = ck_convert(ck, col, to->elem, loc);
        }
        return agg;
    }
    ck_rank r = ck_conv_rank(from, to, true);
    if (r != CK_RANK_NONE) return ck_implicit(ck, e, to, loc);
    en_error(ck->diags, loc, "cannot convert '%s' to '%s'", ck_type_name(ck, from),
             ck_type_name(ck, to));
    return NULL;
}

/* the common scalar type of two arithmetic scalar types (C++ usual arithmetic conversions) */
static ir_type *common_scalar(checker *ck, ir_type *a, ir_type *b) {
    int fa = float_rank(a->kind), fb = float_rank(b->kind);
    if (fa > 0 || fb > 0) {
        if (fa > 0 && fb > 0) {
            if (a == b) return a;
            return ck_t(ck, IR_T_F32); /* half with bfloat, or either with float */
        }
        return fa > 0 ? a : b;
    }
    a = ck_promote(ck, a);
    b = ck_promote(ck, b);
    if (a == b) return a;
    int ra = int_rank(a->kind), rb = int_rank(b->kind);
    bool sa = ir_is_signed(a), sb = ir_is_signed(b);
    if (sa == sb) return ra >= rb ? a : b;
    ir_type *u = sa ? b : a, *s = sa ? a : b;
    if (int_rank(u->kind) >= int_rank(s->kind)) return u;
    return s; /* the signed type is wider and holds every value of the unsigned one */
}

/* may scalar type s be splatted into a vector of lane type lane inside an operator?
 * clang's rule for OpenCL vectors refuses any truncation; Metal's compiler is looser for
 * floating point: a float scalar meets half and bfloat vectors in its element type
 * (MSL spec 2.12: the scalar "may also be subject to the usual arithmetic conversion to
 * the element type"; ggml's `half4 *= float` compiles on Apple's toolchain). A floating
 * scalar into integer lanes still loses its fraction, and is refused. */
static bool splat_ok(const ir_type *s, const ir_type *lane, bool is_const) {
    if (s == lane || is_const) return true;
    if (ir_is_float(lane)) return true;
    if (ir_is_float(s)) return false;
    if (lane->kind == IR_T_BOOL) return s->kind == IR_T_BOOL;
    return int_rank(s->kind) <= int_rank(lane->kind);
}

bool ck_arith_operands(checker *ck, ir_expr **pa, ir_expr **pb, const char *op, en_loc loc) {
    ir_expr *a = *pa, *b = *pb;
    if (!a || !b) return false;
    ir_type *ta = a->type, *tb = b->type;
    if (ck_is_vote(ta) || ck_is_vote(tb) || !ck_is_arith(ta) || !ck_is_arith(tb)) {
        en_error(ck->diags, loc, "invalid operands to binary expression ('%s' %s '%s')",
                 ck_type_name(ck, ta), op, ck_type_name(ck, tb));
        return false;
    }
    if (ta->kind == IR_T_VEC && tb->kind == IR_T_VEC) {
        if (ta->elem != tb->elem || ta->count != tb->count) {
            en_error(ck->diags, loc,
                     "invalid operands to binary expression ('%s' %s '%s'): vectors of "
                     "different types need an explicit conversion",
                     ck_type_name(ck, ta), op, ck_type_name(ck, tb));
            return false;
        }
        /* packed and plain mix: compute in the plain vector */
        ir_type *t = ir_type_vec(ck->m, ta->elem, ta->count, false);
        *pa = ck_convert(ck, a, t, loc);
        *pb = ck_convert(ck, b, t, loc);
        return true;
    }
    if (ta->kind == IR_T_VEC || tb->kind == IR_T_VEC) {
        ir_type *v = ta->kind == IR_T_VEC ? ta : tb;
        ir_expr *s = ta->kind == IR_T_VEC ? b : a;
        if (!splat_ok(s->type, v->elem, ck_is_const(s))) {
            en_error(ck->diags, loc,
                     "cannot convert between scalar type '%s' and vector type '%s' as implicit "
                     "conversion would cause truncation",
                     ck_type_name(ck, s->type), ck_type_name(ck, v));
            return false;
        }
        ir_type *t = v->packed ? ir_type_vec(ck->m, v->elem, v->count, false) : v;
        *pa = ck_convert(ck, a, t, loc);
        *pb = ck_convert(ck, b, t, loc);
        return true;
    }
    ir_type *t = common_scalar(ck, ta, tb);
    *pa = ck_convert(ck, a, t, loc);
    *pb = ck_convert(ck, b, t, loc);
    return true;
}

ir_expr *ck_condition(checker *ck, ir_expr *e, en_loc loc) {
    if (!e) return NULL;
    if (e->type->kind == IR_T_BOOL) return e;
    if (ir_is_scalar(e->type)) {
        if (e->kind == IR_E_CONST) return ck_convert(ck, e, ck_t(ck, IR_T_BOOL), loc);
        ir_expr *zero = ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I32), 0, loc), e->type, loc);
        return ir_binary(ck->m, IR_OP_NE, ck_t(ck, IR_T_BOOL), e, zero, loc);
    }
    if (e->type->kind == IR_T_PTR) /* p is p != nullptr */
        return ir_binary(ck->m, IR_OP_NE, ck_t(ck, IR_T_BOOL), e, ck_null_pointer(ck, e->type, loc), loc);
    en_error(ck->diags, loc, "'%s' cannot be used as a condition; use all() or any() for vectors",
             ck_type_name(ck, e->type));
    return NULL;
}

void ck_mark_address_taken(ir_expr *place) {
    while (place) {
        if (place->kind == IR_E_VAR) {
            place->var->address_taken = true;
            return;
        }
        if (place->kind == IR_E_INDEX || place->kind == IR_E_FIELD || place->kind == IR_E_SWIZZLE) {
            if (place->kind == IR_E_INDEX && place->args[0]->type->kind == IR_T_PTR) return;
            place = place->args[0];
        } else {
            return;
        }
    }
}

void ck_mark_assigned(ir_expr *place) {
    while (place) {
        if (place->kind == IR_E_VAR) {
            place->var->is_assigned = true;
            return;
        }
        if (place->kind == IR_E_INDEX || place->kind == IR_E_FIELD || place->kind == IR_E_SWIZZLE) {
            if (place->kind == IR_E_INDEX && place->args[0]->type->kind == IR_T_PTR) return;
            place = place->args[0];
        } else {
            return;
        }
    }
}

ir_space ck_place_space(const ir_expr *place, bool *is_const) {
    bool c = false;
    ir_space sp = IR_SPACE_THREAD;
    while (place) {
        if (place->kind == IR_E_VAR) {
            if (place->var->storage == IR_VAR_THREADGROUP) sp = IR_SPACE_THREADGROUP;
            else if (place->var->storage == IR_VAR_CONSTANT) sp = IR_SPACE_CONSTANT, c = true;
            break;
        }
        if (place->kind == IR_E_DEREF ||
            (place->kind == IR_E_INDEX && place->args[0]->type->kind == IR_T_PTR)) {
            const ir_type *p = place->args[0]->type;
            sp = p->space;
            c = p->is_const || p->space == IR_SPACE_CONSTANT;
            break;
        }
        if (place->kind == IR_E_INDEX || place->kind == IR_E_FIELD || place->kind == IR_E_SWIZZLE)
            place = place->args[0];
        else
            break;
    }
    if (is_const) *is_const = c;
    return sp;
}

ir_expr *ck_decay(checker *ck, ir_expr *array_place, en_loc loc) {
    ir_type *at = array_place->type;
    bool is_const;
    ir_space space = ck_place_space(array_place, &is_const);
    ir_expr *first = ir_index(ck->m, at->elem, array_place,
                              ir_const_int(ck->m, ck_t(ck, IR_T_I32), 0, loc), loc);
    ir_expr *addr = ir_expr_new(ck->m, IR_E_ADDR, ir_type_ptr(ck->m, at->elem, space, is_const), loc, 1);
    addr->args[0] = first;
    ck_mark_address_taken(array_place);
    return addr;
}
