/* inline.c — the inline pass: every IR_S_CALL is replaced by a copy of the callee's body,
 * so that backends and later passes see one straight kernel per entry point (Metal has no
 * call stack to speak of, and barrier regions must see every barrier).
 *
 * Needs: a verified module (calls name non-kernel functions of the module with arguments
 *        of the parameters' types; a call's result variable is declared before the call).
 * Guarantees:
 *   - no IR_S_CALL is left and only kernels remain in the module;
 *   - each inlined body is a fresh copy: its variables are new variables of the caller
 *     (ir_var_new, so ids stay unique and the caller's locals list them), its loops are new
 *     loops, and break/continue inside it name the copies;
 *   - a parameter becomes a local initialised from its argument (arguments are pure, so
 *     evaluating them once, in order, keeps the meaning); a pointer parameter (references
 *     are pointers) stays a pointer local, so writes through it reach the caller's object;
 *   - `return v` becomes `result = v`. When the callee returns anywhere but at the end of
 *     its body, the copy is wrapped in a one-shot loop (`loop { body } latch { break }`)
 *     and each return also breaks out of it; a callee that only returns at its end gets no
 *     loop, so barriers in it stay out of loops;
 *   - recursion, direct or mutual, is an error at the call that closes the cycle:
 *     "recursive function calls are not supported: 'f' calls itself [via 'g', ...]". Then
 *     nothing is inlined and the pass returns false. */
#include "pass.h"

#include <string.h>

enum { FN_UNSEEN, FN_ACTIVE, FN_DONE };

typedef EN_VEC(ir_func *) func_list;
typedef EN_VEC(ir_stmt *) stmt_list;

typedef struct inliner {
    en_ctx *c;
    ir_module *m;
    int *state;         /* per function of m->funcs, FN_* */
    func_list path;     /* the call chain being walked (recursion check) */
    bool recursion;
} inliner;

/* one copy of a callee's body into a caller */
typedef struct body_copy {
    ir_module *m;
    ir_func *caller;
    const ir_func *callee;
    ir_var **map_from, **map_to; /* indexed by the callee's variable id */
    int map_len;
    stmt_list loops_from, loops_to; /* enclosing copied loops */
    ir_var *result;      /* receives return values; NULL drops them */
    ir_stmt *exit_loop;  /* the one-shot loop returns break out of; NULL when there is none */
    const ir_stmt *last_return; /* the trailing return that needs no loop */
} body_copy;

static int func_index(const ir_module *m, const ir_func *f) {
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i] == f) return i;
    return -1;
}

/* ---- recursion ---------------------------------------------------------------------- */
static void find_recursion(inliner *in, ir_func *f);

static void report_cycle(inliner *in, const ir_stmt *call, ir_func *callee) {
    int start = -1;
    for (int i = 0; i < in->path.count; i++)
        if (in->path.items[i] == callee) start = i;
    en_buf via = {0};
    for (int i = start + 1; i < in->path.count; i++)
        en_buf_printf(&via, "%s'%s'", i > start + 1 ? ", " : "", in->path.items[i]->name);
    if (via.len)
        en_error(&in->c->diags, call->loc,
                 "recursive function calls are not supported: '%s' calls itself via %s",
                 callee->name, via.data);
    else
        en_error(&in->c->diags, call->loc,
                 "recursive function calls are not supported: '%s' calls itself", callee->name);
    en_buf_free(&via);
    in->recursion = true;
}

/* a call statement: the callee is on the path (a cycle) or is searched next */
static void find_recursion_at(const ir_stmt *s, void *inliner_ctx) {
    inliner *in = inliner_ctx;
    if (s->kind != IR_S_CALL) return;
    int k = func_index(in->m, s->callee);
    if (k < 0) return;
    if (in->state[k] == FN_ACTIVE) report_cycle(in, s, s->callee);
    else if (in->state[k] == FN_UNSEEN) find_recursion(in, s->callee);
}

static void find_recursion(inliner *in, ir_func *f) {
    int k = func_index(in->m, f);
    in->state[k] = FN_ACTIVE;
    EN_PUSH(&in->c->arena, in->path, f);
    ir_stmt_each(f->body, find_recursion_at, in);
    in->path.count--;
    in->state[k] = FN_DONE;
}

/* ---- copying a body ------------------------------------------------------------------ */
static void map_var(body_copy *bc, ir_var *from, ir_var *to) {
    if (from->id >= 0 && from->id < bc->map_len) {
        bc->map_from[from->id] = from;
        bc->map_to[from->id] = to;
    }
}

static ir_var *mapped(const body_copy *bc, ir_var *v) {
    if (v && v->storage != IR_VAR_CONSTANT && v->id >= 0 && v->id < bc->map_len &&
        bc->map_from[v->id] == v)
        return bc->map_to[v->id];
    return v; /* a global, or a variable the callee never declared (the verifier says so) */
}

static ir_var *fresh_var(body_copy *bc, ir_var *from) {
    ir_var *to = ir_var_new(bc->m, bc->caller, from->name, from->type, from->loc);
    to->is_assigned = from->is_assigned;
    to->address_taken = from->address_taken;
    map_var(bc, from, to);
    return to;
}

static ir_expr *copy_expr(body_copy *bc, const ir_expr *e) {
    if (!e) return NULL;
    ir_expr *c = ir_expr_new(bc->m, e->kind, e->type, e->loc, 0);
    ir_expr **args = c->args;
    *c = *e;
    c->args = args;
    if (e->arg_count > 0) {
        c->args = en_alloc(bc->m->arena, sizeof(ir_expr *) * (size_t)e->arg_count);
        for (int i = 0; i < e->arg_count; i++) c->args[i] = e->args ? copy_expr(bc, e->args[i]) : NULL;
    }
    if (e->kind == IR_E_VAR) c->var = mapped(bc, e->var);
    return c;
}

static ir_expr **copy_args(body_copy *bc, ir_expr *const *args, int n) {
    ir_expr **out = en_alloc(bc->m->arena, sizeof(ir_expr *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) out[i] = args ? copy_expr(bc, args[i]) : NULL;
    return out;
}

static ir_stmt *copied_loop(const body_copy *bc, ir_stmt *target) {
    for (int i = bc->loops_from.count - 1; i >= 0; i--)
        if (bc->loops_from.items[i] == target) return bc->loops_to.items[i];
    return target;
}

static ir_stmt *copy_stmt(body_copy *bc, const ir_stmt *s);

static ir_stmt *copy_return(body_copy *bc, const ir_stmt *s) {
    ir_module *m = bc->m;
    ir_stmt *out = ir_block(m, s->loc);
    if (s->value && bc->result)
        ir_block_append(m, out, ir_assign(m, ir_var_ref(m, bc->result, s->loc), copy_expr(bc, s->value), s->loc));
    if (bc->exit_loop && s != bc->last_return) {
        ir_stmt *leave = ir_stmt_new(m, IR_S_BREAK, s->loc);
        leave->target = bc->exit_loop;
        ir_block_append(m, out, leave);
    }
    if (out->stmt_count == 1) return out->stmts[0];
    return out->stmt_count ? out : NULL;
}

static ir_stmt *copy_stmt(body_copy *bc, const ir_stmt *s) {
    if (!s) return NULL;
    ir_module *m = bc->m;
    ir_stmt *c;
    switch (s->kind) {
    case IR_S_BLOCK:
        c = ir_block(m, s->loc);
        for (int i = 0; i < s->stmt_count; i++) {
            ir_stmt *k = copy_stmt(bc, s->stmts[i]);
            if (k) ir_block_append(m, c, k);
        }
        return c;
    case IR_S_DECL: {
        ir_expr *init = copy_expr(bc, s->value); /* before the new variable exists */
        ir_var *v = s->var ? fresh_var(bc, s->var) : NULL;
        return ir_decl(m, bc->caller, v, init, s->loc);
    }
    case IR_S_RETURN: return copy_return(bc, s);
    case IR_S_LOOP:
        c = ir_stmt_new(m, IR_S_LOOP, s->loc);
        c->unroll = s->unroll;
        EN_PUSH(m->arena, bc->loops_from, (ir_stmt *)s);
        EN_PUSH(m->arena, bc->loops_to, c);
        c->body = copy_stmt(bc, s->body);
        c->latch = copy_stmt(bc, s->latch);
        bc->loops_from.count--;
        bc->loops_to.count--;
        if (!c->body) c->body = ir_block(m, s->loc);
        return c;
    default:
        break;
    }
    c = ir_stmt_new(m, s->kind, s->loc);
    *c = *s;
    c->place = copy_expr(bc, s->place);
    c->value = copy_expr(bc, s->value);
    c->cond = copy_expr(bc, s->cond);
    if (s->kind == IR_S_IF) {
        c->then_s = copy_stmt(bc, s->then_s);
        c->else_s = copy_stmt(bc, s->else_s);
        if (!c->then_s) c->then_s = ir_block(m, s->loc);
    }
    if (s->kind == IR_S_BREAK || s->kind == IR_S_CONTINUE) c->target = copied_loop(bc, s->target);
    if (s->kind == IR_S_INTRINSIC || s->kind == IR_S_CALL) {
        c->args = copy_args(bc, s->args, s->arg_count);
        c->result = mapped(bc, s->result);
    }
    return c;
}

/* does the body return anywhere but as its last top-level statement? */
static bool returns_but_last(const ir_stmt *s, const void *last) { return s->kind == IR_S_RETURN && s != last; }
static bool returns_early(const ir_stmt *s, const ir_stmt *last) { return ir_stmt_any_in(s, returns_but_last, last); }

/* the statements that replace `call` (in `caller`) */
static ir_stmt *expand_call(inliner *in, ir_func *caller, const ir_stmt *call) {
    ir_module *m = in->m;
    ir_func *callee = call->callee;
    body_copy bc = {.m = m, .caller = caller, .callee = callee, .result = call->result};
    bc.map_len = callee->next_var_id;
    bc.map_from = en_alloc(m->arena, sizeof(ir_var *) * (size_t)(bc.map_len + 1));
    bc.map_to = en_alloc(m->arena, sizeof(ir_var *) * (size_t)(bc.map_len + 1));

    ir_stmt *out = ir_block(m, call->loc);
    for (int i = 0; i < callee->param_count && i < call->arg_count; i++) {
        ir_var *p = callee->params[i];
        ir_var *local = fresh_var(&bc, p);
        ir_block_append(m, out, ir_decl(m, caller, local, call->args[i], call->loc));
    }
    /* MSL allows threadgroup declarations only in kernels; kept for robustness */
    for (int i = 0; i < callee->threadgroup_vars.count; i++) {
        ir_var *t = fresh_var(&bc, callee->threadgroup_vars.items[i]);
        t->storage = IR_VAR_THREADGROUP;
        EN_PUSH(m->arena, caller->threadgroup_vars, t);
    }

    const ir_stmt *body = callee->body;
    const ir_stmt *last = body && body->kind == IR_S_BLOCK && body->stmt_count
                              ? body->stmts[body->stmt_count - 1] : NULL;
    if (last && last->kind == IR_S_RETURN) bc.last_return = last;
    if (returns_early(body, bc.last_return)) {
        ir_stmt *once = ir_stmt_new(m, IR_S_LOOP, call->loc);
        ir_stmt *leave = ir_stmt_new(m, IR_S_BREAK, call->loc);
        leave->target = once;
        once->latch = leave;
        bc.exit_loop = once;
        bc.last_return = NULL; /* inside the loop every return must leave it */
        once->body = copy_stmt(&bc, body);
        if (!once->body) once->body = ir_block(m, call->loc);
        ir_block_append(m, out, once);
    } else {
        ir_stmt *copy = copy_stmt(&bc, body);
        if (copy) ir_block_append(m, out, copy);
    }
    return out;
}

/* ---- walking callers ------------------------------------------------------------------ */
static void inline_func(inliner *in, ir_func *f);

static ir_stmt *inline_stmt(inliner *in, ir_func *f, ir_stmt *s) {
    if (!s) return NULL;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) s->stmts[i] = inline_stmt(in, f, s->stmts[i]);
        return s;
    case IR_S_IF:
        s->then_s = inline_stmt(in, f, s->then_s);
        s->else_s = inline_stmt(in, f, s->else_s);
        return s;
    case IR_S_LOOP:
        s->body = inline_stmt(in, f, s->body);
        s->latch = inline_stmt(in, f, s->latch);
        return s;
    case IR_S_CALL: {
        int k = s->callee ? func_index(in->m, s->callee) : -1;
        if (k < 0 || s->callee->is_kernel) return s; /* the verifier reports it */
        inline_func(in, s->callee); /* its own calls first: the copy is call-free */
        return expand_call(in, f, s);
    }
    default: return s;
    }
}

static void inline_func(inliner *in, ir_func *f) {
    int k = func_index(in->m, f);
    if (in->state[k] == FN_DONE) return;
    in->state[k] = FN_DONE; /* no recursion is left, so this cannot be re-entered */
    f->body = inline_stmt(in, f, f->body);
}

bool en_pass_inline(en_ctx *c, ir_module *m) {
    inliner in = {.c = c, .m = m};
    in.state = en_alloc(&c->arena, sizeof(int) * (size_t)(m->funcs.count + 1));
    for (int i = 0; i < m->funcs.count; i++)
        if (in.state[i] == FN_UNSEEN) find_recursion(&in, m->funcs.items[i]);
    if (in.recursion) return false;

    memset(in.state, 0, sizeof(int) * (size_t)m->funcs.count);
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i]->is_kernel) inline_func(&in, m->funcs.items[i]);

    /* helpers are now copied into every kernel that needs them */
    int kept = 0;
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i]->is_kernel) m->funcs.items[kept++] = m->funcs.items[i];
    m->funcs.count = kept;
    return !c->arena.out_of_memory;
}
