/* builtins_composite.c — MSL built-ins that are compositions of others: the floating-point
 * three-operand min/max/median (fmin3, fmax3, fmedian3, MSL "Math Functions"; the integer
 * min3, max3 and median3 are intrinsics of their own), divide(x, y) and nextafter(x, y)
 * (a step of one unit in the last place, on the bits). They need no IR intrinsic and no backend support
 * of their own: each becomes the built-ins or operators it is defined by.
 *
 * Needs: builtins.c's ck_builtin_call for the two-operand forms. Guarantees: the result is
 * what the definition gives, with the two-operand built-ins' own type rules and errors. */
#include "check.h"

#include <string.h>

static const char *const three_operand[][2] = {
    {"fmin3", "fmin"}, {"fmax3", "fmax"}, {"fmedian3", NULL},
};

bool ck_is_composite_builtin(const char *name) {
    for (size_t i = 0; i < EN_COUNT(three_operand); i++)
        if (en_streq(name, three_operand[i][0])) return true;
    return en_streq(name, "divide") || en_streq(name, "nextafter");
}

static ir_expr *call2(checker *ck, const char *name, ir_expr *a, ir_expr *b, en_loc *locs, en_loc loc) {
    ir_expr *args[2] = {a, b};
    return a && b ? ck_builtin_call(ck, name, false, args, locs, 2, NULL, 0, loc) : NULL;
}

static ir_expr *bitcast(checker *ck, ir_expr *e, ir_type *to, en_loc loc) {
    ir_expr *c = ir_expr_new(ck->m, IR_E_BITCAST, to, loc, 1);
    c->args[0] = e;
    return c;
}

static ir_expr *select3(checker *ck, ir_expr *c, ir_expr *a, ir_expr *b, en_loc loc) {
    ir_expr *s = ir_expr_new(ck->m, IR_E_SELECT, a->type, loc, 3);
    s->args[0] = c;
    s->args[1] = a;
    s->args[2] = b;
    return s;
}

/* nextafter(x, y) of scalar floats: x stepped one ulp toward y, as the integer of its bits
 * (up when x and the direction agree in sign, down otherwise); y when x == y; the smallest
 * subnormal of y's sign from zero; NaN when either is */
static ir_expr *next_after(checker *ck, ir_expr **args, en_loc *locs, en_loc loc) {
    ir_expr *x0 = args[0], *y0 = args[1];
    if (!ck_arith_operands(ck, &x0, &y0, ",", loc)) return NULL;
    ir_type *t = x0->type;
    if (t->kind == IR_T_VEC || !ir_is_float(t)) {
        en_error(ck->diags, loc, "'nextafter' needs scalar floating-point arguments in enigma, got '%s'",
                 ck_type_name(ck, t));
        return NULL;
    }
    /* x and y are read many times: held in variables, each read its own IR node */
    ir_var *xv = ck_temp_init(ck, t, x0, locs[0]), *yv = ck_temp_init(ck, t, y0, locs[1]);
#define X ir_var_ref(ck->m, xv, loc)
#define Y ir_var_ref(ck->m, yv, loc)
#define ZERO ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I32), 0, loc), t, loc)
    ir_type *bits = ck_t(ck, t->size == 4 ? IR_T_I32 : IR_T_I16), *b = ck_t(ck, IR_T_BOOL);
    ir_expr *up = ir_binary(ck->m, IR_OP_EQ, b, ir_binary(ck->m, IR_OP_LT, b, X, Y, loc),
                            ir_binary(ck->m, IR_OP_GT, b, X, ZERO, loc), loc);
    ir_expr *step = select3(ck, up, ir_const_int(ck->m, bits, 1, loc), ir_const_int(ck->m, bits, -1, loc), loc);
    ir_expr *stepped = bitcast(ck, ir_binary(ck->m, IR_OP_ADD, bits, bitcast(ck, X, bits, loc), step, loc), t, loc);
    ir_expr *tiny = call2(ck, "copysign", bitcast(ck, ir_const_int(ck->m, bits, 1, loc), t, loc), Y, locs, loc);
    ir_expr *from_zero = select3(ck, ir_binary(ck->m, IR_OP_EQ, b, X, ZERO, loc), tiny, stepped, loc);
    ir_expr *r = select3(ck, ir_binary(ck->m, IR_OP_EQ, b, X, Y, loc), Y, from_zero, loc);
    ir_expr *xs[1] = {X}, *ys[1] = {Y};
    ir_expr *nan_x = ck_builtin_call(ck, "isnan", false, xs, locs, 1, NULL, 0, loc);
    ir_expr *nan_y = ck_builtin_call(ck, "isnan", false, ys, locs + 1, 1, NULL, 0, loc);
    if (!tiny || !nan_x || !nan_y) return NULL;
    ir_expr *either = ir_binary(ck->m, IR_OP_LOGOR, b, nan_x, nan_y, loc);
    return select3(ck, either, ir_binary(ck->m, IR_OP_ADD, t, X, Y, loc), r, loc);
#undef X
#undef Y
#undef ZERO
}


ir_expr *ck_composite_builtin(checker *ck, const char *name, ir_expr **args, en_loc *locs, int n, en_loc loc) {
    if (en_streq(name, "nextafter")) {
        if (n != 2) {
            en_error(ck->diags, loc, "'nextafter' takes 2 arguments, not %d", n);
            return NULL;
        }
        return next_after(ck, args, locs, loc);
    }
    if (en_streq(name, "divide")) {
        if (n != 2) {
            en_error(ck->diags, loc, "'divide' takes 2 arguments, not %d", n);
            return NULL;
        }
        ir_expr *a = args[0], *b = args[1];
        if (!ck_arith_operands(ck, &a, &b, "/", loc)) return NULL;
        if (!ir_is_float(ir_scalar_of(a->type))) {
            en_error(ck->diags, loc, "'divide' needs floating-point arguments, got '%s'", ck_type_name(ck, a->type));
            return NULL;
        }
        return ir_binary(ck->m, IR_OP_DIV, a->type, a, b, loc);
    }
    if (n != 3) {
        en_error(ck->diags, loc, "'%s' takes 3 arguments, not %d", name, n);
        return NULL;
    }
    en_loc l2[2] = {locs[0], locs[1]};
    const char *lo = "fmin", *hi = "fmax";
    for (size_t i = 0; i < EN_COUNT(three_operand); i++) {
        if (!en_streq(name, three_operand[i][0]) || !three_operand[i][1]) continue;
        /* fmin3(a, b, c) = fmin(fmin(a, b), c) */
        ir_expr *ab = call2(ck, three_operand[i][1], args[0], args[1], l2, loc);
        en_loc l3[2] = {loc, locs[2]};
        return call2(ck, three_operand[i][1], ab, args[2], l3, loc);
    }
    /* fmedian3(a, b, c) = fmax(fmin(a, b), fmin(fmax(a, b), c)): a and b are read twice, so
     * they are held in variables (each read its own IR node: the backends memoize per node) */
    ir_var *av = ck_temp_init(ck, args[0]->type, args[0], locs[0]);
    ir_var *bv = ck_temp_init(ck, args[1]->type, args[1], locs[1]);
    ir_expr *mn = call2(ck, lo, ir_var_ref(ck->m, av, loc), ir_var_ref(ck->m, bv, loc), l2, loc);
    ir_expr *mx = call2(ck, hi, ir_var_ref(ck->m, av, loc), ir_var_ref(ck->m, bv, loc), l2, loc);
    en_loc l3[2] = {loc, locs[2]};
    ir_expr *upper = call2(ck, lo, mx, args[2], l3, loc);
    return call2(ck, hi, mn, upper, l2, loc);
}
