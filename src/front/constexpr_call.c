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
    if (e->kind == IR_E_DEREF || e->kind == IR_E_ADDR || e->kind == IR_E_INDEX)
        return NULL; /* memory: not a constant expression here */
    /* a field of an object parameter: the constant object's member (ck_fold takes it out) */
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

/* a folded value that is a constant: a scalar, or a struct object of constants (MLX's
 * complex_t operators take and give those) */
static bool constant_value(const ir_expr *v) {
    if (!v) return false;
    if (v->kind == IR_E_CONST) return true;
    if (v->kind != IR_E_AGGREGATE) return false;
    for (int i = 0; i < v->arg_count; i++)
        if (!constant_value(v->args[i])) return false;
    return true;
}

ir_expr *ck_constexpr_call(checker *ck, const ir_func *callee, ir_expr **args, int n) {
    if (!callee || n != callee->param_count) return NULL;
    const ir_expr *ret = sole_return(callee->body);
    if (!ret) return NULL;
    ir_expr **values = en_alloc(ck->a, sizeof(ir_expr *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        values[i] = ck_fold(ck, args[i]);
        if (!constant_value(values[i])) return NULL;
    }
    ir_expr *e = substitute(ck, callee, values, ret);
    if (!e) return NULL;
    ir_expr *f = ck_fold(ck, e);
    return constant_value(f) && f->type == callee->return_type ? f : NULL;
}

/* ---- constructors at program scope ----------------------------------------------------------
 * `static constexpr constant complex64_t v = complex64_t(nan, nan);` (MLX's sort.h) builds an
 * object where no code runs. The construction is checked as it would be in a function (into
 * a scratch function, so overload resolution and member initializers work as usual), then
 * run here: the constructor's body may only assign the object's fields from its parameters
 * and constants; the fields' constants become the object's IR_E_AGGREGATE. */
typedef struct ctor_eval {
    checker *ck;
    const ir_var *object;  /* the temporary being built */
    ir_expr **fields;      /* its field values so far */
    const ir_func *fn;     /* the constructor being run */
    ir_expr **params;      /* its arguments: constants; NULL for `this` */
} ctor_eval;

/* the field index a place `(*this).f` or `object.f` assigns, or -1 */
static int assigned_field(const ctor_eval *ev, const ir_expr *p) {
    if (p->kind != IR_E_FIELD) return -1;
    const ir_expr *base = p->args[0];
    if (base->kind == IR_E_VAR && base->var == ev->object) return p->field;
    if (base->kind == IR_E_DEREF && base->args[0]->kind == IR_E_VAR && ev->fn && ev->fn->param_count > 0 &&
        base->args[0]->var == ev->fn->params[0])
        return p->field;
    return -1;
}

static bool run_ctor_stmt(ctor_eval *ev, const ir_stmt *s) {
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (!run_ctor_stmt(ev, s->stmts[i])) return false;
        return true;
    case IR_S_DECL: return s->var == ev->object && !s->value;
    case IR_S_ASSIGN: {
        int f = assigned_field(ev, s->place);
        if (f < 0 || !ev->fn) return false;
        ir_expr *v = substitute(ev->ck, ev->fn, ev->params, s->value);
        v = v ? ck_fold(ev->ck, v) : NULL;
        if (!v || (v->kind != IR_E_CONST && v->kind != IR_E_AGGREGATE)) return false;
        ev->fields[f] = v;
        return true;
    }
    case IR_S_CALL: { /* the constructor, called on &object with constant arguments */
        const ir_func *callee = s->callee;
        if (ev->fn || !callee || s->arg_count != callee->param_count || s->arg_count < 1) return false;
        const ir_expr *self = s->args[0];
        while (self->kind == IR_E_PTRCAST) self = self->args[0];
        if (self->kind != IR_E_ADDR || self->args[0]->kind != IR_E_VAR || self->args[0]->var != ev->object)
            return false;
        ir_expr **params = en_alloc(ev->ck->a, sizeof(ir_expr *) * (size_t)s->arg_count);
        params[0] = NULL; /* `this`: no constant; substitute() gives up where it is read */
        for (int i = 1; i < s->arg_count; i++) {
            params[i] = ck_fold(ev->ck, s->args[i]);
            if (!params[i] || params[i]->kind != IR_E_CONST) return false;
        }
        ev->fn = callee;
        ev->params = params;
        bool ok = run_ctor_stmt(ev, callee->body);
        ev->fn = NULL;
        return ok;
    }
    case IR_S_RETURN: return !s->value;
    default: return false;
    }
}

static ir_func *enter_scratch(checker *ck, ck_fnctx *saved, int *first_func, en_loc loc);
static void leave_scratch(checker *ck, ck_fnctx saved, int first_func);

ir_expr *ck_constexpr_construct(checker *ck, ir_type *t, ir_expr **args, en_loc *locs, int n, en_loc loc) {
    ck_fnctx saved;
    int first_func;
    ir_func *scratch = enter_scratch(ck, &saved, &first_func, loc);
    ir_expr *made = ck_construct(ck, t, args, locs, n, loc);
    leave_scratch(ck, saved, first_func);
    if (!made || made->kind != IR_E_VAR) return NULL;
    ctor_eval ev = {.ck = ck, .object = made->var,
                    .fields = en_alloc(ck->a, sizeof(ir_expr *) * (size_t)(t->field_count ? t->field_count : 1))};
    if (!run_ctor_stmt(&ev, scratch->body)) return NULL;
    ir_expr *agg = ir_expr_new(ck->m, IR_E_AGGREGATE, t, loc, t->field_count);
    for (int i = 0; i < t->field_count; i++) {
        if (!ev.fields[i]) return NULL; /* a field the constructor leaves unset: no constant */
        agg->args[i] = ev.fields[i];
    }
    return agg;
}

/* ---- calls at program scope --------------------------------------------------------------------
 * `static constexpr constant short pack_factor = get_pack_factor<8, bits>();` as a member of
 * a struct (MLX's quantized kernels) calls a function where no code runs. The call is checked
 * in a scratch function, where emit_call folds a constexpr call; what comes back is kept only
 * if it is a constant and no code was needed for it. */
static ir_func *enter_scratch(checker *ck, ck_fnctx *saved, int *first_func, en_loc loc) {
    *saved = ck_save_fn(ck);
    *first_func = ck->m->funcs.count;
    ir_func *scratch = ir_func_new(ck->m, "__constexpr_evaluation", loc);
    ck->fn = scratch;
    ck->block = scratch->body;
    ck->is_kernel = false;
    ck->control_depth = 0;
    ck->this_var = NULL;
    ck_push_scope(ck);
    return scratch;
}

static void leave_scratch(checker *ck, ck_fnctx saved, int first_func) {
    ck_restore_fn(ck, saved);
    /* the scratch function leaves the module (what it instantiated stays) */
    for (int i = first_func; i + 1 < ck->m->funcs.count; i++) ck->m->funcs.items[i] = ck->m->funcs.items[i + 1];
    ck->m->funcs.count--;
}

ir_expr *ck_call_at_program_scope(checker *ck, ck_sym *fs, const ast_name *name, ir_expr **args, en_loc *locs, int n,
                                  en_loc loc) {
    ck_fnctx saved;
    int first_func;
    ir_func *scratch = enter_scratch(ck, &saved, &first_func, loc);
    ir_expr *v = ck_call_user(ck, fs, name, args, locs, n, loc);
    leave_scratch(ck, saved, first_func);
    return constant_value(v) && scratch->body->stmt_count == 0 ? v : NULL;
}
