/* emit_outline.c — large statements of a large kernel as functions of their own.
 *
 * Why: gcc's time on a function grows faster than its size (live registers, dominance
 * frontiers, SSA updates and alias walks are superlinear), and MLX's reduce, quantized and
 * steel GEMM kernels inline into one function of tens of thousands of lines: one took gcc
 * 90 s. The same code cut into functions of a few hundred IR nodes each builds 5x faster
 * (bench/RESULTS.md, "Outlined statements"). A kernel under OUTLINE_KERNEL_WEIGHT IR nodes
 * keeps one function, and its C byte for byte.
 *
 * Needs: gang_list and gang_stmt (emit_stmt.c) asking before each statement of a region,
 * tg_list (emit_region.c) before each region and statement with barriers; the region's
 * declared variables in em->region_used (region_vars) and em->var_by_id.
 * Guarantees: what does not break or continue a loop outside itself becomes
 * `static void enk_kernel_<k>_part<n>(...)`, noinline, called where it stood, with the same
 * text inside: a gang statement of OUTLINE_WEIGHT IR nodes or more, a run of smaller ones
 * of that weight together (never a whole list: that is a statement's body), a region or a
 * statement with barriers of that weight. Every name the text uses is a parameter of the
 * same name: the kernel-level names (g, _ctx, _tg, _n, _nsg, _act, _pf, ...) and uniform
 * parameters always; in a region also _sg, the mask, the base of an enclosing streaming loop
 * or interleaved phase, and the region's variables the statements use (or their lane forms
 * look through): arrays (gang, context, lane attributes, per-SIMD-group uniforms) as
 * pointers to the same storage, uniform scalars and the mask by address, copied in and out,
 * so gcc keeps them in registers inside. The functions go to em->parts, each after those it
 * calls, and emit_kernel writes them before the kernel. */
#include "emit.h"
#include <limits.h>
#include <stdlib.h>

/* IR nodes (statements and expressions) from which a statement is outlined: the functions
 * stay small enough for gcc's superlinear passes (see bench/RESULTS.md for the choice).
 * ENIGMA_CPU_OUTLINE=N sets another for every kernel, for tests: 1 outlines every statement. */
#define OUTLINE_WEIGHT_DEFAULT 200
#define OUTLINE_WEIGHT (em->outline_weight)

/* A kernel below this many IR nodes keeps one function whatever its statements: the calls
 * would cost hot kernels (the bench kernels) speed, and gcc is fast on them anyway. */
#define OUTLINE_KERNEL_WEIGHT 600

static int stmt_weight(const ir_stmt *s, int limit);

EN_INTERNAL void cpu_outline_choose(emitter *em, const ir_func *f) {
    const char *e = getenv("ENIGMA_CPU_OUTLINE");
    int forced = e ? atoi(e) : 0;
    if (forced > 0) em->outline_weight = forced;
    else if (stmt_weight(f->body, OUTLINE_KERNEL_WEIGHT) >= OUTLINE_KERNEL_WEIGHT) em->outline_weight = OUTLINE_WEIGHT_DEFAULT;
    else em->outline_weight = INT_MAX;
}

static int expr_weight(const ir_expr *e) {
    if (!e) return 0;
    int w = 1;
    for (int i = 0; i < e->arg_count; i++) w += expr_weight(e->args[i]);
    return w;
}

/* the statement's IR nodes, counted up to `limit` (beyond it the count is only "enough") */
static int stmt_weight(const ir_stmt *s, int limit) {
    if (!s) return 0;
    int w = 1;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count && w < limit; i++) w += stmt_weight(s->stmts[i], limit - w);
        break;
    case IR_S_DECL: w += expr_weight(s->value); break;
    case IR_S_ASSIGN: w += expr_weight(s->place) + expr_weight(s->value); break;
    case IR_S_IF:
        w += expr_weight(s->cond);
        w += stmt_weight(s->then_s, limit - w);
        w += stmt_weight(s->else_s, limit - w);
        break;
    case IR_S_LOOP:
        w += stmt_weight(s->body, limit - w);
        w += stmt_weight(s->latch, limit - w);
        break;
    case IR_S_RETURN: w += expr_weight(s->value); break;
    case IR_S_INTRINSIC:
    case IR_S_CALL:
        for (int i = 0; i < s->arg_count; i++) w += expr_weight(s->args[i]);
        break;
    default: break;
    }
    return w;
}

/* the loops a walk is inside of, innermost first */
typedef struct loop_scope {
    const ir_stmt *loop;
    const struct loop_scope *outer;
} loop_scope;

/* does a break or continue in s leave for a loop that encloses s? Its C sets that loop's
 * _brk/_cont variables, which live outside the function */
static bool jumps_out(const ir_stmt *s, const loop_scope *scope) {
    if (!s) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (jumps_out(s->stmts[i], scope)) return true;
        return false;
    case IR_S_IF: return jumps_out(s->then_s, scope) || jumps_out(s->else_s, scope);
    case IR_S_LOOP: {
        loop_scope inner = {s, scope};
        return jumps_out(s->body, &inner) || jumps_out(s->latch, &inner);
    }
    case IR_S_BREAK:
    case IR_S_CONTINUE:
        for (const loop_scope *p = scope; p; p = p->outer)
            if (p->loop == s->target) return false;
        return true;
    default: return false;
    }
}

/* The variables the statement's C may name: those it uses, and those in the declared values
 * of those (lane forms look through `uint row = pos.y;` to the declaration's value). */
static _Thread_local bool *captured;
static void capture(emitter *em, const ir_var *v, int region) {
    if (v->storage == IR_VAR_CONSTANT || v->id < 0 || v->id >= em->var_count || captured[v->id]) return;
    captured[v->id] = true;
    if (em->inits[v->id]) cpu_walk_expr_vars(em, em->inits[v->id], capture, region);
}

static bool ends_list(const ir_stmt *s) {
    return s->kind == IR_S_BREAK || s->kind == IR_S_CONTINUE || s->kind == IR_S_RETURN;
}

/* one parameter and its argument */
static void pass(en_buf *params, en_buf *args, const char *param, const char *arg) {
    en_buf_printf(params, ", %s", param);
    en_buf_printf(args, ", %s", arg);
}

/* statements [start, end) of a list as one function, and its call in their place: gang
 * statements of a region, or (tg_level) regions and statements with barriers, which declare
 * their per-lane storage themselves */
static void outline(emitter *em, stmt_list list, int start, int end, bool tg_level) {
    const ir_stmt *first = cpu_list_at(list, start);
    bool *used = en_alloc(&em->arena, (size_t)em->var_count + 1);
    captured = used;
    for (int i = start; i < end; i++) cpu_walk_stmt_vars(em, cpu_list_at(list, i), capture, 0);
    captured = NULL;

    int k = em->kernel_index, id = em->part_count++;
    const char *name = cpu_S(em, "enk_kernel_%d_part%d", k, id);
    en_buf params = {0}, args = {0}, prologue = {0}, epilogue = {0};
    en_buf_printf(&params, "const enk_group *g, struct enk_context_%d *_ctx, struct enk_threadgroup_%d *_tg", k, k);
    en_buf_puts(&args, "g, _ctx, _tg");
    pass(&params, &args, "const uint32_t _n", "_n");
    pass(&params, &args, "const uint32_t _dispatch_n", "_dispatch_n");
    pass(&params, &args, "const uint32_t _nsg", "_nsg");
    pass(&params, &args, "const bool _one_d", "_one_d");
    pass(&params, &args, "const bool _aff", "_aff");
    pass(&params, &args, "uint32_t *_act", "_act");
    pass(&params, &args, "uintptr_t *_pf", "_pf");
    if (em->position_table) pass(&params, &args, "uint32_t (*_lpos)[1024]", "_lpos");
    if (em->checked) {
        pass(&params, &args, "const enk_check_group *_cg", "_cg");
        pass(&params, &args, "uint32_t *_chk_ret", "_chk_ret");
    }
    if (!tg_level) {
        pass(&params, &args, "const uint32_t _sg", "_sg");
        /* the mask: copied in and out, so that it stays a register inside */
        pass(&params, &args, "uint32_t *_mask", cpu_S(em, "&%s", em->mask));
        en_buf_printf(&prologue, "    uint32_t %s = *_mask;\n", em->mask);
        en_buf_printf(&epilogue, "    *_mask = %s;\n", em->mask);
    }
    /* inside a streaming loop the index is a base plus the lane: the base, read only */
    if (tg_level) {
    } else if (em->stream_var)
        pass(&params, &args, cpu_S(em, "const %s %s", cpu_scalar_ctype(em->stream_var->type->kind), em->stream_base),
             em->stream_base);
    if (em->implicit_var)
        pass(&params, &args,
             cpu_S(em, "const %s %s", cpu_scalar_ctype(em->implicit_var->type->kind), em->implicit_base),
             em->implicit_base);
    for (int i = 0; i < em->var_count; i++) {
        const ir_var *v = em->var_by_id[i];
        if (!used[i] || !v) continue;
        const var_info *vi = &em->vars[i];
        const char *T = cpu_ctype(em, v->type), *n = vi->cname;
        /* distinct variables never overlap; one whose address is taken is reached through
         * pointers too, so only the others are restrict */
        const char *only = v->address_taken ? "" : "restrict ";
        switch (vi->kind) {
        case VK_UNIFORM: pass(&params, &args, cpu_S(em, "%s %s", T, n), n); break;
        case VK_SCALAR_SG: pass(&params, &args, cpu_S(em, "%s *%s%s", T, only, n), n); break;
        case VK_GANG:
        case VK_CONTEXT:
        case VK_LANE_ATTR:
            if (!tg_level && em->region_used[i]) pass(&params, &args, cpu_S(em, "%s *%s%s", T, only, n), n);
            break;
        case VK_SCALAR:
            if (tg_level || !em->region_used[i]) break;
            pass(&params, &args, cpu_S(em, "%s *_p_%s", T, n), cpu_S(em, "&%s", n));
            en_buf_printf(&prologue, "    %s %s = *_p_%s;\n", T, n, n);
            en_buf_printf(&epilogue, "    *_p_%s = %s;\n", n, n);
            break;
        default: break;
        }
    }

    /* the body, in a buffer of its own: statements it outlines in turn go to em->parts first */
    en_buf body = {0};
    en_buf *saved_out = em->out;
    int saved_indent = em->indent;
    const ir_stmt *saved_outlined = em->outlined;
    em->out = &body;
    em->indent = 1;
    const bool *saved_used = em->region_used;
    if (tg_level) {
        em->outlined = first; /* not outlined again: the run's first statement */
        em->region_used = NULL;
        cpu_tg_list(em, (stmt_list){list.items ? list.items + start : NULL, end - start, list.items ? NULL : list.single});
    } else {
        em->outlined = end - start == 1 ? first : NULL;
        for (int i = start; i < end; i++) cpu_gang_stmt(em, cpu_list_at(list, i));
    }
    em->region_used = saved_used;
    em->outlined = saved_outlined;
    em->indent = saved_indent;
    em->out = saved_out;
    em->memos.count = 0; /* temporaries of the body are the function's own */

    en_buf_printf(&em->parts, "/* %s */\nstatic __attribute__((noinline)) void %s(%s) {\n",
                  cpu_source_note(em, first->loc), name, params.data);
    en_buf_puts(&em->parts, "    (void)g; (void)_ctx; (void)_tg; (void)_n; (void)_dispatch_n; (void)_nsg; (void)_one_d;\n"
                            "    (void)_aff; (void)_act; (void)_pf;\n");
    if (prologue.data) en_buf_puts(&em->parts, prologue.data);
    if (body.data) en_buf_puts(&em->parts, body.data);
    if (epilogue.data) en_buf_puts(&em->parts, epilogue.data);
    en_buf_puts(&em->parts, "}\n");
    cpu_line(em, "%s(%s); /* outlined: %s */", name, args.data, cpu_source_note(em, first->loc));
    en_buf_free(&params);
    en_buf_free(&args);
    en_buf_free(&prologue);
    en_buf_free(&epilogue);
    en_buf_free(&body);
}

static bool may_outline(const emitter *em) { return !em->wide && em->region_used && em->var_by_id; }

static int list_weight(const emitter *em, stmt_list list, int start, int end) {
    int w = 0;
    for (int i = start; i < end && w < OUTLINE_WEIGHT; i++) w += stmt_weight(cpu_list_at(list, i), OUTLINE_WEIGHT - w);
    return w;
}

static bool list_jumps_out(stmt_list list, int start, int end) {
    for (int i = start; i < end; i++)
        if (jumps_out(cpu_list_at(list, i), NULL)) return true;
    return false;
}

/* At threadgroup level: a region (start to end) or a statement with barriers (end = start + 1)
 * that is large. The kernel function keeps the threadgroup level's outline only. */
EN_INTERNAL bool cpu_outline_tg(emitter *em, stmt_list list, int start, int end) {
    if (em->wide || !em->var_by_id) return false;
    if (cpu_list_at(list, start) == em->outlined) { /* the body of this very function */
        em->outlined = NULL;
        return false;
    }
    if (list_weight(em, list, start, end) < OUTLINE_WEIGHT || list_jumps_out(list, start, end)) return false;
    outline(em, list, start, end, true);
    return true;
}

EN_INTERNAL bool cpu_outline_stmt(emitter *em, const ir_stmt *s) {
    if (em->outlined == s || !may_outline(em)) return false;
    if (stmt_weight(s, OUTLINE_WEIGHT) < OUTLINE_WEIGHT || jumps_out(s, NULL)) return false;
    stmt_list one = {NULL, 1, (ir_stmt *)s};
    outline(em, one, 0, 1, false);
    return true;
}

/* A run of statements, each below OUTLINE_WEIGHT, that reaches it together: a region or a
 * block of many medium statements (steel GEMM's tiles) is as hard on gcc as one large
 * statement. Not the whole list: that is one statement's body, outlined already or small. */
EN_INTERNAL int cpu_outline_run(emitter *em, stmt_list list, int start) {
    if (!may_outline(em)) return start;
    int weight = 0, end = start;
    while (end < list.count && weight < OUTLINE_WEIGHT) {
        const ir_stmt *s = cpu_list_at(list, end);
        int w = stmt_weight(s, OUTLINE_WEIGHT);
        if (w >= OUTLINE_WEIGHT || ends_list(s) || jumps_out(s, NULL)) break;
        weight += w;
        end++;
    }
    if (weight < OUTLINE_WEIGHT || (start == 0 && end == list.count)) return start;
    outline(em, list, start, end, false);
    return end;
}
