/* function_constant.c — Metal's function constants: `constant T name [[function_constant(i)]];`
 * and is_function_constant_defined(name) (MSL spec, "Function Constants").
 *
 * In Metal the host gives the values when it specialises a function (MTLFunctionConstantValues,
 * by name or by index) and the GPU compiler then folds them. enigma specialises at compile
 * time: the values come with the compile options (en_ctx.function_constants, "NAME=VALUE"
 * or "INDEX=VALUE"), so a constant with a value is, from here on, exactly a `constexpr`
 * program-scope constant, and the checker removes the branches it decides (check_stmt.c).
 *
 * Needs: the checker's program scope. Guarantees: a constant with a value is a SYM_CONST
 * holding it, converted to the declared type (a value the type cannot hold is an error at
 * the declaration); one without is a SYM_CONST with no value and is_function_constant set,
 * whose reads are errors naming the constant and how to give it a value (except in code a
 * constant condition never runs, ck->dead_code), while
 * is_function_constant_defined() of it is `false` (Metal: a constant only tested that way
 * is optional). A value given for no declared constant is not an error, as in Metal. */
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* the VALUE of the option that names this constant (by name, or by index), or NULL */
static const char *given_value(checker *ck, const char *name, int64_t index) {
    const char *found = NULL;
    for (int i = 0; i < ck->c->function_constant_count; i++) {
        const char *opt = ck->c->function_constants[i];
        const char *eq = strchr(opt, '=');
        if (!eq) continue;
        size_t len = (size_t)(eq - opt);
        bool by_name = strlen(name) == len && strncmp(opt, name, len) == 0;
        bool by_index = false;
        if (opt[0] >= '0' && opt[0] <= '9') {
            char *end;
            long long v = strtoll(opt, &end, 10);
            by_index = end == eq && v == index;
        }
        if (by_name || by_index) found = eq + 1; /* the last one given wins */
    }
    return found;
}

/* VALUE as a constant of scalar type t, or NULL after an error at loc */
static ir_expr *parse_value(checker *ck, const char *name, const char *text, ir_type *t, en_loc loc) {
    ir_expr *c = ir_expr_new(ck->m, IR_E_CONST, t, loc, 0);
    char *end = NULL;
    errno = 0;
    if (t->kind == IR_T_BOOL) {
        if (en_streq(text, "true") || en_streq(text, "1")) c->c.u = 1;
        else if (en_streq(text, "false") || en_streq(text, "0")) c->c.u = 0;
        else end = (char *)text; /* not a bool */
    } else if (ir_is_float(t)) {
        double v = strtod(text, &end);
        c->c.f = ck_round_float(t->kind, v);
    } else if (ir_is_signed(t)) {
        long long v = strtoll(text, &end, 0);
        int bits = (int)t->size * 8;
        if (bits < 64 && (v < -(1LL << (bits - 1)) || v > (1LL << (bits - 1)) - 1)) errno = ERANGE;
        c->c.i = v;
    } else {
        if (text[0] == '-') errno = ERANGE;
        unsigned long long v = strtoull(text, &end, 0);
        int bits = (int)t->size * 8;
        if (bits < 64 && v >> bits) errno = ERANGE;
        c->c.u = v;
    }
    if (end == text || (end && *end) || errno == ERANGE) {
        en_error(ck->diags, loc, "the value '%s' given for function constant '%s' is not a %s", text, name,
                 ck_type_name(ck, t));
        return NULL;
    }
    return c;
}

void ck_function_constant_decl(checker *ck, const ast_decl *d, const ast_attr *a, ir_type *t) {
    int64_t index;
    if (a->args.count != 1) {
        en_error(ck->diags, a->loc, "[[function_constant]] needs one index");
        return;
    }
    if (!ck_const_expr(ck, a->args.items[0], &index, "a function constant index")) return;
    if (index < 0 || index > 65535) {
        en_error(ck->diags, a->args.items[0]->loc, "function constant index %lld is outside 0..65535",
                 (long long)index);
        return;
    }
    if (d->init) {
        en_error(ck->diags, d->init->loc, "function constant '%s' cannot have an initializer", d->name);
        return;
    }
    if (!t || !ir_is_scalar(t)) {
        en_error(ck->diags, d->loc, "function constant '%s' must have a scalar type (bool, an integer or a "
                                    "floating-point type) in enigma", d->name);
        return;
    }
    const char *text = given_value(ck, d->name, index);
    ir_expr *value = text ? parse_value(ck, d->name, text, t, d->loc) : NULL;
    if (text && !value) return;
    ck_sym *s = ck_declare(ck, SYM_CONST, d->name, d->loc);
    s->value = value;
    s->is_function_constant = true;
    s->function_constant_index = (int)index;
    s->function_constant_type = t;
}

ir_expr *ck_is_function_constant_defined(checker *ck, const ast_expr *call) {
    const ast_expr *arg = call->args.count == 1 ? call->args.items[0] : NULL;
    ck_sym *s = arg && arg->kind == AST_EXPR_NAME ? ck_lookup(ck, &arg->name) : NULL;
    if (!s || s->kind != SYM_CONST || !s->is_function_constant) {
        en_error(ck->diags, arg ? arg->loc : call->loc,
                 "is_function_constant_defined takes the name of a [[function_constant]] declaration");
        return NULL;
    }
    return ir_const_bool(ck->m, s->value != NULL, call->loc);
}

ir_expr *ck_function_constant_missing(checker *ck, const ck_sym *s, en_loc loc) {
    if (ck->dead_code) /* never runs: any value of the type stands in */
        return ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I32), 0, loc), s->function_constant_type, loc);
    en_error(ck->diags, loc,
             "function constant '%s' ([[function_constant(%d)]]) has no value: give one when compiling "
             "(--constant %s=VALUE, or %d=VALUE), or test it with is_function_constant_defined()",
             s->name, s->function_constant_index, s->name, s->function_constant_index);
    return NULL;
}
