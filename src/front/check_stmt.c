/* check_stmt.c — statements: AST to structured IR control flow.
 *
 * Needs: the expression walk. Guarantees (ir.h):
 *   - for/while/do become IR_S_LOOP: a condition check `if (!c) break;` at the top of the
 *     body (for, while) or in the latch (do); for's step goes in the latch, so `continue`
 *     (which goes to the latch) runs it;
 *   - switch becomes a one-shot loop: the selector in a temporary, a `matched` flag that
 *     a case label sets, each statement guarded by it (so falling through works), `break`
 *     leaving the one-shot loop and `continue` naming the enclosing real loop;
 *   - `#pragma unroll [N]` sets loop->unroll (N, or -1 for full);
 *   - declarations are scoped like C++ blocks. */
#include "check.h"

static ir_stmt *new_block(checker *ck, en_loc loc) { return ir_block(ck->m, loc); }

/* an expression whose value nobody reads: `i++` needs no copy of the old value */
static void ck_discarded(checker *ck, const ast_expr *e) {
    if (e && e->kind == AST_EXPR_UNARY && (e->op == AST_OP_POSTINC || e->op == AST_OP_POSTDEC)) {
        ast_expr pre = *e;
        pre.op = e->op == AST_OP_POSTINC ? AST_OP_PREINC : AST_OP_PREDEC;
        ck_expr(ck, &pre);
        return;
    }
    if (e && e->kind == AST_EXPR_BINARY && e->op == AST_OP_COMMA) {
        ck_discarded(ck, e->lhs);
        ck_discarded(ck, e->rhs);
        return;
    }
    ck_expr(ck, e);
}

/* checks s into block b (a new scope) */
static void stmt_into(checker *ck, ir_stmt *b, const ast_stmt *s) {
    ir_stmt *outer = ck->block;
    ck->block = b;
    ck_push_scope(ck);
    if (s && s->kind == AST_STMT_COMPOUND) {
        /* the block is the compound's own: no second level of braces */
        for (int i = 0; i < s->body.count; i++) ck_stmt(ck, s->body.items[i]);
    } else {
        ck_stmt(ck, s);
    }
    ck_pop_scope(ck);
    ck->block = outer;
}

static ir_stmt *break_if_not(checker *ck, ir_expr *cond, ir_stmt *loop, en_loc loc) {
    ir_stmt *brk = ir_stmt_new(ck->m, IR_S_BREAK, loc);
    brk->target = loop;
    ir_expr *f = ck_fold(ck, cond);
    if (f && f->kind == IR_E_CONST) {
        if (f->c.u) return NULL; /* while (true) */
        return brk;
    }
    ir_expr *neg = ir_unary(ck->m, IR_OP_NOT, ck_t(ck, IR_T_BOOL), cond, loc);
    return ir_if(ck->m, neg, brk, NULL, loc);
}

/* the condition of if/while/for: a declaration-free expression, converted to bool */
static ir_expr *condition(checker *ck, const ast_expr *e, en_loc loc) {
    if (!e) return NULL;
    ir_expr *c = ck_expr(ck, e);
    if (!c) return NULL;
    if (c->type->kind == IR_T_VOID) {
        en_error(ck->diags, e->loc, "a void value cannot be a condition");
        return NULL;
    }
    (void)loc;
    return ck_condition(ck, c, e->loc);
}

static int unroll_of(const ast_stmt *s) {
    if (!s->has_unroll) return 0;
    return s->unroll_count > 0 ? s->unroll_count : -1;
}

/* for (T x : range) over an array: the range's address taken once, then an index loop
 * whose body first declares x from the element (a reference binds it, by value copies) */
static void range_for(checker *ck, const ast_stmt *s) {
    ck_push_scope(ck);
    ir_expr *range = ck_expr(ck, s->range);
    if (!range) {
        ck_pop_scope(ck);
        return;
    }
    if (range->type->kind != IR_T_ARRAY || !ir_is_place(range)) {
        en_error(ck->diags, s->range->loc, "a range-based for loop walks an array in enigma, not '%s'",
                 ck_type_name(ck, range->type));
        ck_pop_scope(ck);
        return;
    }
    ir_type *at = range->type;
    ir_expr *addr = ck_addr_of(ck, range, s->range->loc);
    ir_var *base = ck_temp_init(ck, addr->type, addr, s->range->loc);
    ir_type *ut = ck_t(ck, IR_T_U32);
    ir_var *i = ck_temp_init(ck, ut, ir_const_uint(ck->m, ut, 0, s->loc), s->loc);
    i->is_assigned = true;
    ir_stmt *loop = ir_stmt_new(ck->m, IR_S_LOOP, s->loc);
    loop->body = new_block(ck, s->loc);
    loop->latch = new_block(ck, s->loc);
    loop->unroll = unroll_of(s);
    ck_jump jump = {loop, false, ck->jumps};
    ck->jumps = &jump;
    ck->control_depth++;
    ir_stmt *outer = ck->block;
    ck->block = loop->body;
    ir_expr *more = ir_binary(ck->m, IR_OP_LT, ck_t(ck, IR_T_BOOL), ir_var_ref(ck->m, i, s->loc),
                              ir_const_uint(ck->m, ut, at->count, s->loc), s->loc);
    ck_emit(ck, break_if_not(ck, more, loop, s->loc));
    /* x = (*base)[i], declared through the ordinary declaration path */
    ck_push_scope(ck);
    ck_sym *elem = ck_declare(ck, SYM_VAR, "__range_element", s->loc);
    ir_expr *place = ir_expr_new(ck->m, IR_E_INDEX, at->elem, s->loc, 2);
    place->args[0] = ir_deref(ck->m, ir_var_ref(ck->m, base, s->loc), s->loc);
    place->args[1] = ir_var_ref(ck->m, i, s->loc);
    ir_var *ev = ir_var_new(ck->m, ck->fn, "__range_element",
                            ir_type_ptr(ck->m, at->elem, base->type->space, base->type->is_const), s->loc);
    ev->is_reference = true;
    ck_emit(ck, ir_decl(ck->m, ck->fn, ev, ck_addr_of(ck, place, s->loc), s->loc));
    elem->var = ev;
    elem->is_ref = true;
    ast_expr use = {.kind = AST_EXPR_NAME, .loc = s->range->loc};
    ast_name_part part = {.loc = s->range->loc, .ident = "__range_element"};
    use.name.parts = &part;
    use.name.count = 1;
    use.name.loc = s->range->loc;
    ast_decl var = *s->range_var;
    var.init = &use;
    var.init_style = AST_INIT_ASSIGN;
    ck_decl(ck, &var, false);
    if (s->loop_body) stmt_into(ck, loop->body, s->loop_body);
    ck_pop_scope(ck);
    ck->block = loop->latch;
    ck_emit(ck, ir_assign(ck->m, ir_var_ref(ck->m, i, s->loc),
                          ir_binary(ck->m, IR_OP_ADD, ut, ir_var_ref(ck->m, i, s->loc), ir_const_uint(ck->m, ut, 1, s->loc), s->loc),
                          s->loc));
    ck->block = outer;
    ck->control_depth--;
    ck->jumps = jump.outer;
    ck_emit(ck, loop);
    ck_pop_scope(ck);
}

static void loop_stmt(checker *ck, const ast_stmt *s) {
    if (s->kind == AST_STMT_FOR && s->range) {
        range_for(ck, s);
        return;
    }
    ck_push_scope(ck); /* for's init lives here */
    if (s->kind == AST_STMT_FOR && s->init) ck_stmt(ck, s->init);
    ir_stmt *loop = ir_stmt_new(ck->m, IR_S_LOOP, s->loc);
    loop->body = new_block(ck, s->loc);
    loop->latch = new_block(ck, s->loc);
    loop->unroll = unroll_of(s);
    ck_jump jump = {loop, false, ck->jumps};
    ck->jumps = &jump;
    ck->control_depth++;
    ir_stmt *outer = ck->block;
    if (s->kind != AST_STMT_DO && s->cond) {
        ck->block = loop->body;
        ir_expr *c = condition(ck, s->cond, s->loc);
        if (c) ck_emit(ck, break_if_not(ck, c, loop, s->cond->loc));
    }
    ck->block = loop->body;
    if (s->loop_body) stmt_into(ck, loop->body, s->loop_body);
    if (s->kind == AST_STMT_FOR && s->step) {
        ck->block = loop->latch;
        ck_discarded(ck, s->step);
    }
    if (s->kind == AST_STMT_DO && s->cond) {
        ck->block = loop->latch;
        ir_expr *c = condition(ck, s->cond, s->loc);
        if (c) ck_emit(ck, break_if_not(ck, c, loop, s->cond->loc));
    }
    ck->block = outer;
    ck->control_depth--;
    ck->jumps = jump.outer;
    if (loop->latch->stmt_count == 0) loop->latch = NULL;
    ck_emit(ck, loop);
    ck_pop_scope(ck);
}

/* ---- switch ---------------------------------------------------------------------------------- */
typedef struct sw_label {
    const ast_stmt *label; /* CASE or DEFAULT */
    int64_t value;
} sw_label;

typedef struct sw_state {
    ir_var *selector, *matched, *any_case;
    ir_type *sel_type;
    EN_VEC(int64_t) values;
    bool has_default;
    en_loc default_loc;
} sw_state;

/* strips the labels off a statement; collects them */
static const ast_stmt *strip_labels(const ast_stmt *s, const ast_stmt **labels, int *n, int max) {
    while (s && (s->kind == AST_STMT_CASE || s->kind == AST_STMT_DEFAULT)) {
        if (*n < max) labels[(*n)++] = s;
        s = s->loop_body;
    }
    return s;
}

/* the labels' constant values, checked for duplicates */
static bool label_values(checker *ck, sw_state *sw, const ast_stmt **labels, int n, int64_t *values) {
    bool ok = true;
    for (int i = 0; i < n; i++) {
        if (labels[i]->kind == AST_STMT_DEFAULT) {
            if (sw->has_default) {
                en_error(ck->diags, labels[i]->loc, "multiple default labels in one switch");
                ok = false;
            }
            sw->has_default = true;
            sw->default_loc = labels[i]->loc;
            continue;
        }
        int64_t v;
        if (!ck_const_expr(ck, labels[i]->expr, &v, "a case label")) {
            ok = false;
            continue;
        }
        ir_expr *c = ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I64), v, labels[i]->loc), sw->sel_type, labels[i]->loc);
        v = c->c.i;
        if (!ir_is_signed(sw->sel_type) && sw->sel_type->size < 8) v = (int64_t)c->c.u;
        for (int k = 0; k < sw->values.count; k++)
            if (sw->values.items[k] == v) {
                en_error(ck->diags, labels[i]->loc, "duplicate case value %lld", (long long)v);
                ok = false;
            }
        EN_PUSH(ck->a, sw->values, v);
        values[i] = v;
    }
    return ok;
}

static ir_expr *sel_eq(checker *ck, sw_state *sw, int64_t v, en_loc loc) {
    ir_expr *c = ck_convert(ck, ir_const_int(ck->m, ck_t(ck, IR_T_I64), v, loc), sw->sel_type, loc);
    return ir_binary(ck->m, IR_OP_EQ, ck_t(ck, IR_T_BOOL), ir_var_ref(ck->m, sw->selector, loc), c, loc);
}

static bool contains_label(const ast_stmt *s, int depth) {
    if (!s || depth > 200) return false;
    switch (s->kind) {
    case AST_STMT_CASE: case AST_STMT_DEFAULT: return true;
    case AST_STMT_COMPOUND:
        for (int i = 0; i < s->body.count; i++)
            if (contains_label(s->body.items[i], depth + 1)) return true;
        return false;
    case AST_STMT_IF: return contains_label(s->then, depth + 1) || contains_label(s->els, depth + 1);
    case AST_STMT_FOR: case AST_STMT_WHILE: case AST_STMT_DO:
        return contains_label(s->loop_body, depth + 1);
    default: return false; /* a nested switch owns its labels */
    }
}

static void switch_stmt(checker *ck, const ast_stmt *s) {
    ir_expr *sel = ck_expr(ck, s->cond);
    if (!sel) return;
    if (!ir_is_integer(sel->type) && sel->type->kind != IR_T_BOOL) {
        en_error(ck->diags, s->cond->loc, "switch condition must be an integer, not '%s'", ck_type_name(ck, sel->type));
        return;
    }
    sw_state sw = {0};
    sw.sel_type = ck_promote(ck, sel->type);
    sw.selector = ck_temp_init(ck, sw.sel_type, ck_convert(ck, sel, sw.sel_type, s->cond->loc), s->loc);
    /* the body's top-level statements, each with the labels in front of it */
    const ast_stmt *body = s->loop_body;
    const ast_stmt *const *items = NULL;
    int count = 0;
    const ast_stmt *single[1];
    if (body && body->kind == AST_STMT_COMPOUND) {
        items = (const ast_stmt *const *)body->body.items;
        count = body->body.count;
    } else if (body) {
        single[0] = body;
        items = single;
        count = 1;
    }
    /* first pass: every label value, so that default knows when no case matched */
    const ast_stmt *labels[64];
    int64_t values[64];
    bool ok = true;
    for (int i = 0; i < count; i++) {
        int n = 0;
        const ast_stmt *rest = strip_labels(items[i], labels, &n, 64);
        if (n >= 64) {
            en_error(ck->diags, items[i]->loc, "too many case labels on one statement");
            return;
        }
        if (!label_values(ck, &sw, labels, n, values)) ok = false;
        if (contains_label(rest, 0)) {
            en_error(ck->diags, rest->loc, "case labels nested inside other statements of a switch are not supported by enigma");
            ok = false;
        }
    }
    if (!ok) return;
    ir_type *b = ck_t(ck, IR_T_BOOL);
    sw.matched = ck_temp_init(ck, b, ir_const_bool(ck->m, false, s->loc), s->loc);
    sw.matched->is_assigned = true;
    if (sw.has_default) {
        ir_expr *any = NULL;
        for (int k = 0; k < sw.values.count; k++) {
            ir_expr *hit = sel_eq(ck, &sw, sw.values.items[k], s->loc);
            any = any ? ir_binary(ck->m, IR_OP_LOGOR, b, any, hit, s->loc) : hit;
        }
        if (!any) any = ir_const_bool(ck->m, false, s->loc);
        sw.any_case = ck_temp_init(ck, b, ck_fold(ck, any) ? ck_fold(ck, any) : any, s->loc);
    }
    ir_stmt *loop = ir_stmt_new(ck->m, IR_S_LOOP, s->loc);
    loop->body = new_block(ck, s->loc);
    ck_jump jump = {loop, true, ck->jumps};
    ck->jumps = &jump;
    ck->control_depth++;
    ir_stmt *outer = ck->block;
    ck->block = loop->body;
    ck_push_scope(ck);
    for (int i = 0; i < count; i++) {
        int n = 0;
        const ast_stmt *rest = strip_labels(items[i], labels, &n, 64);
        if (n > 0) {
            /* matched = matched || sel == v1 || ... (|| !any_case for default) */
            ir_expr *m = ir_var_ref(ck->m, sw.matched, items[i]->loc);
            for (int k = 0; k < n; k++) {
                ir_expr *hit;
                if (labels[k]->kind == AST_STMT_DEFAULT)
                    hit = ir_unary(ck->m, IR_OP_NOT, b, ir_var_ref(ck->m, sw.any_case, labels[k]->loc), labels[k]->loc);
                else {
                    int64_t v;
                    if (!ck_const_expr(ck, labels[k]->expr, &v, "a case label")) continue;
                    hit = sel_eq(ck, &sw, v, labels[k]->loc);
                }
                m = ir_binary(ck->m, IR_OP_LOGOR, b, m, hit, labels[k]->loc);
            }
            ck_emit(ck, ir_assign(ck->m, ir_var_ref(ck->m, sw.matched, items[i]->loc), m, items[i]->loc));
        }
        if (!rest || rest->kind == AST_STMT_EMPTY) continue;
        if (rest->kind == AST_STMT_DECL) {
            /* declarations stay visible to later statements: declare here, initialize
             * under the guard */
            for (int k = 0; k < rest->decls.count; k++) {
                const ast_decl *d = rest->decls.items[k];
                if (d && d->kind == AST_DECL_VAR && d->init) {
                    ast_decl copy = *d;
                    copy.init = NULL;
                    copy.init_style = AST_INIT_NONE;
                    copy.specs &= ~(unsigned)AST_SPEC_CONSTEXPR;
                    ck_decl(ck, &copy, false);
                    ir_stmt *guard = new_block(ck, d->loc);
                    ir_stmt *save = ck->block;
                    ck->block = guard;
                    ck_sym *sym = ck_lookup_str(ck, d->name);
                    if (sym && sym->kind == SYM_VAR && sym->var && !sym->is_ref) {
                        ir_expr *v = ck_initializer(ck, sym->var->type, d->init, d->loc);
                        if (v) {
                            ck_emit(ck, ir_assign(ck->m, ir_var_ref(ck->m, sym->var, d->loc), v, d->loc));
                            sym->var->is_assigned = true;
                        }
                    } else if (sym && sym->is_ref) {
                        en_error(ck->diags, d->loc, "references declared directly in a switch are not supported by enigma; add braces");
                    }
                    ck->block = save;
                    ck_emit(ck, ir_if(ck->m, ir_var_ref(ck->m, sw.matched, d->loc), guard, NULL, d->loc));
                } else {
                    ck_decl(ck, d, false);
                }
            }
            continue;
        }
        ir_stmt *guarded = new_block(ck, rest->loc);
        ir_stmt *save = ck->block;
        ck->block = guarded;
        ck_stmt(ck, rest);
        ck->block = save;
        if (guarded->stmt_count)
            ck_emit(ck, ir_if(ck->m, ir_var_ref(ck->m, sw.matched, rest->loc), guarded, NULL, rest->loc));
    }
    ck_pop_scope(ck);
    ir_stmt *brk = ir_stmt_new(ck->m, IR_S_BREAK, s->loc);
    brk->target = loop;
    ck_emit(ck, brk);
    ck->block = outer;
    ck->control_depth--;
    ck->jumps = jump.outer;
    ck_emit(ck, loop);
}

/* ---- the rest --------------------------------------------------------------------------------- */
static void return_stmt(checker *ck, const ast_stmt *s) {
    ir_stmt *r = ir_stmt_new(ck->m, IR_S_RETURN, s->loc);
    ir_type *rt = ck->ret_type;
    if (s->expr) {
        if (!rt || rt->kind == IR_T_VOID) {
            ir_expr *v = ck_expr(ck, s->expr);
            if (v && v->type->kind != IR_T_VOID) {
                en_error(ck->diags, s->expr->loc, "a void function cannot return a value");
                return;
            }
        } else if (ck_returns_ref(ck, ck->fn)) {
            r->value = ck_ref_return_value(ck, s->expr, rt);
            if (!r->value) return;
        } else {
            r->value = ck_expr_to(ck, s->expr, rt);
            if (!r->value) return;
        }
    } else if (rt && rt->kind != IR_T_VOID) {
        en_error(ck->diags, s->loc, "non-void function must return a value of type '%s'", ck_type_name(ck, rt));
        return;
    }
    ck_emit(ck, r);
}

void ck_stmt(checker *ck, const ast_stmt *s) {
    if (!s || ck->c->arena.out_of_memory) return;
    switch (s->kind) {
    case AST_STMT_ERROR: case AST_STMT_EMPTY: return;
    case AST_STMT_COMPOUND: {
        ir_stmt *b = new_block(ck, s->loc);
        ir_stmt *outer = ck->block;
        ck->block = b;
        ck_push_scope(ck);
        for (int i = 0; i < s->body.count; i++) ck_stmt(ck, s->body.items[i]);
        ck_pop_scope(ck);
        ck->block = outer;
        ck_emit(ck, b);
        return;
    }
    case AST_STMT_DECL:
        for (int i = 0; i < s->decls.count; i++) ck_decl(ck, s->decls.items[i], false);
        return;
    case AST_STMT_EXPR:
        ck_discarded(ck, s->expr);
        return;
    case AST_STMT_IF: {
        ir_expr *c = condition(ck, s->cond, s->loc);
        ir_expr *f = c ? ck_fold(ck, c) : NULL;
        if (s->is_constexpr && ck->in_template && f && f->kind == IR_E_CONST) {
            /* only the branch taken is instantiated: `if constexpr (N > 0) f<N - 1>(x)`
             * ends a recursion, and MLX's member functions of class templates test the
             * element type (`if constexpr (is_same_v<T, complex64_t>) ... a.real`) */
            const ast_stmt *taken = f->c.u ? s->then : s->els;
            if (!taken) return;
            ir_stmt *b = new_block(ck, taken->loc);
            stmt_into(ck, b, taken);
            ck_emit(ck, b);
            return;
        }
        ck->control_depth++;
        bool known = f && f->kind == IR_E_CONST;
        ir_stmt *then_b = new_block(ck, s->then ? s->then->loc : s->loc);
        ck->dead_code += known && !f->c.u;
        stmt_into(ck, then_b, s->then);
        ck->dead_code -= known && !f->c.u;
        ir_stmt *else_b = NULL;
        if (s->els) {
            else_b = new_block(ck, s->els->loc);
            ck->dead_code += known && f->c.u;
            stmt_into(ck, else_b, s->els);
            ck->dead_code -= known && f->c.u;
        }
        ck->control_depth--;
        if (!c) return;
        if (s->is_constexpr) {
            if (!f || f->kind != IR_E_CONST) {
                en_error(ck->diags, s->cond->loc, "the condition of 'if constexpr' must be a constant expression");
                return;
            }
            if (f->c.u) ck_emit(ck, then_b);
            else if (else_b) ck_emit(ck, else_b);
            return;
        }
        if (f && f->kind == IR_E_CONST && !contains_label(f->c.u ? s->els : s->then, 0)) {
            /* a constant condition (a function constant's, typically: ggml's `if (FC_CNT)`):
             * both branches were checked, only the one taken goes on to code generation */
            if (f->c.u) ck_emit(ck, then_b);
            else if (else_b) ck_emit(ck, else_b);
            return;
        }
        ck_emit(ck, ir_if(ck->m, c, then_b, else_b, s->loc));
        return;
    }
    case AST_STMT_FOR: case AST_STMT_WHILE: case AST_STMT_DO:
        loop_stmt(ck, s);
        return;
    case AST_STMT_SWITCH:
        switch_stmt(ck, s);
        return;
    case AST_STMT_CASE: case AST_STMT_DEFAULT:
        en_error(ck->diags, s->loc, "'%s' label outside a switch", s->kind == AST_STMT_CASE ? "case" : "default");
        ck_stmt(ck, s->loop_body);
        return;
    case AST_STMT_BREAK: {
        if (!ck->jumps) {
            en_error(ck->diags, s->loc, "'break' outside a loop or switch");
            return;
        }
        ir_stmt *b = ir_stmt_new(ck->m, IR_S_BREAK, s->loc);
        b->target = ck->jumps->loop;
        ck_emit(ck, b);
        return;
    }
    case AST_STMT_CONTINUE: {
        ck_jump *j = ck->jumps;
        while (j && j->is_switch) j = j->outer;
        if (!j) {
            en_error(ck->diags, s->loc, "'continue' outside a loop");
            return;
        }
        ir_stmt *c = ir_stmt_new(ck->m, IR_S_CONTINUE, s->loc);
        c->target = j->loop;
        ck_emit(ck, c);
        return;
    }
    case AST_STMT_RETURN:
        return_stmt(ck, s);
        return;
    }
}

void ck_body(checker *ck, const ast_stmt *body) {
    if (!body) return;
    if (body->kind == AST_STMT_COMPOUND) {
        for (int i = 0; i < body->body.count; i++) ck_stmt(ck, body->body.items[i]);
    } else {
        ck_stmt(ck, body);
    }
}
