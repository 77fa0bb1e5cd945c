/* constexpr_call.c — calls of constexpr functions evaluated while checking.
 *
 * C++ evaluates a constexpr function called with constant arguments where a constant is
 * needed: `constexpr int pack_factor = get_pack_factor<32, bits>();` (MLX's quantized
 * kernels), `constexpr uniform<int> stride = make_uniform(blockN);` (MLX's gemv). The checker
 * calls functions by emitting an IR_S_CALL, whose result is a temporary no fold can see
 * through; here a call whose callee is constexpr, whose arguments fold to constants and whose
 * checked body comes down to `return e;` (after `if constexpr` left out the branches not
 * taken) becomes e with the arguments in place of the parameters, folded.
 *
 * Needs: the callee's body checked (a template instance's is, before its first call).
 * Gives: the folded constant, or NULL: the call is then emitted as any other and is still
 *        right at run time, only not a constant (a constexpr variable initialised from it
 *        reports that it needs a constant initializer). Loops, locals and several
 *        statements are not evaluated: no target needs them. */
#include "check.h"

/* the expression of the body's only statement, `return e;`, through nested blocks */
static const ir_expr *sole_return(const ir_stmt *s) {
    while (s && s->kind == IR_S_BLOCK) {
        if (s->stmt_count != 1) return NULL;
        s = s->stmts[0];
    }
    return s && s->kind == IR_S_RETURN ? s->value : NULL;
}

/* e with the callee's parameters replaced by the constant arguments; NULL where e reads
 * anything else that is not a constant (a local, a global variable, memory) */
static ir_expr *substitute(checker *ck, const ir_func *callee, ir_expr **args, const ir_expr *e) {
    if (e->kind == IR_E_VAR) {
        for (int i = 0; i < callee->param_count; i++)
            if (callee->params[i] == e->var) return args[i];
        return NULL;
    }
    if (e->kind == IR_E_DEREF || e->kind == IR_E_ADDR || e->kind == IR_E_INDEX || e->kind == IR_E_FIELD)
        return NULL; /* memory: not a constant expression here */
    ir_expr *c = ir_expr_new(ck->m, e->kind, e->type, e->loc, e->arg_count);
    ir_expr **own = c->args;
    *c = *e;
    c->args = own;
    for (int i = 0; i < e->arg_count; i++) {
        c->args[i] = e->args[i] ? substitute(ck, callee, args, e->args[i]) : NULL;
        if (e->args[i] && !c->args[i]) return NULL;
    }
    return c;
}

ir_expr *ck_constexpr_call(checker *ck, const ir_func *callee, ir_expr **args, int n) {
    if (!callee || n != callee->param_count) return NULL;
    const ir_expr *ret = sole_return(callee->body);
    if (!ret) return NULL;
    ir_expr **values = en_alloc(ck->a, sizeof(ir_expr *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        values[i] = ck_fold(ck, args[i]);
        if (!values[i] || values[i]->kind != IR_E_CONST) return NULL;
    }
    ir_expr *e = substitute(ck, callee, values, ret);
    if (!e) return NULL;
    ir_expr *f = ck_fold(ck, e);
    return f && f->kind == IR_E_CONST && f->type == callee->return_type ? f : NULL;
}
