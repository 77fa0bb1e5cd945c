/* emit_defer.c — relaxed integer atomic adds that a worker sums before adding.
 *
 * A kernel whose threadgroups each add to one counter (seed 003's `atomic_fetch_add(output,
 * sum)`) makes the counter's cache line travel between the cores at every add: on the
 * 2-core bench machine about a third of that kernel's time. A worker can instead sum the
 * adds of the threadgroups it runs and add once when its share of the dispatch ends.
 *
 * Needs: a kernel (not checked mode, whose hooks watch every atomic access).
 * Guarantees: cpu_defer_choose picks a buffer parameter P, a device pointer to atomic_int or
 * atomic_uint, only when every use of P in the kernel is the address of an
 * atomic_fetch_add or atomic_fetch_sub (P itself, no index) whose result nothing reads.
 * Nothing in the kernel can then see P's value while the dispatch runs, and the sum is
 * the same (integer addition wraps, in any order): what the dispatch leaves in memory is
 * what it would leave with an add per threadgroup, and the execution is one that Metal's
 * relaxed atomics allow (each worker's adds one after another, nothing between). A kernel
 * that waits on such a counter through another binding of the same buffer would wait for
 * the end of the worker's share; Metal promises no progress between threadgroups, so no
 * kernel may wait on another threadgroup anyway.
 * The sums live in the worker's context block (one per executor, kept across its
 * threadgroups: exec.c); enk_kernel_N_deferred(g, 0) zeroes them before the worker's first
 * threadgroup and enk_kernel_N_deferred(g, 1) adds them to the buffers after its last. */
#include "emit.h"

typedef struct use_count {
    const ir_var *v;
    const ir_stmt *body; /* the kernel's */
    int all;             /* every use of v in the kernel's expressions */
    int deferable;       /* adds with v as their address and no reader of their result */
} use_count;

static bool is_var(const ir_expr *e, const void *v) { return e->kind == IR_E_VAR && e->var == v; }

/* an ir_stmt_any_expr visitor that counts the uses of u->v: it never stops the walk */
static bool count_use(const ir_expr *e, const void *ctx) {
    use_count *u = (use_count *)(uintptr_t)ctx;
    u->all += is_var(e, u->v);
    return false;
}

static void count_deferable(const ir_stmt *s, void *ctx) {
    use_count *u = ctx;
    bool add = s->kind == IR_S_INTRINSIC &&
               (s->intrinsic == IR_I_ATOMIC_FETCH_ADD || s->intrinsic == IR_I_ATOMIC_FETCH_SUB);
    if (!add || s->arg_count != 2 || !is_var(s->args[0], u->v) || ir_expr_any(s->args[1], is_var, u->v)) return;
    if (!s->result || !ir_stmt_any_expr(u->body, is_var, s->result)) u->deferable++; /* no reader */
}

/* a device pointer to atomic_int or atomic_uint */
static bool integer_counter(const ir_var *v) {
    const ir_type *t = v->type;
    if (v->param_kind != IR_PARAM_BUFFER || t->kind != IR_T_PTR || t->space != IR_SPACE_DEVICE || !t->elem ||
        t->elem->kind != IR_T_ATOMIC || !t->elem->elem)
        return false;
    return t->elem->elem->kind == IR_T_I32 || t->elem->elem->kind == IR_T_U32;
}

EN_INTERNAL void cpu_defer_choose(emitter *em, const ir_func *f) {
    em->deferred_count = 0;
    if (em->checked) return;
    for (int k = 0; k < f->param_count && em->deferred_count < CPU_MAX_DEFERRED; k++) {
        const ir_var *v = f->params[k];
        if (!integer_counter(v)) continue;
        use_count u = {v, f->body, 0, 0};
        (void)ir_stmt_any_expr(f->body, count_use, &u);
        ir_stmt_each(f->body, count_deferable, &u);
        if (u.deferable > 0 && u.deferable == u.all) em->deferred[em->deferred_count++] = v;
    }
}

/* the C place that sums atomic statement s's adds, or NULL when s adds to memory */
static const char *deferred_sum(emitter *em, const ir_stmt *s) {
    if (s->arg_count < 1 || s->args[0]->kind != IR_E_VAR) return NULL;
    for (int i = 0; i < em->deferred_count; i++)
        if (em->deferred[i] == s->args[0]->var) return cpu_S(em, "_ctx->_deferred_%d", i);
    return NULL;
}

EN_INTERNAL void cpu_atomic_add_line(emitter *em, const ir_stmt *s, const ir_type *t, const char *v) {
    const char *ct = cpu_ctype(em, t), *sum = deferred_sum(em, s);
    bool sub = s->intrinsic == IR_I_ATOMIC_FETCH_SUB;
    if (sum)
        cpu_line(em, "%s _r = 0; (void)_p; %s %s= (uint32_t)%s; /* summed for the worker (emit_defer.c) */", ct, sum,
                 sub ? "-" : "+", v);
    else if (t->kind == IR_T_F32)
        cpu_line(em, "%s _r = enk_atomic_add_f32(_p, %s%s);", ct, sub ? "-" : "", v);
    else
        cpu_line(em, "%s _r = __atomic_fetch_%s(_p, %s, __ATOMIC_RELAXED);", ct, sub ? "sub" : "add", v);
}

EN_INTERNAL int cpu_defer_fields(emitter *em, en_buf *out) {
    for (int i = 0; i < em->deferred_count; i++)
        en_buf_printf(out, "    uint32_t _deferred_%d; /* this worker's adds to %s (buffer %d), summed */\n", i,
                      em->deferred[i]->name, em->deferred[i]->binding);
    return em->deferred_count;
}

EN_INTERNAL void cpu_defer_function(emitter *em, int index, en_buf *out) {
    if (!em->deferred_count) return;
    en_buf_printf(out, "/* the sums of this worker's atomic adds (emit_defer.c): zeroed before its first threadgroup\n"
                       " * (flush 0), added to their buffers after its last (flush 1) */\n"
                       "void enk_kernel_%d_deferred(const enk_group *g, int flush) {\n"
                       "    struct enk_context_%d *_ctx = (struct enk_context_%d *)g->context;\n",
                  index, index, index);
    for (int i = 0; i < em->deferred_count; i++) {
        en_buf_printf(out, "    if (flush && _ctx->_deferred_%d)\n"
                           "        __atomic_fetch_add((uint32_t *)g->buffers[%d], _ctx->_deferred_%d, __ATOMIC_RELAXED);\n"
                           "    _ctx->_deferred_%d = 0;\n",
                      i, em->deferred[i]->binding, i, i);
    }
    en_buf_puts(out, "}\n");
}
