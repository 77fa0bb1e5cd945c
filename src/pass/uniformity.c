/* uniformity.c — the uniformity pass: which values may differ between the threads of a
 * threadgroup, and which barriers sit under control flow that may split the threadgroup.
 *
 * Needs: a verified, inlined module (kernels only, no calls).
 * Guarantees: the IR is unchanged except for ir_var.uniform and ir_var.simd_uniform, set on
 *   every variable of every kernel (true: the same value in every thread of a threadgroup,
 *   or of each SIMD group, wherever it is read) and on the module's globals; diagnostics
 *   for barriers, below. It returns false only when
 *   it reported an error.
 *
 * The analysis is a forward dataflow over the structured IR. Each local variable has a
 * level at each point: UNIFORM (the same in the whole threadgroup), SIMD (the same within
 * a SIMD group, e.g. simdgroup_index_in_threadgroup or a simd_sum) or THREAD (may differ
 * per thread). Sources of THREAD are the per-thread position attributes, loads through
 * thread-dependent addresses, atomics' results, and SIMD/quad functions whose result
 * differs per lane (shuffles, prefix scans, simd_is_first, every quad function);
 * SIMD-group reductions, broadcasts, votes and ballots give SIMD. Memory in the device and
 * threadgroup spaces is one object for all threads, so a load from a uniform address is
 * uniform; thread-space memory reached through pointers is summarised by the levels of the
 * address-taken locals, and a pointer into thread-space memory is itself thread-dependent
 * (each thread's private variables live at their own addresses). Control dependence: a variable assigned under a condition that
 * was entered after its declaration takes the condition's level; a loop left by a break
 * (or a continue) under a varying condition makes its whole body and its exit values that
 * varying. A `return` makes no divergence: on Apple silicon a thread that returned no
 * longer takes part in barriers, so `if (gid >= n) return;` before a barrier is fine.
 * Loops iterate to a fixed point (levels only grow, so it ends).
 *
 * Diagnostics:
 *   - threadgroup_barrier under control of level SIMD or THREAD: a warning, naming the
 *     condition. It is an ERROR only when divergence is provable, by this rule: an
 *     enclosing if-condition is `X == U` or `X != U` where X is a scalar parameter whose
 *     attribute gives distinct values to the threads of a threadgroup
 *     (thread_index_in_threadgroup, thread_position_in_threadgroup/_in_grid as scalars,
 *     thread_index_in_simdgroup, thread_index_in_quadgroup), never assigned, read
 *     directly or through widening conversions, and U is uniform. In any threadgroup of
 *     two or more threads one side of that test holds for some threads only, so they
 *     cannot all reach the barrier (a threadgroup of one thread needs no barrier). Once a
 *     `return` under thread-dependent control has been passed, the survivors may be just
 *     the threads that pass the test, so the finding drops back to a warning. `lid < 32`
 *     style conditions stay warnings: small threadgroups run them uniformly.
 *   - simdgroup_barrier and simdgroup_matrix operations under THREAD-level control (which
 *     may split a SIMD group): a warning. */
#include "pass.h"

#include <stdlib.h>
#include <string.h>

typedef enum level { L_UNIFORM, L_SIMD, L_THREAD } level;

static level max_level(level a, level b) { return a > b ? a : b; }

typedef struct loop_info {
    const ir_stmt *loop;
    level div;          /* leaving (break/continue) is this divergent */
    en_loc div_loc;     /* the condition that makes it so */
    uint8_t *exit;      /* state joined over the breaks of the current walk */
    bool exit_alive;
    uint8_t *cont;      /* state joined over the continues (and the body's end) */
    bool cont_alive;
} loop_info;

typedef struct control {
    level cond_level;   /* an if: its condition's level */
    en_loc loc;
    const ir_expr *cond;
    int loop;           /* a loop: index into loops (its level is that loop's div), else -1 */
} control;

typedef struct barrier_note {
    const ir_stmt *s;
    level level;
    en_loc cond_loc;
    bool provable;
    en_loc split_loc;
    const char *split_var;
    ir_attr split_attr;
} barrier_note;

typedef struct analysis {
    en_ctx *c;
    ir_module *m;
    ir_func *f;
    en_arena arena;        /* states and tables of one kernel */
    int nvars;
    uint8_t *state;        /* current level per variable id */
    bool alive;            /* is the current point reachable? */
    uint8_t *summary;      /* highest level per variable id over the whole kernel */
    int *decl_depth;       /* control depth at each variable's declaration */
    bool *addr_taken;      /* per id: some IR_E_ADDR reaches it */
    bool *assigned;        /* per id: written after its start (parameters: never, or not) */
    int *addr_ids;         /* the ids whose addr_taken is set */
    int addr_count;
    uint8_t *spare;        /* stands in for a state that could not be allocated */
    bool out_of_memory;
    bool varying_return_seen;
    EN_VEC(control) ctl;
    EN_VEC(loop_info) loops;
    EN_VEC(barrier_note) notes;
} analysis;

static bool local_id(const analysis *a, const ir_var *v) {
    return v && v->storage == IR_VAR_LOCAL && v->id >= 0 && v->id < a->nvars;
}

/* States are short-lived copies (one per open if or loop), so they come from the heap and
 * go back at once: a kernel of many thousand ifs would otherwise keep them all in the
 * arena. When the heap refuses, a spare buffer stands in; the analysis is then unsound, so
 * the pass reports nothing and marks no variable uniform. */
static uint8_t *state_copy(analysis *a, const uint8_t *s) {
    uint8_t *c = calloc((size_t)a->nvars + 1, 1);
    if (!c) {
        a->out_of_memory = true;
        c = a->spare;
        memset(c, 0, (size_t)a->nvars + 1);
        return c;
    }
    if (s) memcpy(c, s, (size_t)a->nvars);
    return c;
}

static void state_free(analysis *a, uint8_t *s) {
    if (s != a->spare) free(s);
}

static void state_join(analysis *a, uint8_t *into, const uint8_t *from) {
    for (int i = 0; i < a->nvars; i++)
        if (from[i] > into[i]) into[i] = from[i];
}

/* ---- facts gathered before the dataflow ------------------------------------------------ */
static void mark_addr_root(analysis *a, const ir_expr *place) {
    while (place && (place->kind == IR_E_INDEX || place->kind == IR_E_FIELD ||
                     place->kind == IR_E_SWIZZLE)) {
        if (place->kind == IR_E_INDEX && place->args[0]->type->kind == IR_T_PTR) return;
        place = place->args[0];
    }
    if (place && place->kind == IR_E_VAR && local_id(a, place->var)) a->addr_taken[place->var->id] = true;
}

static void scan_expr(analysis *a, const ir_expr *e) {
    if (!e) return;
    if (e->kind == IR_E_ADDR) mark_addr_root(a, e->args[0]);
    for (int i = 0; i < e->arg_count; i++) scan_expr(a, e->args[i]);
}

static void mark_assigned(analysis *a, const ir_expr *place) {
    while (place && place->kind != IR_E_VAR && place->kind != IR_E_DEREF && place->arg_count > 0) {
        if (place->kind == IR_E_INDEX && place->args[0]->type->kind == IR_T_PTR) return;
        place = place->args[0];
    }
    if (place && place->kind == IR_E_VAR && local_id(a, place->var)) a->assigned[place->var->id] = true;
}

/* one statement's own expressions and the variable it assigns (ir_stmt_each visits the
 * statements nested in it) */
static void scan_stmt(const ir_stmt *s, void *analysis_ctx) {
    analysis *a = analysis_ctx;
    switch (s->kind) {
    case IR_S_BLOCK:
    case IR_S_LOOP: break;
    case IR_S_IF: scan_expr(a, s->cond); break;
    case IR_S_ASSIGN:
        scan_expr(a, s->place);
        scan_expr(a, s->value);
        mark_assigned(a, s->place);
        break;
    default:
        scan_expr(a, s->value);
        for (int i = 0; i < s->arg_count; i++) scan_expr(a, s->args[i]);
        if (s->result && local_id(a, s->result)) a->assigned[s->result->id] = true;
        break;
    }
}

/* ---- levels of expressions ------------------------------------------------------------- */
static level attr_level(ir_attr attr) {
    switch (attr) {
    case IR_ATTR_THREAD_POSITION_IN_GRID:
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP:
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP:
    case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP:
    case IR_ATTR_THREAD_INDEX_IN_QUADGROUP:
    case IR_ATTR_QUADGROUP_INDEX_IN_THREADGROUP:
        return L_THREAD;
    case IR_ATTR_SIMDGROUP_INDEX_IN_THREADGROUP:
        return L_SIMD;
    default:
        return L_UNIFORM; /* sizes, counts and the threadgroup's own position */
    }
}

/* what thread-space memory behind pointers may hold: the address-taken locals */
static level thread_memory_level(const analysis *a) {
    level l = L_UNIFORM;
    for (int i = 0; i < a->addr_count; i++) l = max_level(l, (level)a->state[a->addr_ids[i]]);
    return l;
}

static level expr_level(const analysis *a, const ir_expr *e);

/* the level of where a place is (not of what it holds) */
static level address_level(const analysis *a, const ir_expr *place) {
    switch (place->kind) {
    case IR_E_VAR: return L_UNIFORM;
    case IR_E_INDEX: {
        const ir_expr *base = place->args[0];
        level b = base->type->kind == IR_T_PTR ? expr_level(a, base) : address_level(a, base);
        return max_level(b, expr_level(a, place->args[1]));
    }
    case IR_E_FIELD: case IR_E_SWIZZLE: return address_level(a, place->args[0]);
    case IR_E_DEREF: return expr_level(a, place->args[0]);
    default: return expr_level(a, place);
    }
}

/* the memory space a place lives in, and its root variable when it is a variable */
static ir_space place_space(const ir_expr *place, const ir_var **root) {
    *root = NULL;
    for (;;) {
        switch (place->kind) {
        case IR_E_VAR:
            *root = place->var;
            return place->var->storage == IR_VAR_LOCAL ? IR_SPACE_THREAD
                   : place->var->storage == IR_VAR_THREADGROUP ? IR_SPACE_THREADGROUP
                                                               : IR_SPACE_CONSTANT;
        case IR_E_INDEX:
            if (place->args[0]->type->kind == IR_T_PTR) return place->args[0]->type->space;
            place = place->args[0];
            break;
        case IR_E_FIELD: case IR_E_SWIZZLE: place = place->args[0]; break;
        case IR_E_DEREF: return place->args[0]->type->space;
        default: return IR_SPACE_THREAD;
        }
    }
}

static level load_level(const analysis *a, const ir_expr *place) {
    level l = address_level(a, place);
    const ir_var *root;
    ir_space space = place_space(place, &root);
    if (root) {
        if (local_id(a, root)) l = max_level(l, (level)a->state[root->id]);
    } else if (space == IR_SPACE_THREAD) {
        l = max_level(l, thread_memory_level(a));
    }
    return l;
}

static level expr_level(const analysis *a, const ir_expr *e) {
    if (!e) return L_UNIFORM;
    switch (e->kind) {
    case IR_E_CONST: return L_UNIFORM;
    case IR_E_VAR: case IR_E_INDEX: case IR_E_FIELD: case IR_E_DEREF: return load_level(a, e);
    case IR_E_SWIZZLE:
        return ir_is_place(e) ? load_level(a, e) : expr_level(a, e->args[0]);
    case IR_E_ADDR: {
        /* every thread has its own thread-space memory, so a pointer into it differs per
           thread even where it names "the same" variable */
        const ir_var *root;
        if (place_space(e->args[0], &root) == IR_SPACE_THREAD) return L_THREAD;
        return address_level(a, e->args[0]);
    }
    default: {
        level l = L_UNIFORM;
        for (int i = 0; i < e->arg_count; i++) l = max_level(l, expr_level(a, e->args[i]));
        return l;
    }
    }
}

/* ---- control ---------------------------------------------------------------------------- */
static level control_entry_level(const analysis *a, const control *c) {
    return c->loop >= 0 ? a->loops.items[c->loop].div : c->cond_level;
}

/* the highest level of the controls from depth `from` on, and the condition responsible */
static level control_level(const analysis *a, int from, en_loc *loc) {
    level l = L_UNIFORM;
    for (int i = from < 0 ? 0 : from; i < a->ctl.count; i++) {
        const control *c = &a->ctl.items[i];
        level k = control_entry_level(a, c);
        if (k > l) {
            l = k;
            if (loc) *loc = c->loop >= 0 ? a->loops.items[c->loop].div_loc : c->loc;
        }
    }
    return l;
}

static void push_if(analysis *a, const ir_expr *cond) {
    control c = {.cond_level = expr_level(a, cond), .loc = cond->loc, .cond = cond, .loop = -1};
    EN_PUSH(&a->arena, a->ctl, c);
}

/* ---- provable splits ---------------------------------------------------------------------- */
static bool attr_is_distinct_per_thread(ir_attr attr) {
    return attr == IR_ATTR_THREAD_INDEX_IN_THREADGROUP || attr == IR_ATTR_THREAD_INDEX_IN_SIMDGROUP ||
           attr == IR_ATTR_THREAD_INDEX_IN_QUADGROUP || attr == IR_ATTR_THREAD_POSITION_IN_GRID ||
           attr == IR_ATTR_THREAD_POSITION_IN_THREADGROUP;
}

/* the parameter X of `X == U` when X gives every thread of a threadgroup its own value */
static const ir_var *distinct_position(const analysis *a, const ir_expr *e) {
    while (e->kind == IR_E_CONVERT && ir_is_integer(e->type) && ir_is_integer(e->args[0]->type) &&
           e->type->size >= e->args[0]->type->size &&
           (ir_is_signed(e->type) == ir_is_signed(e->args[0]->type) ||
            e->type->size > e->args[0]->type->size))
        e = e->args[0];
    if (e->kind != IR_E_VAR || !local_id(a, e->var)) return NULL;
    const ir_var *v = e->var;
    if (v->param_kind != IR_PARAM_ATTR || !attr_is_distinct_per_thread(v->attr) ||
        !ir_is_scalar(v->type) || a->assigned[v->id] || a->addr_taken[v->id])
        return NULL;
    return v;
}

static const ir_var *split_of(const analysis *a, const ir_expr *cond) {
    if (!cond || cond->kind != IR_E_BINARY || (cond->op != IR_OP_EQ && cond->op != IR_OP_NE))
        return NULL;
    for (int side = 0; side < 2; side++) {
        const ir_var *x = distinct_position(a, cond->args[side]);
        if (x && expr_level(a, cond->args[1 - side]) == L_UNIFORM) return x;
    }
    return NULL;
}

/* ---- statements --------------------------------------------------------------------------- */
static void walk(analysis *a, const ir_stmt *s);

static void set_level(analysis *a, const ir_var *v, level l, bool strong) {
    if (!local_id(a, v)) return;
    if (strong || l > a->state[v->id]) a->state[v->id] = (uint8_t)l;
    if (l > a->summary[v->id]) a->summary[v->id] = (uint8_t)l;
}

static void assign(analysis *a, const ir_expr *place, level value) {
    const ir_var *root;
    ir_space space = place_space(place, &root);
    level where = address_level(a, place);
    if (root && local_id(a, root)) {
        level l = max_level(max_level(value, where), control_level(a, a->decl_depth[root->id], NULL));
        set_level(a, root, l, place->kind == IR_E_VAR);
    } else if (!root && space == IR_SPACE_THREAD) {
        /* through a thread pointer: any address-taken local may be the target */
        level l = max_level(max_level(value, where), control_level(a, 0, NULL));
        for (int i = 0; i < a->addr_count; i++) {
            int id = a->addr_ids[i];
            if (l > a->state[id]) a->state[id] = (uint8_t)l;
            if (a->state[id] > a->summary[id]) a->summary[id] = a->state[id];
        }
    }
    /* device and threadgroup memory: one object for every thread; nothing to track */
}

static level intrinsic_result_level(ir_intrinsic i) {
    switch (i) {
    case IR_I_SIMD_SUM: case IR_I_SIMD_PRODUCT: case IR_I_SIMD_MIN: case IR_I_SIMD_MAX:
    case IR_I_SIMD_AND: case IR_I_SIMD_OR: case IR_I_SIMD_XOR: case IR_I_SIMD_BROADCAST:
    case IR_I_SIMD_BROADCAST_FIRST: case IR_I_SIMD_BALLOT: case IR_I_SIMD_ALL: case IR_I_SIMD_ANY:
    case IR_I_SIMD_ACTIVE_THREADS_MASK:
        return L_SIMD; /* one value per SIMD group (among its active lanes) */
    default:
        return L_THREAD; /* shuffles, scans, simd_is_first, quad functions, atomics, matrices */
    }
}

static barrier_note *note_for(analysis *a, const ir_stmt *s) {
    for (int i = 0; i < a->notes.count; i++)
        if (a->notes.items[i].s == s) return &a->notes.items[i];
    barrier_note n = {.s = s};
    EN_PUSH(&a->arena, a->notes, n);
    return &a->notes.items[a->notes.count - 1];
}

static void note_barrier(analysis *a, const ir_stmt *s) {
    en_loc loc = s->loc;
    level l = control_level(a, 0, &loc);
    barrier_note *n = note_for(a, s);
    if (l > n->level) {
        n->level = l;
        n->cond_loc = loc;
    }
    if (s->intrinsic != IR_I_BARRIER_THREADGROUP || a->varying_return_seen) return;
    for (int i = 0; i < a->ctl.count && !n->provable; i++) {
        const control *c = &a->ctl.items[i];
        const ir_var *x = c->loop < 0 ? split_of(a, c->cond) : NULL;
        if (x) {
            n->provable = true;
            n->split_loc = c->loc;
            n->split_var = x->name;
            n->split_attr = x->attr;
        }
    }
}

static void walk_intrinsic(analysis *a, const ir_stmt *s) {
    ir_intrinsic_class cls = ir_intrinsic_class_of(s->intrinsic);
    if (cls == IR_IC_BARRIER || cls == IR_IC_MATRIX) note_barrier(a, s);
    if (s->intrinsic == IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK && s->arg_count >= 2 &&
        s->args[1]->type->kind == IR_T_PTR) {
        /* *expected receives the object's value on failure: thread-dependent */
        ir_expr deref = {.kind = IR_E_DEREF, .type = s->args[1]->type->elem, .loc = s->loc,
                         .args = (ir_expr **)&s->args[1], .arg_count = 1};
        assign(a, &deref, L_THREAD);
    }
    if (s->result && local_id(a, s->result)) {
        level l = intrinsic_result_level(s->intrinsic);
        l = max_level(l, control_level(a, a->decl_depth[s->result->id], NULL));
        set_level(a, s->result, l, true);
    }
}

static int loop_index(analysis *a, const ir_stmt *loop) {
    for (int i = 0; i < a->loops.count; i++)
        if (a->loops.items[i].loop == loop) return i;
    loop_info li = {.loop = loop};
    EN_PUSH(&a->arena, a->loops, li);
    return a->loops.count - 1;
}

static void leave_loop(analysis *a, const ir_stmt *s) {
    int k = -1, depth = -1;
    for (int i = a->ctl.count - 1; i >= 0; i--)
        if (a->ctl.items[i].loop >= 0 && a->loops.items[a->ctl.items[i].loop].loop == s->target) {
            k = a->ctl.items[i].loop;
            depth = i;
            break;
        }
    if (k < 0) { /* not an enclosing loop; the verifier reports it */
        a->alive = false;
        return;
    }
    en_loc loc = s->loc;
    level l = control_level(a, depth + 1, &loc);
    loop_info *li = &a->loops.items[k];
    if (l > li->div) {
        li->div = l;
        li->div_loc = loc;
    }
    if (s->kind == IR_S_BREAK) {
        if (li->exit_alive) state_join(a, li->exit, a->state);
        else memcpy(li->exit, a->state, (size_t)a->nvars);
        li->exit_alive = true;
    } else {
        if (li->cont_alive) state_join(a, li->cont, a->state);
        else memcpy(li->cont, a->state, (size_t)a->nvars);
        li->cont_alive = true;
    }
    a->alive = false;
}

static void walk_loop(analysis *a, const ir_stmt *s) {
    int k = loop_index(a, s);
    uint8_t *head = state_copy(a, a->state);
    for (;;) {
        loop_info *li = &a->loops.items[k];
        level div_before = li->div;
        /* an outer loop's next iteration walks this loop again: its old states go */
        state_free(a, li->exit);
        state_free(a, li->cont);
        li->exit = state_copy(a, NULL);
        li = &a->loops.items[k];
        li->cont = state_copy(a, NULL);
        li->exit_alive = li->cont_alive = false;
        memcpy(a->state, head, (size_t)a->nvars);
        a->alive = true;

        control c = {.loop = k, .loc = s->loc};
        EN_PUSH(&a->arena, a->ctl, c);
        walk(a, s->body);
        li = &a->loops.items[k];
        if (a->alive) { /* the body's end reaches the latch like a continue */
            if (li->cont_alive) state_join(a, li->cont, a->state);
            else memcpy(li->cont, a->state, (size_t)a->nvars);
            li->cont_alive = true;
        }
        a->alive = li->cont_alive;
        memcpy(a->state, li->cont, (size_t)a->nvars);
        if (a->alive) walk(a, s->latch);
        a->ctl.count--;
        li = &a->loops.items[k];

        bool grew = li->div != div_before;
        if (a->alive)
            for (int i = 0; i < a->nvars; i++)
                if (a->state[i] > head[i]) {
                    head[i] = a->state[i];
                    grew = true;
                }
        if (!grew) break;
    }
    loop_info *li = &a->loops.items[k];
    a->alive = li->exit_alive;
    if (a->alive) memcpy(a->state, li->exit, (size_t)a->nvars);
    state_free(a, head);
    state_free(a, li->exit);
    state_free(a, li->cont);
    li->exit = li->cont = NULL;
}

static void walk(analysis *a, const ir_stmt *s) {
    if (!s || !a->alive) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count && a->alive; i++) walk(a, s->stmts[i]);
        break;
    case IR_S_DECL:
        if (local_id(a, s->var)) {
            a->decl_depth[s->var->id] = a->ctl.count;
            set_level(a, s->var, s->value ? expr_level(a, s->value) : L_UNIFORM, true);
        }
        break;
    case IR_S_ASSIGN: assign(a, s->place, expr_level(a, s->value)); break;
    case IR_S_IF: {
        push_if(a, s->cond);
        uint8_t *before = state_copy(a, a->state);
        walk(a, s->then_s);
        uint8_t *after_then = state_copy(a, a->state);
        bool then_alive = a->alive;
        memcpy(a->state, before, (size_t)a->nvars);
        a->alive = true;
        walk(a, s->else_s);
        a->ctl.count--;
        if (then_alive && a->alive) state_join(a, a->state, after_then);
        else if (then_alive) memcpy(a->state, after_then, (size_t)a->nvars);
        a->alive = then_alive || a->alive;
        state_free(a, before);
        state_free(a, after_then);
        break;
    }
    case IR_S_LOOP: walk_loop(a, s); break;
    case IR_S_BREAK: case IR_S_CONTINUE: leave_loop(a, s); break;
    case IR_S_RETURN:
        if (control_level(a, 0, NULL) > L_UNIFORM) a->varying_return_seen = true;
        a->alive = false;
        break;
    case IR_S_INTRINSIC: walk_intrinsic(a, s); break;
    case IR_S_CALL: break; /* gone after inlining */
    }
}

/* ---- reporting ---------------------------------------------------------------------------- */
/* a helper inlined into several kernels would repeat its finding at the same place */
static bool reported_at(const en_diags *d, en_loc loc) {
    for (int i = 0; i < d->items.count; i++) {
        const en_diag *g = &d->items.items[i];
        if (g->severity != EN_NOTE && g->loc.file == loc.file && g->loc.line == loc.line &&
            g->loc.col == loc.col)
            return true;
    }
    return false;
}

static void report(analysis *a) {
    en_diags *d = &a->c->diags;
    for (int i = 0; i < a->notes.count; i++) {
        const barrier_note *n = &a->notes.items[i];
        const ir_stmt *s = n->s;
        if (reported_at(d, s->loc)) continue;
        const char *name = ir_intrinsic_name(s->intrinsic);
        if (s->intrinsic == IR_I_BARRIER_THREADGROUP) {
            if (n->provable)
                en_error(d, s->loc,
                         "threadgroup_barrier is reached by only some threads of a threadgroup: "
                         "the condition at %d:%d compares '%s' (%s) with a uniform value, which "
                         "splits every threadgroup of more than one thread; all threads of a "
                         "threadgroup must reach it",
                         n->split_loc.line, n->split_loc.col, n->split_var ? n->split_var : "?",
                         ir_attr_name(n->split_attr));
            else if (n->level > L_UNIFORM)
                en_warning(d, s->loc,
                           "threadgroup_barrier in control flow that depends on the thread "
                           "position (condition at %d:%d); all threads of a threadgroup must "
                           "reach it",
                           n->cond_loc.line, n->cond_loc.col);
        } else if (n->level == L_THREAD) {
            if (s->intrinsic == IR_I_BARRIER_SIMDGROUP)
                en_warning(d, s->loc,
                           "simdgroup_barrier in control flow that depends on the thread's lane "
                           "(condition at %d:%d); all threads of a SIMD group must reach it",
                           n->cond_loc.line, n->cond_loc.col);
            else
                en_warning(d, s->loc,
                           "%s in control flow that depends on the thread's lane (condition at "
                           "%d:%d); all threads of a SIMD group must call it together",
                           name, n->cond_loc.line, n->cond_loc.col);
        }
    }
}

static void analyse_kernel(en_ctx *c, ir_module *m, ir_func *f) {
    analysis a = {.c = c, .m = m, .f = f, .alive = true, .nvars = f->next_var_id};
    en_arena_init(&a.arena);
    a.state = en_alloc(&a.arena, (size_t)a.nvars + 1);
    a.summary = en_alloc(&a.arena, (size_t)a.nvars + 1);
    a.spare = en_alloc(&a.arena, (size_t)a.nvars + 1);
    a.decl_depth = en_alloc(&a.arena, sizeof(int) * (size_t)(a.nvars + 1));
    a.addr_taken = en_alloc(&a.arena, (size_t)a.nvars + 1);
    a.assigned = en_alloc(&a.arena, (size_t)a.nvars + 1);
    ir_stmt_each(f->body, scan_stmt, &a);
    a.addr_ids = en_alloc(&a.arena, sizeof(int) * (size_t)(a.nvars + 1));
    for (int i = 0; i < a.nvars; i++)
        if (a.addr_taken[i]) a.addr_ids[a.addr_count++] = i;
    for (int i = 0; i < f->param_count; i++) {
        const ir_var *p = f->params[i];
        set_level(&a, p, p->param_kind == IR_PARAM_ATTR ? attr_level(p->attr) : L_UNIFORM, true);
    }
    walk(&a, f->body);
    if (!a.out_of_memory) report(&a);
    if (a.out_of_memory) memset(a.summary, L_THREAD, (size_t)a.nvars);
    for (int i = 0; i < f->param_count; i++)
        if (local_id(&a, f->params[i])) {
            f->params[i]->uniform = a.summary[f->params[i]->id] == L_UNIFORM;
            f->params[i]->simd_uniform = a.summary[f->params[i]->id] <= L_SIMD;
        }
    for (int i = 0; i < f->locals.count; i++) {
        ir_var *v = f->locals.items[i];
        /* a local whose address is taken may change through pointers the summary missed
           only if it is written through them, which assign() accounts for */
        if (local_id(&a, v)) {
            v->uniform = a.summary[v->id] == L_UNIFORM;
            v->simd_uniform = a.summary[v->id] <= L_SIMD;
        }
    }
    for (int i = 0; i < f->threadgroup_vars.count; i++)
        f->threadgroup_vars.items[i]->uniform = f->threadgroup_vars.items[i]->simd_uniform = true;
    en_arena_free(&a.arena);
}

bool en_pass_uniformity(en_ctx *c, ir_module *m) {
    int errors = c->diags.errors;
    for (int i = 0; i < m->globals.count; i++) m->globals.items[i]->uniform = m->globals.items[i]->simd_uniform = true;
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i]->is_kernel) analyse_kernel(c, m, m->funcs.items[i]);
    return c->diags.errors == errors;
}
