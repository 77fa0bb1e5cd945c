/* type_traits.c — the value type traits of <metal_type_traits> (C++'s <type_traits> as
 * Metal ships it): `is_same<A, B>::value` and `is_same_v<A, B>`, and the classification
 * traits kernel libraries test in templates (is_integral, is_floating_point, ...).
 *
 * They are built into the checker rather than written as templates in <metal_stdlib>,
 * because they classify enigma's own types (half, bfloat, vectors) that have no C++
 * definition to specialise on, and because a trait must fold to a constant wherever a
 * template argument or `if constexpr` needs one.
 *
 * Needs: names as the parser gives them (a part with template arguments, then `value`, or
 * a part ending `_v`). Guarantees: a recognised trait with well-formed arguments is a
 * bool IR_E_CONST; a recognised trait with bad arguments is an error naming it; anything
 * else is left to ordinary lookup (*handled false). */
#include "check.h"

#include <string.h>

typedef enum trait { T_NONE, T_SAME, T_INTEGRAL, T_FLOATING, T_SIGNED, T_UNSIGNED, T_ARITHMETIC,
                     T_SCALAR, T_POINTER, T_VOID, T_BOOL, T_CONVERTIBLE } trait;

static const struct { const char *name; trait t; int types; } traits[] = {
    {"is_same", T_SAME, 2},           {"is_integral", T_INTEGRAL, 1},
    {"is_floating_point", T_FLOATING, 1}, {"is_signed", T_SIGNED, 1},
    {"is_unsigned", T_UNSIGNED, 1},   {"is_arithmetic", T_ARITHMETIC, 1},
    {"is_scalar", T_SCALAR, 1},       {"is_pointer", T_POINTER, 1},
    {"is_void", T_VOID, 1},           {"is_bool", T_BOOL, 1},
    {"is_convertible", T_CONVERTIBLE, 2},
};

/* the trait `ident` names (with its `_v` form when as_variable), or -1 */
static int find_trait(const char *ident, bool as_variable) {
    if (!ident) return -1;
    size_t len = strlen(ident);
    for (size_t i = 0; i < EN_COUNT(traits); i++) {
        size_t n = strlen(traits[i].name);
        if (as_variable ? (len == n + 2 && strncmp(ident, traits[i].name, n) == 0 && strcmp(ident + n, "_v") == 0)
                        : strcmp(ident, traits[i].name) == 0)
            return (int)i;
    }
    return -1;
}

static bool holds(trait t, const ir_type *a, const ir_type *b) {
    bool is_int = ir_is_integer(a) && a->kind != IR_T_VEC;
    bool is_float = ir_is_float(a) && a->kind != IR_T_VEC;
    switch (t) {
    case T_SAME: return a == b;
    case T_INTEGRAL: return is_int || a->kind == IR_T_BOOL;
    case T_FLOATING: return is_float;
    case T_SIGNED: return (is_int && ir_is_signed(a)) || is_float;
    case T_UNSIGNED: return (is_int && !ir_is_signed(a)) || a->kind == IR_T_BOOL;
    case T_ARITHMETIC: return is_int || is_float || a->kind == IR_T_BOOL;
    case T_SCALAR: return is_int || is_float || a->kind == IR_T_BOOL || a->kind == IR_T_PTR;
    case T_POINTER: return a->kind == IR_T_PTR;
    case T_VOID: return a->kind == IR_T_VOID;
    case T_BOOL: return a->kind == IR_T_BOOL;
    /* an implicit conversion of enigma's (numbers among themselves, pointers to their
     * const forms); a struct converts only to itself here */
    case T_CONVERTIBLE: return a == b || (a->kind != IR_T_STRUCT && b->kind != IR_T_STRUCT &&
                                          ck_conv_rank(a, b, false) != CK_RANK_NONE);
    default: return false;
    }
}

ir_expr *ck_type_trait_value(checker *ck, const ast_name *n, en_loc loc, bool *handled) {
    *handled = false;
    /* skip metal:: and std:: */
    int first = 0;
    while (first < n->count - 1 && n->parts[first].ident &&
           (en_streq(n->parts[first].ident, "metal") || en_streq(n->parts[first].ident, "std")))
        first++;
    const ast_name_part *p = &n->parts[first];
    int k = -1;
    if (first == n->count - 1 && p->has_targs) k = find_trait(p->ident, true); /* is_same_v<A, B> */
    else if (first == n->count - 2 && p->has_targs && en_streq(n->parts[first + 1].ident, "value"))
        k = find_trait(p->ident, false); /* is_same<A, B>::value */
    if (k < 0) return NULL;
    *handled = true;
    if (p->targs.count != traits[k].types) {
        en_error(ck->diags, loc, "'%s' takes %d type argument%s", traits[k].name, traits[k].types,
                 traits[k].types == 1 ? "" : "s");
        return NULL;
    }
    ir_type *ts[2] = {NULL, NULL};
    for (int i = 0; i < p->targs.count; i++) {
        if (!p->targs.items[i].type) {
            en_error(ck->diags, p->targs.items[i].loc, "'%s' takes types, not values", traits[k].name);
            return NULL;
        }
        if (!(ts[i] = ck_type(ck, p->targs.items[i].type))) return NULL;
    }
    return ir_const_bool(ck->m, holds(traits[k].t, ts[0], ts[1]), loc);
}
