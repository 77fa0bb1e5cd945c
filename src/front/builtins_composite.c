/* builtins_composite.c — MSL built-ins that are compositions of others: the floating-point
 * three-operand min/max/median (fmin3, fmax3, fmedian3, MSL "Math Functions"; the integer
 * min3, max3 and median3 are intrinsics of their own) and divide(x, y). They need no IR intrinsic and no backend support
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
    return en_streq(name, "divide");
}

static ir_expr *call2(checker *ck, const char *name, ir_expr *a, ir_expr *b, en_loc *locs, en_loc loc) {
    ir_expr *args[2] = {a, b};
    return a && b ? ck_builtin_call(ck, name, false, args, locs, 2, NULL, 0, loc) : NULL;
}

ir_expr *ck_composite_builtin(checker *ck, const char *name, ir_expr **args, en_loc *locs, int n, en_loc loc) {
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
    /* fmedian3(a, b, c) = fmax(fmin(a, b), fmin(fmax(a, b), c)); a, b and c are read once each,
     * so operands with side effects are held in temporaries */
    ir_expr *v[3];
    for (int i = 0; i < 3; i++)
        v[i] = ir_is_place(args[i]) || args[i]->kind == IR_E_CONST
                   ? args[i]
                   : ir_var_ref(ck->m, ck_temp_init(ck, args[i]->type, args[i], locs[i]), locs[i]);
    ir_expr *mn = call2(ck, lo, v[0], v[1], l2, loc);
    ir_expr *mx = call2(ck, hi, v[0], v[1], l2, loc);
    en_loc l3[2] = {loc, locs[2]};
    ir_expr *upper = call2(ck, lo, mx, v[2], l3, loc);
    return call2(ck, hi, mn, upper, l2, loc);
}
