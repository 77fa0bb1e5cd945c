/* tailcall.c — a function that calls itself as its last act becomes a loop.
 *
 * Metal kernels have no call stack to speak of and the inline pass refuses recursion. One
 * form is common in real libraries and needs no stack: MLX's LoopedElemToLoc<DIM>::next(n)
 * ends with `if (extra > 0) next(extra, shape, strides);`. A call of the function itself in
 * tail position (nothing of the caller runs after it) is the same as assigning the arguments
 * to the parameters and starting the body again, which is what this pass writes:
 *
 *     body                    loop L {
 *                                 body, with each tail self-call replaced by
 *                                   { T0 a0 = arg0; ...; p0 = a0; ...; continue L; }
 *                                 break L;
 *                             }
 *
 * The arguments go through fresh temporaries first because a later argument may read a
 * parameter an earlier one replaces. Returns inside the body still leave the function.
 *
 * Needs: a verified module (before inlining). Tail positions are: the last statement of the
 *        body; the last statement of a block or of either branch of an `if` in tail position;
 *        a statement followed only by `return;`. Only calls without a result (void
 *        functions) are taken; other recursion is left for the inline pass to report.
 * Gives: no tail self-call left; the module stays verifiable; true when anything changed. */
#include "pass.h"

typedef struct tail_rewrite {
    ir_module *m;
    ir_func *f;
    ir_stmt *loop; /* created on the first tail call found */
    int rewritten;
} tail_rewrite;

static bool is_self_call(const tail_rewrite *tr, const ir_stmt *s) {
    return s && s->kind == IR_S_CALL && s->callee == tr->f && !s->result && s->arg_count == tr->f->param_count;
}

/* the statements that replace a tail self-call: the arguments into temporaries, then into
 * the parameters, then `continue` to the top of the body */
static ir_stmt *restart(tail_rewrite *tr, const ir_stmt *call) {
    if (!tr->loop) {
        tr->loop = ir_stmt_new(tr->m, IR_S_LOOP, tr->f->body->loc);
        tr->loop->unroll = 0;
    }
    ir_stmt *b = ir_block(tr->m, call->loc);
    ir_var **temps = en_alloc(tr->m->arena, sizeof(ir_var *) * (size_t)(call->arg_count ? call->arg_count : 1));
    for (int i = 0; i < call->arg_count; i++) {
        temps[i] = ir_temp(tr->m, tr->f, tr->f->params[i]->type, call->loc);
        ir_block_append(tr->m, b, ir_decl(tr->m, tr->f, temps[i], call->args[i], call->loc));
    }
    for (int i = 0; i < call->arg_count; i++) {
        tr->f->params[i]->is_assigned = true;
        ir_block_append(tr->m, b, ir_assign(tr->m, ir_var_ref(tr->m, tr->f->params[i], call->loc),
                                            ir_var_ref(tr->m, temps[i], call->loc), call->loc));
    }
    ir_stmt *cont = ir_stmt_new(tr->m, IR_S_CONTINUE, call->loc);
    cont->target = tr->loop;
    ir_block_append(tr->m, b, cont);
    tr->rewritten++;
    return b;
}

static void rewrite_tail(tail_rewrite *tr, ir_stmt *s);

/* the statement at stmts[i] of a block, in tail position when what follows is nothing or a
 * bare `return;` */
static void rewrite_in_block(tail_rewrite *tr, ir_stmt *block) {
    int n = block->stmt_count;
    for (int i = 0; i < n; i++) {
        bool tail = i == n - 1 ||
                    (i == n - 2 && block->stmts[n - 1]->kind == IR_S_RETURN && !block->stmts[n - 1]->value);
        if (!tail) continue;
        if (is_self_call(tr, block->stmts[i])) block->stmts[i] = restart(tr, block->stmts[i]);
        else rewrite_tail(tr, block->stmts[i]);
    }
}

static void rewrite_tail(tail_rewrite *tr, ir_stmt *s) {
    if (!s) return;
    if (s->kind == IR_S_BLOCK) {
        rewrite_in_block(tr, s);
    } else if (s->kind == IR_S_IF) {
        if (is_self_call(tr, s->then_s)) s->then_s = restart(tr, s->then_s);
        else rewrite_tail(tr, s->then_s);
        if (is_self_call(tr, s->else_s)) s->else_s = restart(tr, s->else_s);
        else rewrite_tail(tr, s->else_s);
    }
}

bool en_pass_tail_calls(en_ctx *c, ir_module *m) {
    (void)c;
    bool changed = false;
    for (int i = 0; i < m->funcs.count; i++) {
        ir_func *f = m->funcs.items[i];
        if (f->is_kernel || !f->body) continue;
        tail_rewrite tr = {.m = m, .f = f};
        rewrite_tail(&tr, f->body);
        if (!tr.rewritten) continue;
        changed = true;
        /* loop L { body; break L; } as the new body */
        ir_stmt *brk = ir_stmt_new(m, IR_S_BREAK, f->body->loc);
        brk->target = tr.loop;
        ir_block_append(m, f->body, brk);
        tr.loop->body = f->body;
        ir_stmt *body = ir_block(m, f->body->loc);
        ir_block_append(m, body, tr.loop);
        f->body = body;
    }
    return changed;
}
