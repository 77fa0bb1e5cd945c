/* emit_wide.c — wide mode: one gang per threadgroup, for kernels with threadgroup barriers.
 *
 * Needs: an emitter whose variables are classified (cpu_classify_vars) for an unchecked
 *   build; the function's locals' initialisers in em->inits.
 * Guarantees: cpu_wide_body() either appends to em->out one block, `if (<shape test>) {
 *   ... return; }`, that runs the whole threadgroup, plus the per-thread arrays it needs to
 *   *fields (lines of the context struct), and returns true; or appends nothing and returns
 *   false, and the kernel keeps the region emitter (emit_region.c) alone. The region code
 *   always follows, so a group of a shape the wide block does not take still runs.
 *
 * Why. The region emitter runs a threadgroup as its SIMD groups one after the other between
 * barriers, with 32-bit lane masks and per-SIMD-group copies of every uniform value; a tree
 * reduction's 8 levels of 8 SIMD groups spend their time in that bookkeeping, not in the
 * additions. Here control flow that is the same in every thread of the threadgroup (the
 * tree's `for (s = n / 2; s > 0; s /= 2)`, a GEMM's k loops) is plain C that runs once;
 * every per-thread statement becomes one loop over the threads, written
 * `for (l = lo; l < hi; l++)` or, for 2-D groups, a loop over rows and one over columns,
 * which gcc vectorises. A barrier is then only a comment: every thread has finished the
 * loops before it. Consecutive per-thread statements share one loop, unless the lanes of a
 * SIMD group talk through threadgroup memory between them (a lane loads where another
 * stores: Metal runs a SIMD group's lanes in lock step; emit_wide_lanes.c decides); a
 * statement that does so within itself runs as two loops, loads then stores.
 *
 * Which threads run a statement: the whole group; a range narrowed by a test of the thread
 * index against a uniform value (`if (lid < s)`); or a byte mask (other divergent tests,
 * loops whose trip count differs per thread). Per-thread loops without barriers run in
 * lock step: each iteration is one loop over the threads still in it, with no mask while
 * all of them are; a grid-stride index (`for (i = lid; i < n; i += lsize)`) is then one
 * uniform base plus the thread index, so its loads are contiguous (behind a test, per
 * iteration, that base + thread index cannot wrap as a uint; the exact form otherwise).
 *
 * Where values live: per-thread locals in arrays of the context block (`w_x[1024]`), or,
 * when never assigned and computed from positions, uniform values and constants, inline at
 * each use (so `row * K + k` stays affine in the thread index); uniform locals are C
 * scalars. Loads are read in place: every statement runs only for the threads that
 * execute it, so no thread touches memory it would not.
 *
 * Loops inside the loop over threads: a loop the same in every thread with no barrier and
 * only per-thread statements (a tiled GEMM's inner k loop) runs inside it, each thread with
 * its own counter, unrolled when its bounds are constants, eight rows of threads per pass
 * (interleaved statement by statement where the body is straight-line);
 * gcc then vectorises across threads with the accumulators in registers. Loops over threads
 * carry GCC ivdep when the kernel has no atomics (threads racing on memory between barriers
 * is undefined in Metal), so gcc adds no run-time overlap tests. Device loads inside a
 * uniform loop get a per-row stride tracker that prefetches two steps ahead. A loop whose
 * counter indexes memory and whose trip count is not a constant runs as a pass over the
 * threads per step instead (an index form is computed once per row, outside the loop).
 *
 * simdgroup matrices live once per SIMD group, row-major, and their operations are loops
 * over the SIMD groups (see "simdgroup matrices" below). SIMD-group functions (simd_sum,
 * shuffles, ballots) store their arguments for every thread, then combine each SIMD
 * group's lanes (simd_function); a divergent if around such statements first computes
 * which threads take each branch (divergent_if). Control flow that is the same within each
 * SIMD group but not in the group (attention's per-SIMD-group blocks, by the uniformity
 * pass's ir_var.simd_uniform) around matrices or exits runs one SIMD group at a time
 * (sg_region). A loop with no head that threads leave on their own (an inlined function's
 * early return) runs whole inside the loop over threads.
 *
 * Checked builds take a part of it (checked_stmt): statements that assign or store, and
 * atomics, each its own loops over the threads (its values, then its stores), every access
 * through the access_span hook, uniform control flow and barriers as above, and divergent
 * ifs; not lock-step loops, loops inside a thread, SIMD-group functions, matrices, loads in
 * uniform values or addresses, or thread memory indexed at run time.
 *
 * Not taken (the region emitter runs them): quad-group functions,
 * returns, a barrier under divergent control, a matrix operation under per-thread
 * control, a uniform variable's assignment there unless no statement outside that
 * divergent one reads it, breaks that leave a lock-step loop early per thread, 3-D
 * threadgroups. */
#include "emit_wide.h"

#include <string.h>

static void wfail(wide *w) { w->failed = true; }

static const wset ALL = {NULL, NULL, NULL};

/* ---- what a statement contains ----------------------------------------------------- */

static bool is_uniform_var(wide *w, const ir_var *v) { return cpu_info_of(w->em, v)->kind == VK_SCALAR; }

/* a simdgroup matrix, or an array (of arrays) of them */
static bool is_matrix_type(const ir_type *t) {
    while (t->kind == IR_T_ARRAY) t = t->elem;
    return t->kind == IR_T_SIMD_MATRIX;
}

/* a statement on simdgroup matrices: one per SIMD group (flush_matrices) */
static bool matrix_stmt(const ir_stmt *s) {
    switch (s->kind) {
    case IR_S_INTRINSIC: return ir_intrinsic_class_of(s->intrinsic) == IR_IC_MATRIX;
    case IR_S_DECL: return is_matrix_type(s->var->type);
    case IR_S_ASSIGN: return is_matrix_type(s->place->type);
    default: return false;
    }
}

/* can s run inside one loop over the threads, as scalar C per thread? */
static bool thread_ok(wide *w, const ir_stmt *s, const ir_stmt *inside) {
    if (!s) return true;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (!thread_ok(w, s->stmts[i], inside)) return false;
        return true;
    case IR_S_DECL: return !is_uniform_var(w, s->var) && !is_matrix_type(s->var->type);
    case IR_S_ASSIGN:
        return !(s->place->kind == IR_E_VAR && is_uniform_var(w, s->place->var)) && !is_matrix_type(s->place->type);
    case IR_S_IF: return thread_ok(w, s->then_s, inside) && thread_ok(w, s->else_s, inside);
    case IR_S_LOOP: return inside && thread_ok(w, s->body, inside) && thread_ok(w, s->latch, inside);
    case IR_S_BREAK:
    case IR_S_CONTINUE: return inside != NULL; /* only loops wholly inside (checked by target below) */
    case IR_S_INTRINSIC: {
        ir_intrinsic_class c = ir_intrinsic_class_of(s->intrinsic);
        return c == IR_IC_ATOMIC && !(s->result && is_uniform_var(w, s->result));
    }
    default: return false;
    }
}

/* every break/continue in s targets a loop inside s */
static bool exits_inside(const ir_stmt *s, const ir_stmt **loops, int depth) {
    if (!s) return true;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (!exits_inside(s->stmts[i], loops, depth)) return false;
        return true;
    case IR_S_IF: return exits_inside(s->then_s, loops, depth) && exits_inside(s->else_s, loops, depth);
    case IR_S_LOOP: {
        if (depth >= 32) return false;
        loops[depth] = s;
        return exits_inside(s->body, loops, depth + 1) && exits_inside(s->latch, loops, depth + 1);
    }
    case IR_S_BREAK:
    case IR_S_CONTINUE:
        for (int i = 0; i < depth; i++)
            if (loops[i] == s->target) return true;
        return false;
    default: return true;
    }
}

static bool var_read_outside(const ir_stmt *s, const ir_var *v, const ir_stmt *loop);
static bool read_outside_all(const ir_stmt *s, const ir_var *v, const ir_stmt *const *skip, int count);
static bool assigns_var(const ir_stmt *s, const ir_var *v);

/* does e index memory through a pointer with a uint index that reads v? */
static bool index_reads(const ir_expr *e, const void *v) {
    return e->kind == IR_E_INDEX && e->args[0]->type->kind == IR_T_PTR && e->args[1]->type->kind == IR_T_U32 &&
           wide_expr_reads(e->args[1], v);
}

/* does an expression of s, or of a statement nested in it, index memory with v? Unlike the
 * walk this replaced, ir_stmt_any_expr also looks at returns' values and calls' arguments:
 * wide mode takes no kernel with a return (not_taken_stmt), a kernel's return has no value, and
 * no call survives inlining, so the same expressions are seen */
static bool stmt_index_reads(const ir_stmt *s, const ir_var *v) { return ir_stmt_any_expr(s, index_reads, v); }

/* does a counter that loop s's latch steps index memory inside it? */
static bool indexes_with_counter(wide *w, const ir_stmt *s) {
    const ir_stmt *latch = s->latch;
    int n = latch ? (latch->kind == IR_S_BLOCK ? latch->stmt_count : 1) : 0;
    for (int i = 0; i < n; i++) {
        const ir_stmt *l = latch->kind == IR_S_BLOCK ? latch->stmts[i] : latch;
        if (l->kind == IR_S_ASSIGN && l->place->kind == IR_E_VAR && is_uniform_var(w, l->place->var) &&
            stmt_index_reads(s->body, l->place->var))
            return true;
    }
    return false;
}

/* A loop the same in every thread, without barriers, whose body is per-thread statements
 * and whose latch steps uniform counters only (a tiled GEMM's `for (k = 0; k < TILE;
 * k++)`): it runs inside the loop over threads, each thread with its own copy of the
 * counters, so gcc unrolls it and vectorises across threads with the accumulator in a
 * register, instead of one pass over the threads (through memory) per step. */
static bool loop_in_thread(wide *w, const ir_stmt *s) {
    int first;
    const ir_expr *head = wide_loop_head(s, &first);
    if (!head || !wide_uniform(w, head) || cpu_has_barrier(s)) return false;
    /* a memory index that moves with a counter of a loop that is not unrolled has no
     * 64-bit form inside it (wform_of): such a loop runs as a pass over the threads per
     * step instead, where the counter is one value and the index is contiguous */
    long long from, to, step;
    if (!wide_counted_loop(w, s, &from, &to, &step) && indexes_with_counter(w, s)) return false;
    const ir_stmt *b = s->body;
    const ir_stmt *loops[32] = {s};
    for (int i = first; i < b->stmt_count; i++)
        if (!thread_ok(w, b->stmts[i], s) || !exits_inside(b->stmts[i], loops, 1)) return false;
    const ir_stmt *latch = s->latch;
    int n = latch ? (latch->kind == IR_S_BLOCK ? latch->stmt_count : 1) : 0;
    for (int i = 0; i < n; i++) {
        const ir_stmt *l = latch->kind == IR_S_BLOCK ? latch->stmts[i] : latch;
        if (l->kind == IR_S_ASSIGN && l->place->kind == IR_E_VAR && is_uniform_var(w, l->place->var)) {
            const ir_var *v = l->place->var;
            if (assigns_var(b, v) || var_read_outside(w->em->f->body, v, s) || !ir_is_scalar(v->type)) return false;
            continue;
        }
        if (!thread_ok(w, l, s) || !exits_inside(l, loops, 1)) return false;
    }
    return true;
}

static int exit_level(wide *w, const ir_stmt *s);

/* A loop with no head test that threads leave on their own (an inlined function's early
 * return: MLX's `if (isnan(a) || isnan(b)) return NaN;` in its scan and reduce operators),
 * made of per-thread statements: it runs whole inside the loop over threads, as C. */
static bool headless_in_thread(wide *w, const ir_stmt *s) {
    int first;
    if (wide_loop_head(s, &first) || cpu_has_barrier(s) || exit_level(w, s) != 2) return false;
    const ir_stmt *loops[32] = {s};
    return thread_ok(w, s->body, s) && thread_ok(w, s->latch, s) && exits_inside(s->body, loops, 1) &&
           exits_inside(s->latch, loops, 1);
}

/* a statement that runs as scalar C per thread inside a loop over the threads */
static bool per_thread_shape(wide *w, const ir_stmt *s) {
    if (s->kind == IR_S_LOOP) /* others run in lock step */
        return loop_in_thread(w, s) || headless_in_thread(w, s);
    if (cpu_has_barrier(s)) return false;
    const ir_stmt *loops[32];
    return thread_ok(w, s, s) && exits_inside(s, loops, 0);
}

/* a statement the batch can take: per thread, and no thread's access meets another's */
static bool batchable(wide *w, const ir_stmt *s) { return per_thread_shape(w, s) && !wide_needs_lock_step(w, NULL, 0, s); }

/* checked mode: a statement checked_stmt runs (an assignment or store per thread, an
 * atomic); anything else per thread (ifs, loops inside a thread) is not taken */
static bool checked_shape(wide *w, const ir_stmt *s) {
    if (s->kind == IR_S_INTRINSIC) return ir_intrinsic_class_of(s->intrinsic) == IR_IC_ATOMIC && thread_ok(w, s, NULL);
    return (s->kind == IR_S_DECL || s->kind == IR_S_ASSIGN) && thread_ok(w, s, NULL);
}

/* ---- expressions ------------------------------------------------------------------- */
/* the same value in every thread of the group (no per-thread variable, attribute or load
 * through one), or (simd: inside an sg_region) of each SIMD group by the uniformity pass,
 * read there for the SIMD group's first thread */
EN_INTERNAL bool wide_uniform_in(wide *w, const ir_expr *e, bool simd) {
    if (!e) return true;
    if (e->kind == IR_E_VAR) {
        const ir_var *v = e->var;
        var_info *vi = cpu_info_of(w->em, v);
        switch (vi->kind) {
        case VK_UNIFORM: case VK_GLOBAL: case VK_THREADGROUP: case VK_SCALAR: return true;
        default: return simd && v->simd_uniform;
        }
    }
    if (e->kind == IR_E_ADDR) return wide_uniform_in(w, e->args[0], simd);
    for (int i = 0; i < e->arg_count; i++)
        if (!wide_uniform_in(w, e->args[i], simd)) return false;
    return true;
}
EN_INTERNAL bool wide_uniform(wide *w, const ir_expr *e) { return wide_uniform_in(w, e, w->sg_region); }

/* `K` of `constant uint &K`: memory the kernel cannot write, read once at the start into
 * a local (`_kK`). Read through the pointer at each use, gcc must reload it after every
 * store (-fno-strict-aliasing), and a loop that stores cannot vectorise. */
static const char *constant_scalar(wide *w, const ir_expr *e) {
    emitter *em = w->em;
    if (w->em->checked) return NULL; /* a load like any other: its buffer's bounds are checked */
    /* a scalar field of `constant S &args` (ggml's and MLX's argument structs): the struct
     * is read once, the field taken from the copy */
    const ir_expr *field = NULL;
    if (e->kind == IR_E_FIELD && ir_is_scalar(e->type) && e->args[0]->kind == IR_E_DEREF) {
        field = e;
        e = e->args[0];
    }
    const ir_expr *p = NULL;
    if (e->kind == IR_E_DEREF) p = e->args[0];
    else if (e->kind == IR_E_INDEX && e->args[1]->kind == IR_E_CONST && e->args[1]->c.u == 0) p = e->args[0];
    if (!p || p->kind != IR_E_VAR || p->var->param_kind != IR_PARAM_BUFFER || p->var->is_assigned) return NULL;
    const ir_type *pt = p->var->type;
    if (pt->kind != IR_T_PTR || pt->space != IR_SPACE_CONSTANT) return NULL;
    /* the whole struct is read only through a reference, which the dispatch checks is bound
     * to at least one struct (a pointer's buffer may end inside it) */
    if (field ? e->type->kind != IR_T_STRUCT || e->type->size > 4096 || !p->var->is_reference : !ir_is_scalar(e->type))
        return NULL;
    var_info *vi = cpu_info_of(em, p->var);
    const char *name = cpu_S(em, "_k%s", vi->cname);
    const char *value = field ? cpu_S(em, "%s.%s", name, cpu_ident(em, e->type->fields[field->field].name)) : name;
    for (int i = 0; i < w->hoisted.count; i++)
        if (w->hoisted.items[i] == p->var) return value;
    EN_PUSH(&em->arena, w->hoisted, p->var);
    /* an unbound buffer reads as 0 here: the kernel faults where it reads it, as before */
    if (field)
        en_buf_printf(&w->hoisted_decls, "%s %s = {0}; if (%s) memcpy(&%s, %s, sizeof %s); /* constant: read once */\n",
                      cpu_ctype(em, e->type), name, vi->cname, name, vi->cname, name);
    else
        en_buf_printf(&w->hoisted_decls, "%s %s = %s ? *%s : 0; /* constant: read once */\n", cpu_ctype(em, e->type), name,
                      vi->cname, vi->cname);
    return value;
}

/* lv, the C lvalue of memory place e, read or written through the type that takes any
 * address (cpu_access_ctype): ggml stores float4s into rows of 70 floats, and gcc moves
 * an aligned 16-byte type with instructions that fault at other addresses */
static const char *memory_place(emitter *em, const ir_expr *e, const char *lv) {
    const char *at = cpu_access_ctype(em, e->type);
    if (!strcmp(at, cpu_ctype(em, e->type))) return lv;
    return cpu_S(em, "*(%s *)&%s", at, lv);
}

/* Every load in e is read in place: memos map each to its C lvalue, so cpu_ex emits no
 * temporaries (the statement runs only for threads that execute it). Innermost first. */
static void inline_loads(wide *w, const ir_expr *e) {
    if (!e) return;
    emitter *em = w->em;
    for (int i = 0; i < e->arg_count; i++) inline_loads(w, e->args[i]);
    if (ir_is_place(e) && e->kind != IR_E_SWIZZLE && cpu_needs_access(e)) {
        const char *hoisted = constant_scalar(w, e);
        if (hoisted) {
            EN_PUSH(&em->arena, em->memos, ((memo_entry){e, hoisted}));
            return;
        }
        if (e->type->kind == IR_T_SIMD_MATRIX) {
            wfail(w);
            return;
        }
        const char *lv = memory_place(em, e, cpu_lvalue(em, e)), *flags = NULL;
        for (int i = 0; w->chk_guarded && i < w->chk_flags.count; i++)
            if (w->chk_flags.items[i].expr == e) flags = w->chk_flags.items[i].temp;
        const char *memo = flags ? cpu_S(em, "(%s[l] ? (%s) : (%s){0})", flags, lv, cpu_ctype(em, e->type))
                                 : cpu_S(em, "(%s)", lv);
        EN_PUSH(&em->arena, em->memos, ((memo_entry){e, memo}));
    }
}

/* a value read from memory: a place in memory that is not an array or struct (those are
 * the bases of an element's or field's address; a whole one read is not taken in checked
 * mode, checked_stmt) */
static bool is_load(const ir_expr *e) {
    return ir_is_place(e) && e->kind != IR_E_SWIZZLE && e->type->kind != IR_T_ARRAY && e->type->kind != IR_T_STRUCT &&
           cpu_needs_access(e);
}

/* does e load from memory (what inline_loads reads in place)? `&place` reads only what
 * the place's address does */
static bool reads_memory(const ir_expr *e) {
    if (!e) return false;
    if (e->kind == IR_E_ADDR && ir_is_place(e->args[0])) {
        for (int i = 0; i < e->args[0]->arg_count; i++)
            if (reads_memory(e->args[0]->args[i])) return true;
        return false;
    }
    if (is_load(e)) return true;
    for (int i = 0; i < e->arg_count; i++)
        if (reads_memory(e->args[i])) return true;
    return false;
}

/* cpu_ex / cpu_lvalue for wide code: they must emit nothing (else the form is not one we
 * read in place, and the kernel leaves wide mode) */
static const char *wex(wide *w, const ir_expr *e, int comp) {
    size_t before = w->em->out->len;
    const char *r = cpu_ex(w->em, e, comp);
    if (w->em->out->len != before) wfail(w);
    return r;
}
static const char *wlvalue(wide *w, const ir_expr *e) {
    size_t before = w->em->out->len;
    const char *r = cpu_lvalue(w->em, e);
    if (w->em->out->len != before) wfail(w);
    return ir_is_place(e) && e->kind != IR_E_SWIZZLE && cpu_needs_access(e) ? memory_place(w->em, e, r) : r;
}

/* ---- the loop over threads ------------------------------------------------------------ */
/* Before a loop over threads: the threads of one barrier interval that touch the same
 * memory race (Metal leaves that undefined) unless through atomics, so a loop whose
 * statements have no atomics has no iteration that depends on another (an ordering by
 * atomics would need one between the two accesses, inside the loop), and gcc need not
 * test the pointers for overlap at run time (with more than 10 such tests it gives up
 * vectorising). w->has_atomics: the statements of the loop being emitted have one, or,
 * outside thread_loop, the kernel has one. */
static void no_dependence(wide *w) {
    if (!w->has_atomics) cpu_line(w->em, "_Pragma(\"GCC ivdep\")");
}

/* _x and _y of thread l of a range of threads (open_threads' loop over l) */
static void name_range_thread(wide *w) {
    emitter *em = w->em;
    if (w->sg_region) /* a SIMD group's threads, in a group of any shape */
        cpu_line(em, "const uint32_t _x = (uint32_t)l %% _sx, _y = (uint32_t)l / _sx; (void)_x; (void)_y;");
    else
        cpu_line(em, "const uint32_t _x = l, _y = 0; (void)_x; (void)_y;");
}

static void open_threads(wide *w, wset set) {
    emitter *em = w->em;
    if (!set.lo) {
        OPEN("for (uint32_t _y = 0; _y < _sy; _y++) {");
        no_dependence(w);
        OPEN("for (uint32_t _x = 0; _x < _sx; _x++) {");
        cpu_line(em, "const size_t l = (size_t)_y * _sx + _x; /* 64-bit: no wrap, so w_x[l] is affine */");
    } else {
        no_dependence(w);
        OPEN("for (size_t l = %s; l < %s; l++) {", set.lo, set.hi);
        name_range_thread(w);
    }
    if (set.mask) OPEN("if (%s[l]) {", set.mask);
}
static void close_threads(wide *w, wset set) {
    emitter *em = w->em;
    if (set.mask) CLOSE();
    CLOSE();
    if (!set.lo) CLOSE();
}

/* ---- per-thread statements (inside the loop over threads) ------------------------------ */
static void thread_stmt(wide *w, const ir_stmt *s);

/* a vector read in place by inline_loads: its C lvalue, else NULL */
static const char *whole_load(emitter *em, const ir_expr *e) {
    for (int i = 0; i < em->memos.count; i++)
        if (em->memos.items[i].expr == e) return em->memos.items[i].temp;
    return NULL;
}

/* A prefetch from a tracker: `slot` (an lvalue) holds the address this load had the step
 * before; where the new one is 64 bytes to 16 MiB further on, the line as far again beyond
 * it is fetched (to L2). A prefetch never faults: a wrong guess costs bandwidth only. */
static void tracked_prefetch(emitter *em, const char *address, const char *slot) {
    cpu_line(em, "{ uintptr_t _a = (uintptr_t)%s, *_last = &%s, _d = _a - *_last; *_last = _a;", address, slot);
    cpu_line(em, "  if (_d - 64u < (1u << 24)) __builtin_prefetch((const char *)_a + 2 * _d, 0, 2); }");
}

/* each 64-byte line of elements [from, to) of `size` bytes at `base` (a pointer expression), to L1 */
static void prefetch_lines(emitter *em, const char *base, const char *from, const char *to, uint32_t size) {
    cpu_line(em, "for (size_t _k = (size_t)(%s) * %uu; _k < (size_t)(%s) * %uu; _k += 64)", from, size, to, size);
    cpu_line(em, "    __builtin_prefetch((const char *)(%s) + _k, 0, 3);", base);
}

/* A GPU kernel stages its tiles by having each thread copy a vector (`*(threadgroup uint4
 * *)(As + ...) = *(device const uint4 *)(A + ...)` in a grid-stride loop over the tile);
 * inside a loop the same in every thread (a GEMM's k0 loop) each copy reads the address
 * of the step before plus a fixed distance, a row of A 64 bytes on, a tile of B rows
 * further down. Neither the hardware prefetchers (up to 64 rows at once) nor a form (the
 * address divides the index) see it: a tracker per copy and value of the loop's index
 * remembers the last address and prefetches two steps ahead (to L2). */
static void chunk_prefetch(wide *w, const ir_expr *load) {
    emitter *em = w->em;
    if (!w->uniform_loops || !w->stride_key) return;
    const ir_expr *p = load->kind == IR_E_DEREF || load->kind == IR_E_INDEX ? load->args[0] : NULL;
    if (!p || p->type->kind != IR_T_PTR || (p->type->space != IR_SPACE_DEVICE && p->type->space != IR_SPACE_CONSTANT))
        return;
    int id = w->prefetch_sites++;
    en_buf_printf(&w->hoisted_decls, "uintptr_t _pfc%d[256] = {0}; /* prefetch: last address per index value */\n", id);
    /* in runs of threads (split_loop) the copies of a run are adjacent: a tracker per line
     * (the half GEMM: 101 -> 106 GFLOP/s, and 87 with none) */
    uint32_t per_line = load->type->size && load->type->size < 64 ? 64 / load->type->size : 1;
    if (w->in_split && per_line > 1) cpu_line(em, "if (_s %% %uu == 0u)", per_line);
    tracked_prefetch(em, cpu_S(em, "&%s", whole_load(em, load)), cpu_S(em, "_pfc%d[(%s) & 255u]", id, w->stride_key));
}

/* a scalar, pointer or vector value of type t for thread l, in its storage form (loads
 * read in place: inline_loads first); NULL for other types */
static const char *thread_value(wide *w, const ir_type *t, const ir_expr *value) {
    emitter *em = w->em;
    if (ir_is_scalar(t) || t->kind == IR_T_PTR) return cpu_to_storage(em, t, wex(w, value, -1));
    if (t->kind != IR_T_VEC) return NULL;
    en_buf b = {0};
    en_buf_printf(&b, "(%s){{", cpu_ctype(em, t));
    for (uint32_t c = 0; c < t->count; c++)
        en_buf_printf(&b, "%s%s", c ? ", " : "", cpu_to_storage(em, t->elem, wex(w, value, (int)c)));
    en_buf_puts(&b, "}}");
    const char *r = cpu_S(em, "%s", b.data);
    en_buf_free(&b);
    return r;
}

/* `T x[N] = {...}`, a struct from its fields: element by element into lvalue lv */
static void thread_aggregate(wide *w, const char *lv, const ir_type *t, const ir_expr *value) {
    emitter *em = w->em;
    if (value->kind != IR_E_AGGREGATE || (t->kind != IR_T_ARRAY && t->kind != IR_T_STRUCT)) {
        wfail(w);
        return;
    }
    for (int i = 0; i < value->arg_count && !w->failed; i++) {
        const ir_type *et = t->kind == IR_T_ARRAY ? t->elem : t->fields[i].type;
        const char *elv = t->kind == IR_T_ARRAY ? cpu_S(em, "%s.a[%d]", lv, i)
                                                : cpu_S(em, "%s.%s", lv, cpu_ident(em, t->fields[i].name));
        const char *v = thread_value(w, et, value->args[i]);
        if (v) cpu_line(em, "%s = %s;", elv, v);
        else thread_aggregate(w, elv, et, value->args[i]);
    }
}

static void thread_assign(wide *w, const ir_expr *place, const ir_expr *value) {
    emitter *em = w->em;
    em->memos.count = 0;
    inline_loads(w, value);
    if (place->kind != IR_E_VAR) /* the place's own address may read memory too */
        for (int i = 0; i < place->arg_count; i++) inline_loads(w, place->args[i]);
    const ir_type *t = place->type;
    const char *lv = wlvalue(w, place);
    if (t->kind == IR_T_VEC && value->type == t && whole_load(em, value)) {
        chunk_prefetch(w, value);
        cpu_line(em, "%s = %s; /* a whole vector */", lv, whole_load(em, value));
    } else if ((t->kind == IR_T_ARRAY || t->kind == IR_T_STRUCT) && ir_is_place(value) && value->kind != IR_E_SWIZZLE) {
        /* a whole array or struct (arrays are structs in C): one C assignment */
        const char *src = whole_load(em, value);
        cpu_line(em, "%s = %s;", lv, src ? src : wlvalue(w, value));
    } else if (value->kind == IR_E_AGGREGATE) {
        thread_aggregate(w, lv, t, value);
    } else {
        const char *v = thread_value(w, t, value);
        if (v) cpu_line(em, "%s = %s;", lv, v);
        else wfail(w);
    }
    em->memos.count = 0;
}

/* staged_stmt's assignment: in the first loop over the threads each thread's value goes
 * to the array, in the second each thread stores its own */
static void staged_assign(wide *w, const ir_stmt *s) {
    emitter *em = w->em;
    const ir_expr *place = s->place;
    em->memos.count = 0;
    if (!w->storing) {
        inline_loads(w, s->value);
        const char *v = thread_value(w, place->type, s->value);
        if (v) cpu_line(em, "%s[l] = %s;", w->staged, v);
        else wfail(w);
    } else {
        for (int i = 0; i < place->arg_count; i++) inline_loads(w, place->args[i]);
        if (w->chk_store_flags) /* checked: the threads the hook let through */
            cpu_line(em, "if (%s[l]) %s = %s[l];", w->chk_store_flags, wlvalue(w, place), w->staged);
        else
            cpu_line(em, "%s = %s[l];", wlvalue(w, place), w->staged);
    }
    em->memos.count = 0;
}

static void thread_atomic(wide *w, const ir_stmt *s) {
    emitter *em = w->em;
    const ir_type *at = s->args[0]->type->elem;
    const ir_type *t = at && at->kind == IR_T_ATOMIC ? at->elem : at;
    if (!t || !(t->kind == IR_T_I32 || t->kind == IR_T_U32 || t->kind == IR_T_F32) ||
        s->intrinsic == IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK) {
        wfail(w);
        return;
    }
    const char *ct = cpu_ctype(em, t);
    em->memos.count = 0;
    for (int k = 0; k < s->arg_count; k++) inline_loads(w, s->args[k]);
    const char *ptr = wex(w, s->args[0], -1);
    const char *v = s->arg_count > 1 ? wex(w, s->args[1], -1) : "0";
    const char *r = "_r";
    OPEN("{ /* %s: %s */", ir_intrinsic_name(s->intrinsic), cpu_source_note(em, s->loc));
    cpu_line(em, "%s *_p = (%s *)(%s);", ct, ct, ptr);
    bool is_float = t->kind == IR_T_F32;
    switch (s->intrinsic) {
    case IR_I_ATOMIC_LOAD: cpu_line(em, "%s _r; __atomic_load(_p, &_r, __ATOMIC_RELAXED);", ct); break;
    case IR_I_ATOMIC_STORE:
        cpu_line(em, "%s _v = %s; __atomic_store(_p, &_v, __ATOMIC_RELAXED);", ct, v);
        r = NULL;
        break;
    case IR_I_ATOMIC_EXCHANGE:
        cpu_line(em, "%s _v = %s, _r; __atomic_exchange(_p, &_v, &_r, __ATOMIC_RELAXED);", ct, v);
        break;
    case IR_I_ATOMIC_FETCH_ADD:
    case IR_I_ATOMIC_FETCH_SUB:
        cpu_atomic_add_line(em, s, t, v);
        break;
    case IR_I_ATOMIC_FETCH_MIN:
    case IR_I_ATOMIC_FETCH_MAX:
        if (is_float) {
            wfail(w);
            break;
        }
        cpu_line(em, "%s _r = enk_atomic_%s_%s(_p, %s);", ct, s->intrinsic == IR_I_ATOMIC_FETCH_MIN ? "min" : "max",
                 cpu_suffix_of(t), v);
        break;
    default: {
        if (is_float) {
            wfail(w);
            break;
        }
        const char *name = s->intrinsic == IR_I_ATOMIC_FETCH_AND ? "and" : s->intrinsic == IR_I_ATOMIC_FETCH_OR ? "or" : "xor";
        cpu_line(em, "%s _r = __atomic_fetch_%s(_p, %s, __ATOMIC_RELAXED);", ct, name, v);
        break;
    }
    }
    if (s->result && r) cpu_line(em, "%s = (%s)%s;", cpu_var_lvalue(em, s->result), cpu_ctype(em, s->result->type), r);
    CLOSE();
    em->memos.count = 0;
}

/* Labels per loop: a loop may be emitted more than once (both versions of a loop over
 * threads, both paths of a lock-step loop), so each emission pushes a fresh id, popped
 * after it; break and continue take the innermost. */
static int loop_push(wide *w, const ir_stmt *loop) {
    emitter *em = w->em;
    int id = cpu_fresh(em);
    EN_PUSH(&em->arena, em->loops, ((loop_entry){.loop = loop, .id = id, .divergent = w->divergent}));
    return id;
}
static void loop_pop(wide *w) { w->em->loops.count--; }
static int loop_index(wide *w, const ir_stmt *loop) {
    emitter *em = w->em;
    for (int i = em->loops.count - 1; i >= 0; i--)
        if (em->loops.items[i].loop == loop) return i;
    wfail(w);
    return -1;
}
static int loop_id(wide *w, const ir_stmt *loop) {
    int i = loop_index(w, loop);
    return i < 0 ? 0 : w->em->loops.items[i].id;
}
/* a break or continue every thread of the set takes together: no per-thread control flow
 * lies between it and its loop (a uniform loop inside a lock-step one, ggml's
 * `for (row = 0; row < NR0; row++)` inside its loop over blocks) */
static bool exit_together(wide *w, const ir_stmt *jump) {
    int i = loop_index(w, jump->target);
    return i >= 0 && w->em->loops.items[i].divergent == w->divergent;
}

typedef struct assign_count {
    const ir_var *v;
    int n;
} assign_count;

static void count_assign(const ir_stmt *s, void *count_ctx) {
    assign_count *c = count_ctx;
    if ((s->kind == IR_S_ASSIGN || s->kind == IR_S_INTRINSIC) && assigns_var(s, c->v)) c->n++;
}

/* the assignments and intrinsic results to v in s and nested in it (its declaration aside) */
EN_INTERNAL int wide_count_assigns(const ir_stmt *s, const ir_var *v) {
    assign_count c = {v, 0};
    ir_stmt_each(s, count_assign, &c);
    return c.n;
}


/* the value of an integer constant, by its type's signedness */
static long long int_const(const ir_expr *k) { return ir_is_signed(k->type) ? (long long)k->c.i : (long long)k->c.u; }

/* e, or v where e is v widened to 32 bits and v is a short or ushort (`convert<int>(j)`) */
static const ir_expr *widened_short(const ir_expr *e) {
    if (e->kind == IR_E_CONVERT && (e->type->kind == IR_T_I32 || e->type->kind == IR_T_U32) &&
        (e->args[0]->type->kind == IR_T_I16 || e->args[0]->type->kind == IR_T_U16))
        return e->args[0];
    return e;
}

/* `for (k = A; k < B; k += C)` with constants A, B, C (at most 64 steps), k a uniform
 * counter assigned only by the latch, no other break or continue: the counter, else NULL.
 * With `narrow`, k may also be a short or ushort, compared and stepped in int
 * (`convert<int>(k) < B`, `k = convert<short>(convert<int>(k) + C)`): exact, as the steps
 * stay within [0, 4096]. */
static const ir_var *counted_loop(wide *w, const ir_stmt *s, long long *from, long long *to, long long *step, bool narrow) {
    emitter *em = w->em;
    int first;
    const ir_expr *head = wide_loop_head(s, &first);
    const ir_stmt *latch = s->latch;
    if (latch && latch->kind == IR_S_BLOCK && latch->stmt_count == 1) latch = latch->stmts[0];
    if (!head || !latch || latch->kind != IR_S_ASSIGN || latch->place->kind != IR_E_VAR) return NULL;
    const ir_var *v = latch->place->var;
    ir_type_kind vk = v->type->kind;
    bool wide_counter = vk == IR_T_U32 || vk == IR_T_I32, short_counter = narrow && (vk == IR_T_U16 || vk == IR_T_I16);
    if (!is_uniform_var(w, v) || !(wide_counter || short_counter)) return NULL;
    const ir_expr *inc = latch->value, *init = em->inits[v->id];
    if (short_counter && inc->kind == IR_E_CONVERT && inc->type == v->type) inc = inc->args[0];
    if (inc->kind != IR_E_BINARY || inc->op != IR_OP_ADD || inc->args[1]->kind != IR_E_CONST || !init || init->kind != IR_E_CONST)
        return NULL;
    const ir_expr *stepped = short_counter ? widened_short(inc->args[0]) : inc->args[0];
    if (stepped->kind != IR_E_VAR || stepped->var != v) return NULL;
    if (head->kind != IR_E_UNARY || head->op != IR_OP_NOT) return NULL;
    const ir_expr *c = head->args[0];
    if (c->kind != IR_E_BINARY || c->op != IR_OP_LT || c->args[1]->kind != IR_E_CONST) return NULL;
    const ir_expr *tested = short_counter ? widened_short(c->args[0]) : c->args[0];
    if (tested->kind != IR_E_VAR || tested->var != v) return NULL;
    *from = int_const(init);
    *to = int_const(c->args[1]);
    *step = int_const(inc->args[1]);
    if (*step <= 0 || *from < 0 || *to > 4096 || (*to - *from) / *step > 64) return NULL;
    if (wide_count_assigns(em->f->body, v) != 1) return NULL;
    for (int i = first; i < s->body->stmt_count; i++)
        if (ir_stmt_jumps_to(s->body->stmts[i], s)) return NULL;
    return v;
}

EN_INTERNAL const ir_var *wide_counted_loop(wide *w, const ir_stmt *s, long long *from, long long *to, long long *step) {
    return counted_loop(w, s, from, to, step, false);
}

/* thread_assign, once for each row of threads when thread_body_rows interleaves rows:
 * each copy in a scope of its own where _y, l and the per-thread locals are its row's */
static void assign_per_row(wide *w, const ir_expr *place, const ir_expr *value) {
    emitter *em = w->em;
    if (!w->rows) {
        thread_assign(w, place, value);
        return;
    }
    int n = w->row_vars.count;
    for (int r = 0; r < w->rows; r++) {
        OPEN("{ const uint32_t _y = _yb + %du; const size_t l = (size_t)_y * _sx + _x; (void)l;", r);
        for (int i = 0; i < n; i++) cpu_info_of(em, w->row_vars.items[i])->cname = w->row_names[r * n + i];
        thread_assign(w, place, value);
        CLOSE();
    }
}

static void thread_stmt(wide *w, const ir_stmt *s) {
    emitter *em = w->em;
    if (!s || w->failed) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) thread_stmt(w, s->stmts[i]);
        break;
    case IR_S_DECL: {
        var_info *vi = cpu_info_of(em, s->var);
        if ((vi->kind == VK_WIDE_EXPR && !vi->cname) || !s->value) break; /* inline at each use */
        if (!w->unrolled) cpu_line(em, "/* %s */", cpu_source_note(em, s->loc));
        ir_expr place = {.kind = IR_E_VAR, .type = s->var->type, .var = s->var, .loc = s->loc};
        assign_per_row(w, &place, s->value);
        break;
    }
    case IR_S_ASSIGN:
        if (!w->unrolled) cpu_line(em, "/* %s */", cpu_source_note(em, s->loc));
        if (w->staged) staged_assign(w, s);
        else assign_per_row(w, s->place, s->value);
        break;
    case IR_S_IF: {
        if (w->assumed && wide_same_value(s->cond, w->assumed)) { /* decided outside the loop (unswitch) */
            thread_stmt(w, w->assumed_true ? s->then_s : s->else_s);
            break;
        }
        em->memos.count = 0;
        inline_loads(w, s->cond);
        const char *c = wex(w, s->cond, -1);
        em->memos.count = 0;
        OPEN("if (%s) { /* %s */", c, cpu_source_note(em, s->loc));
        thread_stmt(w, s->then_s);
        if (s->else_s) {
            ELSE();
            thread_stmt(w, s->else_s);
        }
        CLOSE();
        break;
    }
    case IR_S_LOOP: {
        long long from, to, step;
        const ir_var *counter = w->exact ? NULL : wide_counted_loop(w, s, &from, &to, &step);
        if (counter && w->rows) {
            /* rows interleaved (thread_body_rows): a C loop gcc unrolls whole before it
             * vectorises (asked to), so the text holds one copy per row, not one per row
             * and step (a 16-step k loop on 8 rows: 90 KB of C for gemm.metal, not 130) */
            var_info *vi = cpu_info_of(em, counter);
            const char *saved = vi->cname, *ct = cpu_ctype(em, counter->type);
            vi->cname = cpu_S(em, "_k%d", cpu_fresh(em));
            cpu_line(em, "_Pragma(\"GCC unroll %lld\")", (to - from + step - 1) / step);
            OPEN("for (%s %s = (%s)%lld; %s < (%s)%lld; %s = (%s)(%s + %lld)) { /* %s */", ct, vi->cname, ct, from, vi->cname,
                 ct, to, vi->cname, ct, vi->cname, step, cpu_source_note(em, s->loc));
            w->unrolled++; /* its statements go without their source notes */
            for (int i = 1; i < s->body->stmt_count; i++) thread_stmt(w, s->body->stmts[i]);
            w->unrolled--;
            CLOSE();
            vi->cname = saved;
            break;
        }
        if (counter) {
            /* unrolled here: gcc at -O2 does not, and the loop over threads then vectorises
             * with the accumulator in a register */
            var_info *vi = cpu_info_of(em, counter);
            const char *saved = vi->cname;
            cpu_line(em, "/* %s: unrolled */", cpu_source_note(em, s->loc));
            w->unrolled++; /* the copies' statements go without their source notes */
            for (long long k = from; k < to; k += step) {
                OPEN("{ /* %s = %lld */", counter->name, k);
                vi->cname = cpu_S(em, "((%s)%lld)", cpu_ctype(em, counter->type), k);
                for (int i = 1; i < s->body->stmt_count; i++) thread_stmt(w, s->body->stmts[i]);
                CLOSE();
            }
            w->unrolled--;
            vi->cname = saved;
            break;
        }
        int id = loop_push(w, s);
        /* uniform counters stepped by the latch (loop_in_thread): a private copy per thread */
        const ir_stmt *latch = s->latch;
        int n = latch ? (latch->kind == IR_S_BLOCK ? latch->stmt_count : 1) : 0;
        var_info *priv[16];
        const char *names[16];
        int np = 0;
        OPEN("{");
        for (int i = 0; i < n && np < 16; i++) {
            const ir_stmt *l = latch->kind == IR_S_BLOCK ? latch->stmts[i] : latch;
            if (l->kind != IR_S_ASSIGN || l->place->kind != IR_E_VAR || !is_uniform_var(w, l->place->var)) continue;
            var_info *vi = cpu_info_of(em, l->place->var);
            const char *own = cpu_S(em, "_own%d_%s", id, vi->cname);
            cpu_line(em, "%s %s = %s; /* this thread's copy */", cpu_ctype(em, l->place->var->type), own, vi->cname);
            priv[np] = vi;
            names[np++] = vi->cname;
            vi->cname = own;
        }
        int first;
        const ir_expr *head = wide_loop_head(s, &first);
        if (head && wide_uniform(w, head)) {
            /* a counted loop the same in every thread: unrolled (at -O2 gcc only unrolls
             * when asked), the loop over threads then vectorises across threads */
            em->memos.count = 0;
            inline_loads(w, head);
            const char *c = wex(w, head, -1);
            em->memos.count = 0;
            cpu_line(em, "_Pragma(\"GCC unroll 16\")");
            OPEN("for (; !%s; ) { /* %s */", c, cpu_source_note(em, s->loc));
            for (int i = first; i < s->body->stmt_count; i++) thread_stmt(w, s->body->stmts[i]);
        } else {
            OPEN("for (;;) { /* %s */", cpu_source_note(em, s->loc));
            thread_stmt(w, s->body);
        }
        cpu_line(em, "_cont%d: ;", id);
        thread_stmt(w, s->latch);
        CLOSE();
        cpu_line(em, "_brk%d: ;", id);
        CLOSE();
        loop_pop(w);
        for (int i = 0; i < np; i++) priv[i]->cname = names[i];
        break;
    }
    case IR_S_BREAK: cpu_line(em, "goto _brk%d;", loop_id(w, s->target)); break;
    case IR_S_CONTINUE: cpu_line(em, "goto _cont%d;", loop_id(w, s->target)); break;
    case IR_S_INTRINSIC: thread_atomic(w, s); break;
    default: wfail(w); break;
    }
}

static const ir_expr *strip_u32(const ir_expr *e);
static const char *uniform_value(wide *w, const ir_expr *e);
static void uniform_assigned(wide *w, const ir_stmt *s, var_list *vars);

/* ---- group level ------------------------------------------------------------------------ */
static void group_stmt(wide *w, const ir_stmt *s, wset set);

static bool set_is_all(wset set) { return !set.lo && !set.mask; }
/* all the threads that run here: the whole group, or in an sg_region its SIMD group's */
static bool set_is_whole(wide *w, wset set) {
    return set_is_all(set) || (w->sg_region && set.lo == w->sg_lo && !set.mask);
}

/* ---- indices that move with the column ------------------------------------------------
 * An index `(uint32_t)(a + b)` may wrap, so gcc must treat a load through it as a gather.
 * wform() finds u32 indices of the form B + S * _x (B and S the same along a row of the
 * loop over threads: uniform values, the row _y, constants); the loop is then emitted
 * twice, and where B + S * (last _x) <= UINT32_MAX for every such index and row, the
 * index is `(uint64_t)B + S * _x`, which is the same value and vectorises.
 *
 * Which rows pass is known without testing each: B and S are built of u32 leaves (never
 * negative) by + and *, so their exact integer values grow with _y, and the largest is at
 * the last row. bmax and smax are those values there, computed in 64 bits saturating
 * (enk_sat_add/mul). Where bmax + smax * (last _x) <= UINT32_MAX, no row's exact B + S * _x
 * reaches 2^32, so the wrapping u32 arithmetic gave that exact value in every row (it is
 * exact modulo 2^32 whatever wrapped on the way). A subtraction has no bound: the rows are
 * then tested one by one. */
typedef struct wform {
    bool ok;
    const char *b, *s;       /* C expressions (uint32_t); s NULL: 0 */
    const char *bmax, *smax; /* C expressions (uint64_t): exact values at the last row; NULL: none */
} wform;

static const wform NO_FORM = {false, NULL, NULL, NULL, NULL};

/* a form whose base is the u32 value `b` (a leaf: its bound is itself) and no step */
static wform leaf_wform(wide *w, const char *b) {
    return (wform){true, b, NULL, cpu_S(w->em, "(uint64_t)%s", b), NULL};
}

/* enk_sat_<op>(a, b), or NULL where either bound is unknown */
static const char *bound_of(emitter *em, const char *op, const char *a, const char *b) {
    return a && b ? cpu_S(em, "enk_sat_%s(%s, %s)", op, a, b) : NULL;
}

static wform attr_wform(wide *w, ir_attr a, int d, bool range) {
    emitter *em = w->em;
    const char *y = range ? "0u" : "_y", *ymax = range ? "0u" : "(_sy - 1u)"; /* _y, and at the last row */
    switch (a) {
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP:
        return d == 0 ? (wform){true, "0u", "1u", "(uint64_t)0u", "(uint64_t)1u"}
             : d == 1 ? (wform){true, y, NULL, cpu_S(em, "(uint64_t)%s", ymax), NULL}
                      : (wform){true, "0u", NULL, "(uint64_t)0u", NULL};
    case IR_ATTR_THREAD_POSITION_IN_GRID:
        return d == 0 ? (wform){true, "_g0", "1u", "(uint64_t)_g0", "(uint64_t)1u"}
             : d == 1 ? (wform){true, cpu_S(em, "(_g1 + %s)", y), NULL, cpu_S(em, "((uint64_t)_g1 + %s)", ymax), NULL}
                      : NO_FORM;
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP:
        return (wform){true, range ? "0u" : "(_y * _sx)", "1u",
                       range ? "(uint64_t)0u" : "((uint64_t)(_sy - 1u) * _sx)", "(uint64_t)1u"};
    default: return NO_FORM;
    }
}

/* does e read a variable that a loop inside the statements steps (w->stepped)? */
static bool reads_stepped(wide *w, const ir_expr *e) {
    for (int i = 0; i < w->stepped.count; i++)
        if (wide_expr_reads(e, w->stepped.items[i])) return true;
    return false;
}

static wform wform_of(wide *w, const ir_expr *e, int comp, bool range, int depth) {
    emitter *em = w->em;
    if (depth > 24) return NO_FORM;
    /* a form is computed once per row, before the statements: a counter that a loop among
     * them steps has a different value at each use (`B[k * N + col]` in a k loop) */
    if (depth == 0 && reads_stepped(w, e)) return NO_FORM;
    const ir_type *t = comp >= 0 && e->type->kind == IR_T_VEC ? e->type->elem : e->type;
    if (t->kind != IR_T_U32 && !(e->kind == IR_E_VAR && t->kind == IR_T_U16)) return NO_FORM;
    if (e->kind != IR_E_CONST && e->kind != IR_E_VAR && comp < 0 && wide_uniform(w, e)) /* `K`, `*K`: one value */
        return leaf_wform(w, cpu_S(em, "(uint32_t)%s", uniform_value(w, e)));
    switch (e->kind) {
    case IR_E_CONST: return leaf_wform(w, cpu_S(em, "%lluu", (unsigned long long)(uint32_t)e->c.u));
    case IR_E_VAR: {
        var_info *vi = cpu_info_of(em, e->var);
        if (vi->kind == VK_WIDE_ATTR) return attr_wform(w, e->var->attr, comp < 0 ? 0 : comp, range);
        if (vi->kind == VK_WIDE_EXPR && !vi->cname && e->var->type->kind == IR_T_U32)
            return wform_of(w, em->inits[e->var->id], -1, range, depth + 1);
        if ((vi->kind == VK_SCALAR || vi->kind == VK_UNIFORM) && ir_is_scalar(e->var->type))
            return leaf_wform(w, cpu_S(em, "(uint32_t)%s", vi->cname));
        return NO_FORM;
    }
    case IR_E_SWIZZLE:
        if (e->args[0]->kind == IR_E_VAR && e->swizzle_len == 1)
            return wform_of(w, e->args[0], e->swizzle[0], range, depth + 1);
        return NO_FORM;
    case IR_E_CONVERT: {
        const ir_expr *a = e->args[0];
        if (a->type->kind == IR_T_U32) return wform_of(w, a, comp, range, depth + 1);
        if (a->type->kind == IR_T_U16 && a->kind == IR_E_VAR && a->var->param_kind == IR_PARAM_ATTR)
            return wform_of(w, a, comp, range, depth + 1);
        return NO_FORM;
    }
    case IR_E_BINARY: {
        wform x = wform_of(w, e->args[0], comp, range, depth + 1);
        if (!x.ok) return NO_FORM;
        wform y = wform_of(w, e->args[1], comp, range, depth + 1);
        if (!y.ok) return NO_FORM;
        switch (e->op) {
        case IR_OP_ADD:
            return (wform){true, cpu_S(em, "(uint32_t)(%s + %s)", x.b, y.b),
                           !x.s ? y.s : !y.s ? x.s : cpu_S(em, "(uint32_t)(%s + %s)", x.s, y.s),
                           bound_of(em, "add", x.bmax, y.bmax), !x.s ? y.smax : !y.s ? x.smax : bound_of(em, "add", x.smax, y.smax)};
        case IR_OP_SUB:
            if (y.s) return NO_FORM; /* a negative step: left to the exact form */
            return (wform){true, cpu_S(em, "(uint32_t)(%s - %s)", x.b, y.b), x.s, NULL, NULL}; /* no bound */
        case IR_OP_MUL:
            if (x.s && y.s) return NO_FORM;
            if (y.s) {
                wform tmp = x;
                x = y;
                y = tmp;
            }
            return (wform){true, cpu_S(em, "(uint32_t)(%s * %s)", x.b, y.b), x.s ? cpu_S(em, "(uint32_t)(%s * %s)", x.s, y.b) : NULL,
                           bound_of(em, "mul", x.bmax, y.bmax), x.s ? bound_of(em, "mul", x.smax, y.bmax) : NULL};
        default: return NO_FORM;
        }
    }
    default: return NO_FORM;
    }
}

typedef struct wform_site {
    const ir_expr *index;
    wform f;
    const char *base; /* a device pointer the same for all threads, else NULL (prefetch) */
    size_t elem_size; /* bytes an element of base */
} wform_site;
typedef EN_VEC(wform_site) wform_sites;

/* every index in e (and in the initialisers of inline locals it reads) with a form */
static void collect_forms(wide *w, const ir_expr *e, bool range, wform_sites *sites, int depth) {
    emitter *em = w->em;
    if (!e || depth > 24) return;
    if (e->kind == IR_E_VAR) {
        var_info *vi = cpu_info_of(em, e->var);
        if (vi->kind == VK_WIDE_EXPR && !vi->cname) collect_forms(w, em->inits[e->var->id], range, sites, depth + 1);
        return;
    }
    for (int i = 0; i < e->arg_count; i++) collect_forms(w, e->args[i], range, sites, depth + 1);
    if (e->kind == IR_E_INDEX && e->args[1]->type->kind == IR_T_U32) {
        wform f = wform_of(w, e->args[1], -1, range, 0);
        if (f.ok && f.s) {
            for (int i = 0; i < sites->count; i++)
                if (sites->items[i].index == e->args[1]) return;
            const ir_expr *b = e->args[0];
            const char *base = NULL;
            if (b->type->kind == IR_T_PTR && b->type->space != IR_SPACE_THREADGROUP && b->type->space != IR_SPACE_THREAD &&
                wide_uniform(w, b))
                base = uniform_value(w, b);
            EN_PUSH(&em->arena, *sites, ((wform_site){e->args[1], f, base, e->type->size}));
        }
    }
}

static void collect_stmt_forms(wide *w, const ir_stmt *s, bool range, wform_sites *sites) {
    if (!s) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) collect_stmt_forms(w, s->stmts[i], range, sites);
        break;
    case IR_S_DECL: collect_forms(w, s->value, range, sites, 0); break;
    case IR_S_ASSIGN:
        collect_forms(w, s->place, range, sites, 0);
        collect_forms(w, s->value, range, sites, 0);
        break;
    case IR_S_IF:
        collect_forms(w, s->cond, range, sites, 0);
        collect_stmt_forms(w, s->then_s, range, sites);
        collect_stmt_forms(w, s->else_s, range, sites);
        break;
    case IR_S_LOOP: {
        int was = w->stepped.count;
        uniform_assigned(w, s, &w->stepped);
        collect_stmt_forms(w, s->body, range, sites);
        collect_stmt_forms(w, s->latch, range, sites);
        w->stepped.count = was;
        break;
    }
    case IR_S_INTRINSIC:
        for (int i = 0; i < s->arg_count; i++) collect_forms(w, s->args[i], range, sites, 0);
        break;
    default: break;
    }
}

/* ---- per-thread variables in registers ----------------------------------------------
 * Inside one loop over threads, each per-thread variable of the context block that the
 * statements use is copied into a local first (and back after, when assigned): with
 * -fno-strict-aliasing gcc cannot keep `w_acc[l]` in a register across the loads of the
 * tiles, but it can keep a local. */

static void vars_of_expr(wide *w, const ir_expr *e, var_list *vars) {
    if (!e) return;
    if (e->kind == IR_E_VAR) {
        var_info *vi = cpu_info_of(w->em, e->var);
        if (vi->kind == VK_WIDE_EXPR && !vi->cname) vars_of_expr(w, w->em->inits[e->var->id], vars);
        if (is_matrix_type(e->var->type)) wfail(w); /* per SIMD group, not per thread */
        /* a variable whose address is taken stays in its context slot, where the pointer
         * to it points (a local copy would take the writes through the pointer) */
        if (vi->kind != VK_CONTEXT || e->var->address_taken) return;
        for (int i = 0; i < vars->count; i++)
            if (vars->items[i] == e->var) return;
        EN_PUSH(&w->em->arena, *vars, e->var);
        return;
    }
    for (int i = 0; i < e->arg_count; i++) vars_of_expr(w, e->args[i], vars);
}

static void vars_of_stmt(wide *w, const ir_stmt *s, var_list *vars) {
    if (!s) return;
    ir_expr v = {.kind = IR_E_VAR};
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) vars_of_stmt(w, s->stmts[i], vars);
        break;
    case IR_S_DECL:
        v.var = s->var;
        vars_of_expr(w, &v, vars);
        vars_of_expr(w, s->value, vars);
        break;
    case IR_S_ASSIGN:
        vars_of_expr(w, s->place, vars);
        vars_of_expr(w, s->value, vars);
        break;
    case IR_S_IF:
        vars_of_expr(w, s->cond, vars);
        vars_of_stmt(w, s->then_s, vars);
        vars_of_stmt(w, s->else_s, vars);
        break;
    case IR_S_LOOP:
        vars_of_stmt(w, s->body, vars);
        vars_of_stmt(w, s->latch, vars);
        break;
    case IR_S_INTRINSIC:
        if (s->result) {
            v.var = s->result;
            vars_of_expr(w, &v, vars);
        }
        for (int i = 0; i < s->arg_count; i++) vars_of_expr(w, s->args[i], vars);
        break;
    default: break;
    }
}

/* is v declared by one of the statements (not inside them: a loop's body declares afresh)? */
static bool declared_among(const ir_var *v, const ir_stmt *const *stmts, int count) {
    for (int i = 0; i < count; i++)
        if (stmts[i]->kind == IR_S_DECL && stmts[i]->var == v) return true;
    return false;
}

/* does e index array variable v with an index that is not a constant? */
static bool indexes_variably(const ir_expr *e, const void *v) {
    return e->kind == IR_E_INDEX && e->args[1]->kind != IR_E_CONST && e->args[0]->kind == IR_E_VAR && e->args[0]->var == v;
}

/* An array indexed by a variable stays in its slot: an index out of range (MLX's
 * layer_norm writes thread_x[n..] with n < 0 in threads past the row) then lands in the
 * context block, as in the region emitter, not on this function's stack. */
static bool stays_in_slot(const ir_var *v, const ir_stmt *const *stmts, int count) {
    for (int k = 0; k < count && v->type->kind == IR_T_ARRAY; k++)
        if (ir_stmt_any_expr(stmts[k], indexes_variably, v)) return true;
    return false;
}

/* Is v declared among the statements and read nowhere else (a temporary of a lowered
 * `c ? a : b`)? Then it lives in a local alone. Else: do the statements assign it (so the
 * local goes back to its slot after them)? */
static bool local_only(emitter *em, const ir_var *v, const ir_stmt *const *stmts, int count) {
    return declared_among(v, stmts, count) && !read_outside_all(em->f->body, v, stmts, count);
}
static bool assigned_among(const ir_var *v, const ir_stmt *const *stmts, int count) {
    for (int k = 0; k < count; k++)
        if (assigns_var(stmts[k], v)) return true;
    return false;
}

/* the statements for thread l, with their per-thread variables in locals; a variable
 * declared among them and read nowhere else (a temporary of a lowered `c ? a : b`) lives in
 * the local alone: its slot is neither read nor written */
static void thread_body(wide *w, const ir_stmt *const *stmts, int count) {
    emitter *em = w->em;
    var_list vars = {0};
    for (int i = 0; i < count; i++) vars_of_stmt(w, stmts[i], &vars);
    const char **names = en_alloc(&em->arena, sizeof(char *) * (size_t)(vars.count + 1));
    bool *written = en_alloc(&em->arena, sizeof(bool) * (size_t)(vars.count + 1));
    for (int i = 0; i < vars.count; i++) {
        const ir_var *v = vars.items[i];
        var_info *vi = cpu_info_of(em, v);
        written[i] = false;
        names[i] = vi->cname;
        if (stays_in_slot(v, stmts, count)) continue;
        bool only_here = local_only(em, v, stmts, count);
        written[i] = !only_here && assigned_among(v, stmts, count);
        const char *local = cpu_S(em, "%s_l", vi->cname);
        if (only_here) cpu_line(em, "%s %s; /* read only here */", cpu_ctype(em, v->type), local);
        else cpu_line(em, "%s %s = %s[l];", cpu_ctype(em, v->type), local, vi->cname);
        vi->kind = VK_WIDE_EXPR; /* read and written by this name (not uniform) */
        vi->cname = local;
    }
    if (w->step_copies) { /* blocked_steps: the steps of thread l, one after the other */
        var_info *index = cpu_info_of(em, w->step_index);
        const char *index_was = index->cname;
        for (int step = 0; step < w->step_copies; step++) {
            OPEN("{ /* step %d of %d */", step + 1, w->step_copies);
            index->cname = w->step_forms[step];
            w->unrolled += step > 0; /* the source notes once */
            for (int i = 0; i < count; i++) thread_stmt(w, stmts[i]);
            w->unrolled -= step > 0;
            CLOSE();
        }
        index->cname = index_was;
    } else {
        for (int i = 0; i < count; i++) thread_stmt(w, stmts[i]);
    }
    for (int i = 0; i < vars.count; i++) {
        var_info *vi = cpu_info_of(em, vars.items[i]);
        if (written[i]) cpu_line(em, "%s[l] = %s;", names[i], vi->cname);
        vi->kind = VK_CONTEXT;
        vi->cname = names[i];
    }
}

/* Can the statements run for several rows of threads interleaved, each statement once per
 * row before the next (thread_body_rows)? Straight-line code can, and so can counted loops
 * of it (a C loop, the rows interleaved in its body, which gcc unrolls). Running threads'
 * statements interleaved is one of the schedules Metal allows between barriers; ifs, loops
 * with per-thread counters and atomics keep one row after the other. */
static bool interleavable(wide *w, const ir_stmt *s) {
    long long from, to, step;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (!interleavable(w, s->stmts[i])) return false;
        return true;
    case IR_S_DECL:
    case IR_S_ASSIGN: return !w->staged;
    case IR_S_LOOP:
        if (!wide_counted_loop(w, s, &from, &to, &step)) return false;
        for (int i = 1; i < s->body->stmt_count; i++)
            if (!interleavable(w, s->body->stmts[i])) return false;
        return true;
    default: return false;
    }
}

/* thread_body for `rows` rows of threads from _yb at once, interleaved: a chain of
 * dependent steps per thread (a GEMM's k loop, unrolled) becomes `rows` independent chains
 * side by side, which the core overlaps (one row after the other it did not: its window
 * holds about one row's chain). Each per-thread variable has a local per row. */
static void thread_body_rows(wide *w, const ir_stmt *const *stmts, int count, int rows) {
    emitter *em = w->em;
    var_list vars = {0}, local = {0};
    for (int i = 0; i < count; i++) vars_of_stmt(w, stmts[i], &vars);
    for (int i = 0; i < vars.count; i++)
        if (!stays_in_slot(vars.items[i], stmts, count)) EN_PUSH(&em->arena, local, vars.items[i]);
    int n = local.count;
    cpu_line(em, "/* rows _yb to _yb + %d interleaved, a statement at a time */", rows - 1);
    const char **slot = en_alloc(&em->arena, sizeof(char *) * (size_t)(n + 1));
    const char **names = en_alloc(&em->arena, sizeof(char *) * (size_t)(n * rows + 1));
    bool *written = en_alloc(&em->arena, sizeof(bool) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        const ir_var *v = local.items[i];
        var_info *vi = cpu_info_of(em, v);
        slot[i] = vi->cname;
        bool only_here = local_only(em, v, stmts, count);
        written[i] = !only_here && assigned_among(v, stmts, count);
        for (int r = 0; r < rows; r++) {
            const char *name = names[r * n + i] = cpu_S(em, "%s_l%d", vi->cname, r);
            if (only_here) cpu_line(em, "%s %s; /* read only here */", cpu_ctype(em, v->type), name);
            else cpu_line(em, "%s %s = %s[(size_t)(_yb + %du) * _sx + _x];", cpu_ctype(em, v->type), name, vi->cname, r);
        }
        vi->kind = VK_WIDE_EXPR; /* read and written by its row's name (not uniform) */
    }
    w->rows = rows;
    w->row_vars = local;
    w->row_names = names;
    for (int i = 0; i < count; i++) thread_stmt(w, stmts[i]);
    w->rows = 0;
    for (int i = 0; i < n; i++) {
        var_info *vi = cpu_info_of(em, local.items[i]);
        for (int r = 0; r < rows && written[i]; r++)
            cpu_line(em, "%s[(size_t)(_yb + %du) * _sx + _x] = %s;", slot[i], r, names[r * n + i]);
        vi->kind = VK_CONTEXT;
        vi->cname = slot[i];
    }
}

/* a site's index in 64 bits: B + S * _x, without the terms that are 0 or 1 */
static const char *index_form(emitter *em, const wform_site *site) {
    const char *b = site->f.b, *st = site->f.s ? site->f.s : "0u";
    const char *step = !strcmp(st, "1u") ? "_x" : cpu_S(em, "(uint64_t)%s * _x", st);
    if (!strcmp(b, "0u")) return cpu_S(em, "((uint64_t)%s)", step);
    return cpu_S(em, "((uint64_t)%s + %s)", b, step);
}

/* the sites' 64-bit index forms, for the statements emitted next (cleared after them) */
static void push_index_forms(emitter *em, const wform_sites *sites) {
    for (int i = 0; i < sites->count; i++)
        EN_PUSH(&em->arena, em->wide_index, ((memo_entry){sites->items[i].index, index_form(em, &sites->items[i])}));
}

/* Inside a loop the same in every thread (a GEMM's k0 loop), a row's device loads move
 * by the same distance each step, and the hardware prefetchers miss this pattern (16 rows
 * 4 KiB apart, then a jump). Each row prefetches its load two steps ahead (to L2). Where
 * the loop steps its counter by a constant (`k0 += TILE`: uniform_loop's w->step), the
 * address two steps on is the index with the counter advanced: one address computation
 * and no memory of its own. Otherwise a tracker per row and load remembers the last
 * address of the row's first thread and prefetches as far again beyond it. A prefetch
 * never faults, so an address past the end (the last steps) costs nothing. */
static bool row_prefetching(wide *w, const wform_sites *sites) {
    if (!w->uniform_loops) return false;
    for (int i = 0; i < sites->count; i++)
        if (sites->items[i].base) return true;
    return false;
}

static void row_prefetches(wide *w, const wform_sites *sites, const char *row) {
    emitter *em = w->em;
    if (!row_prefetching(w, sites)) return;
    for (int i = 0; i < sites->count; i++) {
        const wform_site *site = &sites->items[i];
        if (!site->base) continue;
        if (w->step.var) {
            var_info *vi = cpu_info_of(em, w->step.var);
            const char *was = vi->cname;
            vi->cname = w->step.ahead;
            wform ahead = wform_of(w, site->index, -1, false, 0);
            vi->cname = was;
            if (ahead.ok && strcmp(ahead.b, site->f.b)) /* the index moves with the counter */
                cpu_line(em, "__builtin_prefetch((const void *)((uintptr_t)%s + (uint64_t)%s * %zuu), 0, 2);", site->base,
                         ahead.b, site->elem_size);
            continue;
        }
        int id = w->prefetch_sites++;
        en_buf_printf(&w->hoisted_decls, "uintptr_t _pf%d[64] = {0}; /* prefetch: last address per row */\n", id);
        tracked_prefetch(em, cpu_S(em, "&(%s)[(uint64_t)%s]", site->base, site->f.b), cpu_S(em, "_pf%d[%s & 63u]", id, row));
    }
}

enum { ROWS = 8 }; /* rows of threads per pass around a loop inside the loop over threads */

static bool has_atomic(const ir_stmt *s);
static void thread_loop_for(wide *w, wset set, const ir_stmt *const *stmts, int count);

static void split_loop(wide *w, const ir_stmt *const *stmts, int count);
static const ir_expr *widened(const ir_expr *e);

/* the loop over threads for `stmts` (thread_loop_for), ivdep unless they have an atomic */
static void thread_loop(wide *w, wset set, const ir_stmt *const *stmts, int count) {
    bool kernel_atomics = w->has_atomics, atomics = false;
    for (int i = 0; i < count && kernel_atomics; i++) atomics |= has_atomic(stmts[i]);
    w->has_atomics = atomics; /* what no_dependence asks: these statements' atomics */
    emitter *em = w->em;
    bool split = w->split.d && set_is_all(set);
    if (split) split_loop(w, stmts, count);
    thread_loop_for(w, set, stmts, count);
    if (split) CLOSE();
    w->has_atomics = kernel_atomics;
}

/* ---- threads in runs of D ---------------------------------------------------------------
 * A tile copy hands each thread chunks by `c / D` and `c % D` (`for (c = tid; c < 256; c +=
 * 128) { r = c / 4; k = (c % 4) * 8; tile[r][k..k+7] = A[row0 + r][k0 + k..]; }`): per
 * thread, a division, a remainder and a 16-byte copy whose address is no affine function of
 * the thread, so no loop over the threads vectorises it. With c = _ib + l, _ib a multiple
 * of D and the threads a whole number of runs of D, thread l = _q * D + _s has c / D = _ib /
 * D + _q and c % D = _s: a loop over the runs with the D threads of each unrolled, where
 * every c % D is a constant and the run's copies are adjacent (the half GEMM's tile copies:
 * bench/RESULTS.md). Only while every thread is in the loop, whose index cannot wrap there. */

typedef struct split_find {
    wide *w;
    const ir_var *index;
    int d;         /* the D of the expressions so far (0: none yet, -1: two different ones) */
    EN_VEC(const ir_expr *) found;
} split_find;

/* an ir_stmt_any_expr visitor that collects `i / D` and `i % D`: it never stops the walk */
static bool note_split(const ir_expr *e, const void *ctx) {
    split_find *f = (split_find *)(uintptr_t)ctx;
    if (e->kind != IR_E_BINARY || (e->op != IR_OP_DIV && e->op != IR_OP_REM) || !ir_is_integer(e->type)) return false;
    const ir_expr *i = widened(e->args[0]), *k = e->args[1];
    if (i->kind != IR_E_VAR || i->var != f->index || k->kind != IR_E_CONST) return false;
    long long d = int_const(k);
    if (d != 2 && d != 4 && d != 8 && d != 16) return false;
    f->d = f->d == 0 || f->d == d ? (int)d : -1;
    EN_PUSH(&f->w->em->arena, f->found, e);
    return false;
}

/* Sets w->split for the every-thread step of lock-step loop `loop` with index i = base + l
 * when its statements (from `first`) divide i by one D; returns whether it did. */
static bool split_lanes(wide *w, const ir_stmt *loop, int first, const ir_var *index, const char *base) {
    emitter *em = w->em;
    split_find f = {w, index, 0, {0}};
    for (int k = first; k < loop->body->stmt_count; k++) ir_stmt_any_expr(loop->body->stmts[k], note_split, &f);
    if (f.d <= 0) return false;
    w->split.d = f.d;
    w->split.base = base;
    for (int k = 0; k < f.found.count; k++) {
        const ir_expr *e = f.found.items[k];
        const char *form = e->op == IR_OP_DIV ? cpu_S(em, "((%s)(%s / %du + _q))", cpu_ctype(em, e->type), base, f.d)
                                              : cpu_S(em, "((%s)_s)", cpu_ctype(em, e->type));
        EN_PUSH(&em->arena, w->split.forms, ((memo_entry){e, form}));
    }
    return true;
}

/* Opens `if (runs of D) { the loop over runs } else {`: thread_loop closes it after the
 * usual loop over threads. */
static void split_loop(wide *w, const ir_stmt *const *stmts, int count) {
    emitter *em = w->em;
    int d = w->split.d;
    OPEN("if (_n %% %du == 0u && %s %% %du == 0u) { /* threads in runs of %d: i / %d = %s / %d + _q, i %% %d = _s */", d,
         w->split.base, d, d, d, w->split.base, d, d);
    OPEN("for (uint32_t _q = 0; _q < _n / %du; _q++) {", d);
    cpu_line(em, "_Pragma(\"GCC unroll %d\")", d);
    OPEN("for (uint32_t _s = 0; _s < %du; _s++) {", d);
    cpu_line(em, "const size_t l = (size_t)_q * %du + _s;", d);
    cpu_line(em, "const uint32_t _x = (uint32_t)l %% _sx, _y = (uint32_t)l / _sx; (void)_x; (void)_y;");
    for (int k = 0; k < w->split.forms.count; k++) EN_PUSH(&em->arena, em->wide_index, w->split.forms.items[k]);
    w->in_split = true;
    thread_body(w, stmts, count);
    w->in_split = false;
    em->wide_index.count = 0;
    CLOSE();
    CLOSE();
    ELSE();
}

/* The sites' no-wrap tests joined by `join`: B + S * last <= UINT32_MAX at the current row,
 * or, with `bounds`, the same of the exact values at the last row (wform's bmax and smax);
 * NULL there where a site has no bound. */
static const char *no_wrap_test(emitter *em, const wform_sites *sites, const char *last, const char *join, bool bounds) {
    en_buf b = {0};
    for (int i = 0; i < sites->count; i++) {
        const wform *f = &sites->items[i].f;
        if (bounds && (!f->bmax || (f->s && !f->smax))) {
            en_buf_free(&b);
            return NULL;
        }
        if (bounds)
            en_buf_printf(&b, "%s(enk_sat_add(%s, enk_sat_mul(%s, %s)) <= UINT32_MAX)", i ? join : "", f->bmax,
                          f->s ? f->smax : "0u", last);
        else
            en_buf_printf(&b, "%s((uint64_t)%s + (uint64_t)%s * %s <= UINT32_MAX)", i ? join : "", f->b, f->s ? f->s : "0u",
                          last);
    }
    const char *r = cpu_S(em, "%s", b.data ? b.data : "1");
    en_buf_free(&b);
    return r;
}

/* the statements for thread l in their 64-bit index forms (the sites'), under the set's mask */
static void fast_body(wide *w, wset set, const wform_sites *sites, const ir_stmt *const *stmts, int count) {
    emitter *em = w->em;
    if (set.mask) OPEN("if (%s[l]) {", set.mask);
    push_index_forms(em, sites);
    thread_body(w, stmts, count);
    em->wide_index.count = 0;
    if (set.mask) CLOSE();
}

/* the statements for thread l in their exact form (indices wrapping as the kernel's
 * types do), the rarely taken copy: kept short (no unrolling) */
static void exact_body(wide *w, wset set, const ir_stmt *const *stmts, int count) {
    emitter *em = w->em;
    if (set.mask) OPEN("if (%s[l]) {", set.mask);
    w->exact = true;
    thread_body(w, stmts, count);
    w->exact = false;
    if (set.mask) CLOSE();
}

/* the loop over threads for `stmts`, twice when some index has a form: the 64-bit
 * version where no index wraps in any row, the exact one where one does */
static void thread_loop_for(wide *w, wset set, const ir_stmt *const *stmts, int count) {
    emitter *em = w->em;
    bool range = set.lo != NULL;
    wform_sites sites = {0};
    for (int i = 0; i < count; i++) collect_stmt_forms(w, stmts[i], range, &sites);
    if (!sites.count) {
        open_threads(w, set);
        thread_body(w, stmts, count);
        close_threads(w, set);
        return;
    }
    const char *last = range ? cpu_S(em, "((uint64_t)%s - 1u)", set.hi ? set.hi : "_n") : "(uint64_t)(_sx - 1u)";
    if (range) {
        OPEN("if (%s) { /* no index wraps: 64-bit indices, contiguous */", no_wrap_test(em, &sites, last, " && ", false));
        no_dependence(w);
        OPEN("for (size_t l = %s; l < %s; l++) {", set.lo, set.hi);
        cpu_line(em, "const uint32_t _x = l, _y = 0; (void)_x; (void)_y;");
        fast_body(w, set, &sites, stmts, count);
        CLOSE();
        ELSE();
        OPEN("for (size_t l = %s; l < %s; l++) {", set.lo, set.hi);
        cpu_line(em, "const uint32_t _x = l, _y = 0; (void)_x; (void)_y;");
        exact_body(w, set, stmts, count);
        CLOSE();
        CLOSE();
        return;
    }
    /* The rows' test comes first, in a loop of its own: inside the loop over rows it was a
     * branch per row beside the copies (a tiled GEMM's tile loads: 16 rows, two loads
     * each), and it kept registers from them. Where some row's index wraps, every row
     * takes the exact form. Every row's test at once, from the bounds at the last row
     * (wform), where each index has them; else each row's, joined by & (no branch a row). */
    OPEN("{");
    const char *bounded = no_wrap_test(em, &sites, last, " & ", true);
    if (bounded) cpu_line(em, "bool _rows_ok = %s; /* at the last row, the largest */", bounded);
    else
        cpu_line(em, "bool _rows_ok = true; for (uint32_t _y = 0; _y < _sy; _y++) _rows_ok &= %s;",
                 no_wrap_test(em, &sites, last, " & ", false));
    OPEN("if (_rows_ok) { /* no index of any row wraps: 64-bit indices, contiguous */");
    bool has_loop = false;
    for (int i = 0; i < count; i++) has_loop |= stmts[i]->kind == IR_S_LOOP;
    bool blocked = !set.mask && has_loop;
    if (blocked) {
        /* A loop inside the loop over threads (a GEMM's k loop) is a chain of dependent
         * steps per thread: several rows of threads in one pass give the core as many
         * independent chains to overlap (and the loads they share are read once). */
        cpu_line(em, "uint32_t _yb = 0; /* %d rows at a time, then the rows left one at a time */", ROWS);
        OPEN("for (; _yb + %du <= _sy; _yb += %du) {", ROWS, ROWS);
        /* _yb + r cannot wrap (_sy <= 1024): said to gcc, each row's address in a tile is
         * one base plus a constant (it kept a register per row, and spilled) */
        cpu_line(em, "if (_yb > 1024u) __builtin_unreachable();");
        if (row_prefetching(w, &sites)) {
            OPEN("for (uint32_t _y = _yb; _y < _yb + %du; _y++) {", ROWS);
            row_prefetches(w, &sites, "_y");
            CLOSE();
        }
        no_dependence(w);
        OPEN("for (uint32_t _x = 0; _x < _sx; _x++) {");
        bool interleaved = true;
        for (int i = 0; i < count; i++) interleaved = interleaved && interleavable(w, stmts[i]);
        if (interleaved) {
            push_index_forms(em, &sites);
            thread_body_rows(w, stmts, count, ROWS);
            em->wide_index.count = 0;
        } else {
            for (int r = 0; r < ROWS; r++) {
                OPEN("{");
                cpu_line(em, "const uint32_t _y = _yb + %du;", r);
                cpu_line(em, "const size_t l = (size_t)_y * _sx + _x;");
                push_index_forms(em, &sites);
                thread_body(w, stmts, count);
                em->wide_index.count = 0;
                CLOSE();
            }
        }
        CLOSE();
        CLOSE();
    }
    OPEN("for (uint32_t _y = %s; _y < _sy; _y++) {", blocked ? "_yb" : "0");
    row_prefetches(w, &sites, "_y");
    no_dependence(w);
    OPEN("for (uint32_t _x = 0; _x < _sx; _x++) {");
    cpu_line(em, "const size_t l = (size_t)_y * _sx + _x; /* 64-bit: no wrap, so w_x[l] is affine */");
    fast_body(w, set, &sites, stmts, count);
    CLOSE();
    CLOSE();
    ELSE();
    OPEN("for (uint32_t _y = 0; _y < _sy; _y++) for (uint32_t _x = 0; _x < _sx; _x++) {");
    cpu_line(em, "const size_t l = (size_t)_y * _sx + _x;");
    exact_body(w, set, stmts, count);
    CLOSE();
    CLOSE();
    CLOSE();
}

/* `X < U` (or <=, or U > X, U >= X) where X is the linear thread index and U uniform:
 * the thread range [lo, min(hi, U)) computed once (in 64 bits: U + 1 may pass 2^32, and
 * then every thread below hi is in). Returns the C name of the new upper end, or NULL. */
static const char *range_bound(wide *w, const ir_expr *c, const char *lo, const char *hi, const char **new_lo) {
    emitter *em = w->em;
    if (c->kind != IR_E_BINARY) return NULL;
    const ir_expr *x = c->args[0], *u = c->args[1];
    ir_op op = c->op;
    if (op == IR_OP_GT || op == IR_OP_GE) {
        const ir_expr *t = x;
        x = u;
        u = t;
        op = op == IR_OP_GT ? IR_OP_LT : IR_OP_LE;
    }
    if (op == IR_OP_EQ && strip_u32(u)->kind == IR_E_VAR && strip_u32(u)->var->param_kind == IR_PARAM_ATTR) {
        const ir_expr *t = x; /* U == X */
        x = u;
        u = t;
    }
    if (op != IR_OP_LT && op != IR_OP_LE && op != IR_OP_EQ) return NULL;
    if (x->type->kind != IR_T_U32 || u->type->kind != IR_T_U32) return NULL;
    x = strip_u32(x);
    if (x->kind != IR_E_VAR || x->var->param_kind != IR_PARAM_ATTR || x->var->type->kind == IR_T_VEC) return NULL;
    ir_attr a = x->var->attr;
    if (a != IR_ATTR_THREAD_POSITION_IN_THREADGROUP && a != IR_ATTR_THREAD_INDEX_IN_THREADGROUP) return NULL;
    if (!wide_uniform(w, u)) return NULL;
    const char *uv = uniform_value(w, u);
    int id = cpu_fresh(em);
    cpu_line(em, "const uint64_t _u%d = (uint64_t)(%s)%s;", id, uv, op == IR_OP_LT ? "" : " + 1u");
    cpu_line(em, "const uint32_t _r%d = _u%d < (uint64_t)%s ? (uint32_t)_u%d : %s;", id, id, hi, id, hi);
    *new_lo = lo;
    if (op == IR_OP_EQ) { /* [U, U + 1), empty when U is past the end */
        cpu_line(em, "const uint32_t _l%d = _u%d - 1u > (uint64_t)%s ? (uint32_t)(_u%d - 1u) : %s;", id, id, lo, id, lo);
        *new_lo = cpu_S(em, "_l%d", id);
    }
    w->needs_one_d = true; /* in a range, _x is l: 1-D groups */
    return cpu_S(em, "_r%d", id);
}

/* ---- unswitching ---------------------------------------------------------------------
 * A test the same in every thread inside a loop over threads (ggml's `pmask ? slope *
 * pmask[i] : 0.0f`, lowered to an if because the load may not run) keeps gcc from
 * vectorising the loop. The loop is emitted twice under one test outside it instead, each
 * copy with the branch that test takes. Only tests without loads, of values no statement
 * of the loop assigns, so the test has one value for the whole loop. */
typedef struct invariant_ctx {
    const ir_stmt *const *stmts;
    int count;
} invariant_ctx;

static bool varies_in(const ir_expr *e, const void *ctx) {
    const invariant_ctx *c = ctx;
    if (e->kind == IR_E_CALL || (ir_is_place(e) && cpu_needs_access(e))) return true;
    if (e->kind != IR_E_VAR) return false;
    for (int i = 0; i < c->count; i++)
        if (assigns_var(c->stmts[i], e->var)) return true;
    return false;
}

typedef struct test_search {
    wide *w;
    invariant_ctx in;
    const ir_expr *found;
} test_search;

static bool invariant_if(const ir_stmt *s, const void *ctx) {
    test_search *t = (test_search *)(uintptr_t)ctx; /* a search that records what it finds */
    if (s->kind != IR_S_IF || !wide_uniform(t->w, s->cond) || ir_expr_any(s->cond, varies_in, &t->in)) return false;
    t->found = s->cond;
    return true;
}

static const ir_expr *loop_invariant_test(wide *w, const ir_stmt *const *stmts, int count) {
    test_search t = {w, {stmts, count}, NULL};
    for (int i = 0; i < count && !t.found; i++) ir_stmt_any_in(stmts[i], invariant_if, &t);
    return t.found;
}

static void flush_threads(wide *w) {
    emitter *em = w->em;
    if (!w->batch.count) return;
    wset set = w->batch_set;
    w->batch_count_was = w->batch.count;
    w->batch.count = 0;
    bool runs = false; /* declarations without a value run nothing */
    for (int i = 0; i < w->batch_count_was && !runs; i++)
        runs = w->batch.items[i]->kind != IR_S_DECL || w->batch.items[i]->value;
    if (!runs) return;
    /* one divergent if on the thread index: a narrower range instead of a test per thread */
    const ir_stmt *only = w->batch.items[0];
    if (only->kind == IR_S_IF && !only->else_s && !set.mask &&
        !wide_uniform(w, only->cond) && w->batch_count_was == 1) {
        const char *lo = set.lo ? set.lo : "0u", *hi = set.lo ? set.hi : "_n";
        cpu_line(em, "/* %s */", cpu_source_note(em, only->loc));
        const char *new_lo = lo;
        const char *r = range_bound(w, only->cond, lo, hi, &new_lo);
        if (r) {
            wset narrow = {new_lo, r, NULL};
            thread_loop(w, narrow, (const ir_stmt *const[]){only->then_s}, 1);
            return;
        }
    }
    const ir_expr *test = w->assumed ? NULL : loop_invariant_test(w, w->batch.items, w->batch_count_was);
    if (!test) {
        thread_loop(w, set, w->batch.items, w->batch_count_was);
        return;
    }
    OPEN("if (%s) { /* the same in every thread, taken out of the loop over threads: %s */", uniform_value(w, test),
         cpu_source_note(em, test->loc));
    w->assumed = test;
    w->assumed_true = true;
    thread_loop(w, set, w->batch.items, w->batch_count_was);
    ELSE();
    w->assumed_true = false;
    thread_loop(w, set, w->batch.items, w->batch_count_was);
    w->assumed = NULL;
    CLOSE();
}


static bool loop_uniform(wide *w, const ir_stmt *s);
static void uniform_loop(wide *w, const ir_stmt *loop, wset set);

/* ---- simdgroup matrices ------------------------------------------------------------------
 * A simdgroup_matrix is the same in every thread of its SIMD group, so wide mode keeps each
 * one once per SIMD group, its 64 elements in row-major order as floats (half and bfloat
 * values are exact in float; a result of those types is rounded where it is made):
 * `simdgroup_float8x8 acc[4][4]` is `float w_acc[32][16][64]`, matrix [i][j] of SIMD group
 * sg at w_acc[sg][i * 4 + j]. Consecutive matrix statements share one loop over the SIMD
 * groups, with l its first thread: the per-thread values they read (addresses, strides)
 * are uniform over the SIMD group, as Metal requires, so that thread's are the group's.
 * A load or store is a loop over 8 rows of 8 elements (vector moves, conversions from half
 * included); a product is enk_mat_mul, 512 fused multiply-adds in straight vector code. */

/* the storage of matrix variable v (declared on first use, so temporaries whose result
 * goes straight into their destination take no space) */
static const char *matrix_var(wide *w, const ir_var *v) {
    emitter *em = w->em;
    var_info *vi = cpu_info_of(em, v);
    for (int i = 0; i < w->matrices.count; i++)
        if (w->matrices.items[i] == v) return vi->cname;
    int n = 1;
    for (const ir_type *t = v->type; t->kind == IR_T_ARRAY; t = t->elem) n *= (int)t->count;
    vi->cname = cpu_S(em, "w_%s", vi->cname);
    EN_PUSH(&em->arena, w->matrices, v);
    /* one matrix more per SIMD group than it uses: SIMD groups a multiple of 4 KiB apart
     * would make each one's loads wait on the stores of the one before (4K aliasing) */
    en_buf_printf(w->fields, "    _Alignas(64) float %s[%d][%d + 1][64]; /* wide mode: %s per SIMD group, row-major */\n",
                  vi->cname, CPU_MAX_THREADS / 32, n, ir_type_name(v->type, &em->arena));
    en_buf_printf(&w->hoisted_decls, "float (*__restrict %s)[%d + 1][64] = _ctx->%s;\n", vi->cname, n, vi->cname);
    return vi->cname;
}

/* the flat position of a matrix place among its variable's matrices, and the variable */
static const char *matrix_slot(wide *w, const ir_expr *e, const ir_var **var) {
    emitter *em = w->em;
    if (e->kind == IR_E_VAR) {
        *var = e->var;
        return "0";
    }
    if (e->kind != IR_E_INDEX || e->args[0]->type->kind != IR_T_ARRAY) {
        wfail(w);
        return "0";
    }
    const char *outer = matrix_slot(w, e->args[0], var);
    em->memos.count = 0;
    inline_loads(w, e->args[1]);
    const char *k = wex(w, e->args[1], -1);
    em->memos.count = 0;
    uint32_t n = e->args[0]->type->count;
    if (!strcmp(outer, "0")) return cpu_S(em, "(size_t)(%s)", k);
    return cpu_S(em, "(%s * %uu + (size_t)(%s))", outer, n, k);
}

/* a matrix place of SIMD group _sg: a float[64], row-major */
static const char *matrix_place(wide *w, const ir_expr *e) {
    const ir_var *v = NULL;
    const char *slot = matrix_slot(w, e, &v);
    if (w->failed || !v || v->storage != IR_VAR_LOCAL || v->param_kind != IR_PARAM_NONE) {
        wfail(w);
        return "NULL";
    }
    return cpu_S(w->em, "%s[_sg][%s]", matrix_var(w, v), slot);
}

static const char *matrix_value(wide *w, const ir_expr *e) {
    if (!ir_is_place(e) || e->type->kind != IR_T_SIMD_MATRIX) {
        wfail(w);
        return "NULL";
    }
    return matrix_place(w, e);
}

/* a per-thread or uniform argument, read for thread l */
static const char *matrix_arg(wide *w, const ir_expr *e, int comp) {
    w->em->memos.count = 0;
    inline_loads(w, e);
    const char *r = wex(w, e, comp);
    w->em->memos.count = 0;
    return r;
}

/* pointer, elements per row, origin and transpose of a load or store (args from `first`) */
static void matrix_addressing(wide *w, const ir_stmt *s, int first) {
    emitter *em = w->em;
    const ir_expr *ptr = s->args[first];
    const char *p = matrix_arg(w, ptr, -1);
    const char *epr = s->arg_count > first + 1 ? matrix_arg(w, s->args[first + 1], -1) : "8";
    const ir_expr *origin = s->arg_count > first + 2 ? s->args[first + 2] : NULL;
    bool vec = origin && origin->type->kind == IR_T_VEC;
    const char *ox = origin ? matrix_arg(w, origin, vec ? 0 : -1) : "0";
    const char *oy = vec ? matrix_arg(w, origin, 1) : "0";
    const char *tr = s->arg_count > first + 3 ? matrix_arg(w, s->args[first + 3], -1) : "false";
    cpu_line(em, "%s _p = %s;", cpu_ctype(em, ptr->type), p);
    cpu_line(em, "const uint64_t _epr = (uint64_t)(%s), _ox = (uint64_t)(%s), _oy = (uint64_t)(%s);", epr, ox, oy);
    cpu_line(em, "const bool _tr = %s;", tr);
}

/* element (r, c) of the matrix at _p, as stored and transposed */
static const char *const MATRIX_ELEMENT[2] = {"_p[(_oy + r) * _epr + _ox + c]", "_p[(_oy + c) * _epr + _ox + r]"};

/* the result of an operation rounded to its element type (half, bfloat) */
static void matrix_round(wide *w, const ir_type *mt, const char *m) {
    emitter *em = w->em;
    const ir_type *et = mt->elem;
    if (et->kind == IR_T_F32) return;
    cpu_line(em, "for (int _e = 0; _e < 64; _e++) %s[_e] = %s; /* rounded to %s */", m,
             cpu_from_storage(em, et, cpu_to_storage(em, et, cpu_S(em, "%s[_e]", m))), ir_type_name(et, &em->arena));
}

/* does `next` only move op's result (a temporary) into its destination? */
static bool result_moves_to(wide *w, const ir_stmt *op, const ir_stmt *next) {
    const ir_var *t = op->result;
    if (!t || !next || next->kind != IR_S_ASSIGN || next->value->kind != IR_E_VAR || next->value->var != t) return false;
    if (next->place->type != t->type) return false;
    const ir_stmt *body = w->em->f->body;
    return wide_count_assigns(body, t) == 1 && !var_read_outside(body, t, next);
}

/* one matrix statement for SIMD group _sg; returns how many statements it took */
static int matrix_one(wide *w, const ir_stmt *s, const ir_stmt *next) {
    emitter *em = w->em;
    if (s->kind == IR_S_DECL || s->kind == IR_S_ASSIGN) {
        const ir_expr *value = s->value;
        if (!value) return 1; /* a declaration: its storage comes with its first use */
        ir_expr var = {.kind = IR_E_VAR, .type = s->kind == IR_S_DECL ? s->var->type : NULL, .var = s->var};
        const ir_expr *place = s->kind == IR_S_DECL ? &var : s->place;
        if (place->type->kind != IR_T_SIMD_MATRIX || value->type != place->type) {
            wfail(w);
            return 1;
        }
        if (!w->unrolled) cpu_line(em, "/* %s */", cpu_source_note(em, s->loc));
        cpu_line(em, "memcpy(%s, %s, 64 * sizeof(float));", matrix_place(w, place), matrix_value(w, value));
        return 1;
    }
    bool fused = result_moves_to(w, s, next);
    const char *dst = NULL;
    const ir_type *rt = s->result ? s->result->type : NULL;
    if (s->result) {
        ir_expr var = {.kind = IR_E_VAR, .type = s->result->type, .var = s->result};
        dst = fused ? matrix_place(w, next->place) : matrix_place(w, &var);
    }
    OPEN("{ /* %s: %s */", ir_intrinsic_name(s->intrinsic), cpu_source_note(em, s->loc));
    switch (s->intrinsic) {
    case IR_I_MATRIX_FILL:
        if (!dst) break;
        cpu_line(em, "const float _v = (float)(%s);", matrix_arg(w, s->args[0], -1));
        cpu_line(em, "for (int _e = 0; _e < 64; _e++) %s[_e] = _v;", dst);
        matrix_round(w, rt, dst);
        break;
    case IR_I_MATRIX_LOAD: {
        if (!dst) break;
        const ir_type *et = s->args[0]->type->elem;
        matrix_addressing(w, s, 0);
        cpu_line(em, "float *_m = %s;", dst);
        /* two copies: the test outside the loops, so each row is a vector move */
        if (et->kind == IR_T_F16)
            cpu_line(em, "if (!_tr) _Pragma(\"GCC unroll 8\") for (int r = 0; r < 8; r++) enk_h2f_8(&_m[r * 8], &_p[(_oy + r) * _epr + _ox]);");
        else
            cpu_line(em, "if (!_tr) _Pragma(\"GCC unroll 8\") for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) _m[r * 8 + c] = %s;",
                     cpu_from_storage(em, et, MATRIX_ELEMENT[0]));
        cpu_line(em, "else for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) _m[r * 8 + c] = %s;",
                 cpu_from_storage(em, et, MATRIX_ELEMENT[1]));
        if (et != rt->elem) matrix_round(w, rt, "_m"); /* else exact already */
        break;
    }
    case IR_I_MATRIX_STORE: {
        const ir_type *et = s->args[1]->type->elem;
        cpu_line(em, "const float *_m = %s;", matrix_value(w, s->args[0]));
        matrix_addressing(w, s, 1);
        const char *v = cpu_to_storage(em, et, "_m[r * 8 + c]");
        if (et->kind == IR_T_F16)
            cpu_line(em, "if (!_tr) _Pragma(\"GCC unroll 8\") for (int r = 0; r < 8; r++) enk_f2h_8(&_p[(_oy + r) * _epr + _ox], &_m[r * 8]);");
        else
            cpu_line(em, "if (!_tr) _Pragma(\"GCC unroll 8\") for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) %s = %s;", MATRIX_ELEMENT[0], v);
        cpu_line(em, "else for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) %s = %s;", MATRIX_ELEMENT[1], v);
        break;
    }
    case IR_I_MATRIX_MULTIPLY:
    case IR_I_MATRIX_MULTIPLY_ACCUMULATE: {
        if (!dst) break;
        const char *a = matrix_value(w, s->args[0]), *b = matrix_value(w, s->args[1]);
        const char *c = s->intrinsic == IR_I_MATRIX_MULTIPLY_ACCUMULATE && s->arg_count > 2 ? matrix_value(w, s->args[2]) : "NULL";
        cpu_line(em, "enk_mat_mul(%s, %s, %s, %s);", dst, a, b, c);
        matrix_round(w, rt, dst);
        break;
    }
    default: wfail(w); break;
    }
    CLOSE();
    return fused ? 2 : 1;
}

/* ---- loops of products as blocks ------------------------------------------------------
 * A GEMM's fragment step is a loop (or two) of simdgroup products, each step `d = a x b +
 * d` on elements of matrix arrays that the counters pick: MLX's and the bench's `for i:
 * for j: mma(acc[i][j], a[i], b[j], acc[i][j])`, llama.cpp's `for i < 8: mma(mc[i],
 * mb[i/4], ma[i%4], mc[i])`. When every step writes a matrix of its own that no step reads
 * as a or b, the steps are independent and may run in any order; grouped by their a (the
 * distinct a's a_0..a_ni-1, each with the same b's b_0..b_nj-1), they are one
 * enk_mat_block: with AVX-512 four b's stay in registers for every a, and four rows of d
 * at a time are eight chains of fused multiply-adds (pairs of b's, then single ones, where
 * fewer are left). Half GEMM, one core: 326 (one product at a time) -> 269 (pairs) -> 208
 * us (blocks) a threadgroup. */

/* The loop nest of products: one counted loop, or a counted loop whose body is only a
 * counted loop (and its counter's declaration), around `t = mma(a, b, c); d = t`. */
typedef struct product_nest {
    int depth;               /* 1 or 2 */
    const ir_var *ctr[2];    /* the counters, outer first */
    long long from[2], step[2];
    int count[2];            /* each loop's steps */
    const ir_stmt *op, *move;
} product_nest;

/* The inner loop of an i loop whose body (after its head) is only `j = constant` and a j
 * loop: that loop, else NULL. */
static const ir_stmt *only_inner_loop(wide *w, const ir_stmt *loop) {
    int first;
    if (!wide_loop_head(loop, &first)) return NULL;
    const ir_stmt *inner = NULL;
    for (int k = first; k < loop->body->stmt_count; k++) {
        const ir_stmt *s = loop->body->stmts[k];
        if (s->kind == IR_S_LOOP && !inner) inner = s;
        else if (!(s->kind == IR_S_DECL && s->value && s->value->kind == IR_E_CONST && is_uniform_var(w, s->var))) return NULL;
    }
    return inner;
}

/* a counted loop's counter and range into level `level` of n; false if it is not one */
static bool nest_level(wide *w, const ir_stmt *loop, product_nest *n, int level) {
    long long to;
    n->ctr[level] = counted_loop(w, loop, &n->from[level], &to, &n->step[level], true);
    n->count[level] = n->ctr[level] ? (int)((to - n->from[level] + n->step[level] - 1) / n->step[level]) : 0;
    return n->count[level] > 0;
}

static bool product_nest_of(wide *w, const ir_stmt *loop, product_nest *n) {
    const ir_stmt *inner = only_inner_loop(w, loop);
    n->depth = inner ? 2 : 1;
    if (!nest_level(w, loop, n, 0) || (inner && !nest_level(w, inner, n, 1))) return false;
    const ir_stmt *body_loop = inner ? inner : loop;
    int first;
    if (!wide_loop_head(body_loop, &first)) return false;
    const ir_stmt *const *body = (const ir_stmt *const *)body_loop->body->stmts;
    int count = body_loop->body->stmt_count, k = first;
    if (k < count && body[k]->kind == IR_S_DECL && !body[k]->value) k++; /* the temporary's declaration */
    if (count - k != 2 || body[k]->kind != IR_S_INTRINSIC) return false;
    const ir_stmt *s = body[k];
    if (s->intrinsic != IR_I_MATRIX_MULTIPLY_ACCUMULATE && s->intrinsic != IR_I_MATRIX_MULTIPLY) return false;
    if (!s->result || s->result->type->elem->kind != IR_T_F32 || !result_moves_to(w, s, body[k + 1])) return false;
    if (s->intrinsic == IR_I_MATRIX_MULTIPLY_ACCUMULATE && s->arg_count > 2 && !wide_same_value(s->args[2], body[k + 1]->place))
        return false;
    n->op = s;
    n->move = body[k + 1];
    return (n->depth == 1 ? n->count[0] : n->count[0] * n->count[1]) <= 64;
}

/* does e read a counter of n? */
static bool reads_counter(const product_nest *n, const ir_expr *e) {
    for (int c = 0; c < n->depth; c++)
        if (wide_expr_reads(e, n->ctr[c])) return true;
    return false;
}

/* a step's counters, for ir_eval_int: the nest and the counters' values there */
typedef struct step_at {
    const product_nest *n;
    const long long *k;
} step_at;

static bool counter_value(const void *ctx, const ir_var *v, int64_t *out) {
    const step_at *at = ctx;
    for (int c = 0; c < at->n->depth; c++)
        if (v == at->n->ctr[c]) return *out = at->k[c], true;
    return false;
}

/* Which matrix a step's operand is: its variable, and the index at each level of the
 * arrays over it, as the emitted C computes it (ir_eval_int; an index no counter moves is
 * the same in every step: INT64_MIN). */
typedef struct matrix_key {
    const ir_var *root;
    int levels;
    int64_t at[4];
} matrix_key;

static bool matrix_key_of(const product_nest *n, const long long *k, const ir_expr *e, matrix_key *key) {
    key->levels = 0;
    for (; e->kind == IR_E_INDEX; e = e->args[0]) {
        if (key->levels == 4 || e->args[0]->type->kind != IR_T_ARRAY) return false;
        int64_t *at = &key->at[key->levels++];
        if (!reads_counter(n, e->args[1])) *at = INT64_MIN;
        else if (!ir_eval_int(e->args[1], counter_value, &(step_at){n, k}, at)) return false;
    }
    key->root = e->kind == IR_E_VAR ? e->var : NULL;
    return key->root != NULL;
}

static bool same_key(const matrix_key *x, const matrix_key *y) {
    return x->root == y->root && x->levels == y->levels && !memcmp(x->at, y->at, sizeof(int64_t) * (size_t)x->levels);
}

/* the counters' values in step s of the nest (the inner loop's steps run fastest) */
static void step_counters(const product_nest *n, int s, long long *k) {
    k[0] = n->from[0] + (n->depth == 1 ? s : s / n->count[1]) * n->step[0];
    k[1] = n->depth == 2 ? n->from[1] + s % n->count[1] * n->step[1] : 0;
}

/* emits the nest as one enk_mat_block, true; else nothing, false */
static bool block_products(wide *w, const ir_stmt *loop) {
    emitter *em = w->em;
    product_nest n = {0};
    if (!product_nest_of(w, loop, &n)) return false;
    const ir_expr *d = n.move->place, *a = n.op->args[0], *b = n.op->args[1];
    int steps = n.depth == 1 ? n.count[0] : n.count[0] * n.count[1];
    matrix_key dk[64], ak[64], bk[64];
    int group[64], ni = 0, first_of[64]; /* each step's a among the distinct ones */
    for (int s = 0; s < steps; s++) {
        long long k[2];
        step_counters(&n, s, k);
        if (!matrix_key_of(&n, k, d, &dk[s]) || !matrix_key_of(&n, k, a, &ak[s]) || !matrix_key_of(&n, k, b, &bk[s]))
            return false;
        if (dk[s].root == ak[s].root || dk[s].root == bk[s].root) return false; /* d is never an operand */
        for (int t = 0; t < s; t++)
            if (same_key(&dk[t], &dk[s])) return false; /* every step its own d */
        group[s] = -1;
        for (int g = 0; g < ni && group[s] < 0; g++)
            if (same_key(&ak[first_of[g]], &ak[s])) group[s] = g;
        if (group[s] < 0) first_of[group[s] = ni++] = s;
    }
    /* each a with the b's of the first, in the first's order (steps are independent) */
    int first_b[64], nj = 0, order[64];
    for (int s = 0; s < steps; s++)
        if (group[s] == 0) first_b[nj++] = s;
    if (nj < 2 || ni * nj != steps) return false;
    for (int g = 0; g < ni; g++)
        for (int y = 0; y < nj; y++) {
            int hits = 0;
            for (int s = 0; s < steps; s++)
                if (group[s] == g && same_key(&bk[s], &bk[first_b[y]])) order[g * nj + y] = s, hits++;
            if (hits != 1) return false;
        }
    var_info *vc[2] = {cpu_info_of(em, n.ctr[0]), n.depth == 2 ? cpu_info_of(em, n.ctr[1]) : NULL};
    const char *saved[2] = {vc[0]->cname, vc[1] ? vc[1]->cname : NULL};
    const char *rows[64]; /* d's row for each a, in the C */
    en_buf ds = {0}, as = {0}, bs = {0};
    for (int x = 0; x < ni * nj; x++) {
        long long k[2];
        step_counters(&n, order[x], k);
        for (int c = 0; c < n.depth; c++) vc[c]->cname = cpu_S(em, "((%s)%lld)", cpu_ctype(em, n.ctr[c]->type), k[c]);
        en_buf_printf(&ds, "%s%s", x % nj ? ", " : "", matrix_place(w, d));
        if (x % nj == nj - 1) {
            rows[x / nj] = cpu_S(em, "%s", ds.data ? ds.data : "");
            ds.len = 0;
        }
        if (x % nj == 0) en_buf_printf(&as, "%s%s", x ? ", " : "", matrix_value(w, a));
        if (x < nj) en_buf_printf(&bs, "%s%s", x ? ", " : "", matrix_value(w, b));
    }
    bool acc = n.op->intrinsic == IR_I_MATRIX_MULTIPLY_ACCUMULATE && n.op->arg_count > 2;
    OPEN("{ /* %s%s: the %d x %d products as one block */", cpu_source_note(em, loop->loc),
         n.depth == 2 ? " and the loop inside" : "", ni, nj);
    cpu_line(em, "enk_mat_block((float *const[]){ /* d: a row for each a */");
    for (int g = 0; g < ni; g++) cpu_line(em, "                  %s%s", rows[g], g + 1 < ni ? "," : "},");
    cpu_line(em, "              (const float *const[]){%s}, /* a */", as.data);
    cpu_line(em, "              (const float *const[]){%s}, /* b */", bs.data);
    cpu_line(em, "              %d, %d, %s);", ni, nj, acc ? "true" : "false");
    for (int c = 0; c < n.depth; c++) {
        vc[c]->cname = saved[c];
        cpu_line(em, "%s = (%s)%lld;%s", saved[c], cpu_ctype(em, n.ctr[c]->type), n.from[c] + n.count[c] * n.step[c],
                 c ? "" : " /* as the loops leave them */");
    }
    CLOSE();
    en_buf_free(&ds);
    en_buf_free(&as);
    en_buf_free(&bs);
    return !w->failed;
}

/* the pending matrix statements: one loop over the SIMD groups */
static void flush_matrices(wide *w) {
    emitter *em = w->em;
    int n = w->matrix_batch.count;
    if (!n) return;
    const ir_stmt **stmts = en_alloc(&em->arena, sizeof(ir_stmt *) * (size_t)n);
    memcpy(stmts, w->matrix_batch.items, sizeof(ir_stmt *) * (size_t)n);
    w->matrix_batch.count = 0;
    if (w->per_sg) { /* already inside the loop over the SIMD groups */
        for (int i = 0; i < n && !w->failed;) i += matrix_one(w, stmts[i], i + 1 < n ? stmts[i + 1] : NULL);
        return;
    }
    OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) { /* each SIMD group: simdgroup_matrix operations */");
    cpu_line(em, "const size_t l = (size_t)_sg * 32u; /* its first thread */");
    cpu_line(em, "const uint32_t _x = (uint32_t)l %% _sx, _y = (uint32_t)l / _sx; (void)_x; (void)_y;");
    for (int i = 0; i < n && !w->failed;) i += matrix_one(w, stmts[i], i + 1 < n ? stmts[i + 1] : NULL);
    CLOSE();
}

/* Is s made of simdgroup_matrix statements and control flow the same in every thread
 * (uniform counters, tests and loops), with no barrier? Then a loop of it can run whole
 * for one SIMD group after another (matrix_loop). */
static bool matrix_only(wide *w, const ir_stmt *s) {
    if (!s) return true;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (!matrix_only(w, s->stmts[i])) return false;
        return true;
    case IR_S_DECL:
    case IR_S_ASSIGN: {
        if (matrix_stmt(s)) return true;
        const ir_var *v = s->kind == IR_S_DECL ? s->var : s->place->kind == IR_E_VAR ? s->place->var : NULL;
        return v && is_uniform_var(w, v) && wide_uniform(w, s->value);
    }
    case IR_S_INTRINSIC: return matrix_stmt(s);
    case IR_S_IF: return wide_uniform(w, s->cond) && matrix_only(w, s->then_s) && matrix_only(w, s->else_s);
    case IR_S_LOOP: return loop_uniform(w, s) && matrix_only(w, s->body) && matrix_only(w, s->latch);
    case IR_S_BREAK:
    case IR_S_CONTINUE: return true; /* its target: exits_inside, for the whole loop */
    default: return false;
    }
}

static bool has_matrix_stmt(const ir_stmt *s) { return ir_stmt_any(s, matrix_stmt); }

/* the uniform variables s assigns */
static void uniform_assigned(wide *w, const ir_stmt *s, var_list *vars) {
    if (!s) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) uniform_assigned(w, s->stmts[i], vars);
        break;
    case IR_S_DECL:
    case IR_S_ASSIGN: {
        const ir_var *v = s->kind == IR_S_DECL ? s->var : s->place->kind == IR_E_VAR ? s->place->var : NULL;
        if (!v || !is_uniform_var(w, v)) break;
        for (int i = 0; i < vars->count; i++)
            if (vars->items[i] == v) return;
        EN_PUSH(&w->em->arena, *vars, v);
        break;
    }
    case IR_S_IF:
        uniform_assigned(w, s->then_s, vars);
        uniform_assigned(w, s->else_s, vars);
        break;
    case IR_S_LOOP:
        uniform_assigned(w, s->body, vars);
        uniform_assigned(w, s->latch, vars);
        break;
    default: break;
    }
}

/* Opens a loop over the SIMD groups in which each runs statement s whole (s is `what`),
 * with l its first thread; the uniform variables s assigns start again from their values
 * at entry for each SIMD group (and end as one run leaves them: every SIMD group runs the
 * same steps on them). Two braces for close_each_sg. */
static void open_each_sg(wide *w, const ir_stmt *s, const char *what) {
    emitter *em = w->em;
    var_list vars = {0};
    uniform_assigned(w, s, &vars);
    OPEN("{ /* each SIMD group runs %s whole: %s */", what, cpu_source_note(em, s->loc));
    for (int i = 0; i < vars.count; i++) {
        var_info *vi = cpu_info_of(em, vars.items[i]);
        cpu_line(em, "const %s _entry_%s = %s;", cpu_ctype(em, vars.items[i]->type), vi->cname, vi->cname);
    }
    OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) {");
    cpu_line(em, "const size_t l = (size_t)_sg * 32u; /* its first thread */");
    cpu_line(em, "const uint32_t _x = (uint32_t)l %% _sx, _y = (uint32_t)l / _sx; (void)_x; (void)_y;");
    for (int i = 0; i < vars.count; i++) {
        var_info *vi = cpu_info_of(em, vars.items[i]);
        cpu_line(em, "%s = _entry_%s;", vi->cname, vi->cname);
    }
    w->per_sg = true;
}
static void close_each_sg(wide *w) {
    emitter *em = w->em;
    w->per_sg = false;
    CLOSE();
    CLOSE();
}

/* A loop of matrix_only statements (a GEMM's kk loop: fragment loads and the 4 x 4
 * products) runs whole for each SIMD group in turn, so the products of one SIMD group
 * follow each other with no loop control between them. */
static void matrix_loop(wide *w, const ir_stmt *loop, wset set) {
    open_each_sg(w, loop, "this loop");
    if (!block_products(w, loop)) uniform_loop(w, loop, set);
    close_each_sg(w);
}

/* ---- control flow the same within each SIMD group --------------------------------------
 * Attention kernels give each SIMD group its own rows or key blocks: `for (ii = 4*sgitg;
 * ii < DV16; ii += 4*NSG)` around simdgroup_matrix operations, `if (ic >= ne11) break;`
 * with ic from sgitg, `if (simd_max(m) <= -MAXHALF) continue;`. Such a test is the same in
 * the threads of one SIMD group (the uniformity pass's SIMD level) but not in the group,
 * so per-thread control (lock-step loops, byte masks) cannot hold the matrix operations
 * and exits inside it. An sg_region runs the statement whole for one SIMD group after
 * another, as Metal lets them run: its tests read the SIMD group's first thread, its
 * per-thread statements are loops over the SIMD group's threads, its matrices that SIMD
 * group's. A threadgroup barrier inside would need every SIMD group at once: not taken. */

/* How far apart the threads leave loops inside s: for each break or continue, the tests
 * between it and its loop (the loop's own head test left out), each 0 (the same in every
 * thread), 1 (the same within each SIMD group) or 2 (per thread); the highest of them. */
typedef struct exit_walk {
    const ir_stmt *loops[32];
    int since[32]; /* the highest test entered since each open loop began */
    int depth, level;
    bool too_deep;
} exit_walk;

static int test_level(wide *w, const ir_expr *c) {
    return wide_uniform_in(w, c, false) ? 0 : wide_uniform_in(w, c, true) ? 1 : 2;
}

static void exit_walk_stmt(wide *w, const ir_stmt *s, exit_walk *x) {
    if (!s) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) exit_walk_stmt(w, s->stmts[i], x);
        return;
    case IR_S_IF: {
        int lv = test_level(w, s->cond), saved[32];
        memcpy(saved, x->since, sizeof saved);
        for (int i = 0; i < x->depth; i++)
            if (lv > x->since[i]) x->since[i] = lv;
        exit_walk_stmt(w, s->then_s, x);
        exit_walk_stmt(w, s->else_s, x);
        memcpy(x->since, saved, sizeof saved);
        return;
    }
    case IR_S_LOOP: {
        if (x->depth >= 32) {
            x->too_deep = true;
            return;
        }
        int first;
        wide_loop_head(s, &first); /* its head test exits it by design: not counted */
        x->loops[x->depth] = s;
        x->since[x->depth++] = 0;
        for (int i = first; i < s->body->stmt_count; i++) exit_walk_stmt(w, s->body->stmts[i], x);
        exit_walk_stmt(w, s->latch, x);
        x->depth--;
        return;
    }
    case IR_S_BREAK:
    case IR_S_CONTINUE:
        for (int i = x->depth - 1; i >= 0; i--)
            if (x->loops[i] == s->target) {
                if (x->since[i] > x->level) x->level = x->since[i];
                return;
            }
        x->level = 2; /* a loop outside s: s cannot run on its own */
        return;
    default: return;
    }
}

/* the exit level of s; a loop s's own head is not counted, nor an if s's own test (its
 * exits, all to loops inside it, lie below the test) */
static int exit_level(wide *w, const ir_stmt *s) {
    exit_walk x = {0};
    exit_walk_stmt(w, s, &x);
    return x.too_deep ? 2 : x.level;
}

/* is s an if or loop whose control is the same within each SIMD group but not in the
 * group, around what per-thread control cannot hold (matrices, exits)? */
static bool sg_candidate(wide *w, const ir_stmt *s, wset set) {
    if ((s->kind != IR_S_IF && s->kind != IR_S_LOOP) || w->em->checked || w->sg_region || w->per_sg || w->divergent || !set_is_all(set))
        return false;
    const ir_stmt *loops[32];
    if (cpu_has_barrier(s) || !exits_inside(s, loops, 0)) return false;
    int first = 0;
    const ir_expr *test = s->kind == IR_S_IF ? s->cond : wide_loop_head(s, &first);
    if (test && test_level(w, test) != 1) return false;
    int exits = exit_level(w, s);
    if (exits == 2) return false; /* a thread leaves on its own: not a SIMD group's control */
    if (test && has_matrix_stmt(s)) return true;
    /* exits that differ between SIMD groups need a SIMD group at a time; a loop whose head
     * alone differs between SIMD groups (MLX's sdpa_vector: `for (i = simd_gid; i < N; i +=
     * BN)`) is faster as a lock-step loop over all the threads */
    return exits == 1;
}

static void flush_batch(wide *w);
static void sg_region(wide *w, const ir_stmt *s) {
    emitter *em = w->em;
    open_each_sg(w, s, "this (its tests are the same within a SIMD group)");
    cpu_line(em, "const size_t _sl = l, _sh = l + 32u < _n ? l + 32u : _n; /* its threads */");
    w->sg_region = true;
    w->sg_lo = "_sl";
    group_stmt(w, s, (wset){w->sg_lo, "_sh", NULL});
    flush_batch(w);
    w->sg_region = false;
    w->sg_lo = NULL;
    close_each_sg(w);
}

static void flush_batch(wide *w) {
    flush_matrices(w);
    flush_threads(w);
}

static void group_list(wide *w, const ir_stmt *s, wset set) {
    if (!s) return;
    if (s->kind != IR_S_BLOCK) {
        group_stmt(w, s, set);
        return;
    }
    for (int i = 0; i < s->stmt_count && !w->failed; i++) group_stmt(w, s->stmts[i], set);
}

/* the exit test of a loop whose body starts with `if (c) break;`: c, else NULL */
EN_INTERNAL const ir_expr *wide_loop_head(const ir_stmt *loop, int *first) {
    const ir_stmt *b = loop->body;
    *first = 0;
    if (!b || b->kind != IR_S_BLOCK || b->stmt_count == 0) return NULL;
    const ir_stmt *h = b->stmts[0];
    if (h->kind != IR_S_IF || h->else_s) return NULL;
    const ir_stmt *t = h->then_s;
    if (t && t->kind == IR_S_BLOCK && t->stmt_count == 1) t = t->stmts[0];
    if (!t || t->kind != IR_S_BREAK || t->target != loop) return NULL;
    *first = 1;
    return h->cond;
}

/* does this one statement declare, assign or receive v? */
static bool assigns_here(const ir_stmt *s, const void *v) {
    switch (s->kind) {
    case IR_S_ASSIGN: { /* a whole variable, or part of it (`mine[i] = `, `v.x = `) */
        const ir_expr *p = s->place;
        while (p->kind == IR_E_INDEX || p->kind == IR_E_FIELD || p->kind == IR_E_SWIZZLE) {
            if (p->kind == IR_E_INDEX && p->args[0]->type->kind == IR_T_PTR) return false;
            p = p->args[0];
        }
        return p->kind == IR_E_VAR && p->var == v;
    }
    case IR_S_DECL: return s->var == v;
    case IR_S_INTRINSIC: return s->result == v;
    default: return false;
    }
}

static bool assigns_var(const ir_stmt *s, const ir_var *v) { return ir_stmt_any_in(s, assigns_here, v); }

EN_INTERNAL bool wide_expr_reads(const ir_expr *e, const ir_var *v) {
    if (!e) return false;
    if (e->kind == IR_E_VAR) return e->var == v;
    for (int i = 0; i < e->arg_count; i++)
        if (wide_expr_reads(e->args[i], v)) return true;
    return false;
}

/* does any statement of s outside the `count` statements `skip` read v (its declaration's
 * own value aside)? */
static bool read_outside_all(const ir_stmt *s, const ir_var *v, const ir_stmt *const *skip, int count) {
    if (!s) return false;
    for (int i = 0; i < count; i++)
        if (s == skip[i]) return false;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++)
            if (read_outside_all(s->stmts[i], v, skip, count)) return true;
        return false;
    case IR_S_DECL: return wide_expr_reads(s->value, v);
    case IR_S_ASSIGN: return wide_expr_reads(s->value, v) || (s->place->kind != IR_E_VAR && wide_expr_reads(s->place, v));
    case IR_S_IF:
        return wide_expr_reads(s->cond, v) || read_outside_all(s->then_s, v, skip, count) || read_outside_all(s->else_s, v, skip, count);
    case IR_S_LOOP: return read_outside_all(s->body, v, skip, count) || read_outside_all(s->latch, v, skip, count);
    case IR_S_RETURN: return wide_expr_reads(s->value, v);
    case IR_S_INTRINSIC:
        for (int i = 0; i < s->arg_count; i++)
            if (wide_expr_reads(s->args[i], v)) return true;
        return false;
    default: return false;
    }
}

/* does any statement outside `loop` read v (its declaration's own value aside)? */
static bool var_read_outside(const ir_stmt *s, const ir_var *v, const ir_stmt *loop) {
    return read_outside_all(s, v, &loop, 1);
}

/* e without conversions that keep its value (an unsigned integer to a wider integer) */
static const ir_expr *widened(const ir_expr *e) {
    while (e->kind == IR_E_CONVERT && ir_is_integer(e->type) && ir_is_integer(e->args[0]->type) &&
           !ir_is_signed(e->args[0]->type) && e->type->size > e->args[0]->type->size)
        e = e->args[0];
    return e;
}

/* e without a conversion between int and uint (the same 32 bits) */
static const ir_expr *same_bits(const ir_expr *e) {
    if (e->kind == IR_E_CONVERT && ir_is_integer(e->type) && ir_is_integer(e->args[0]->type) && e->type->size == 4 &&
        e->args[0]->type->size == 4)
        return e->args[0];
    return e;
}

static const ir_expr *strip_u32(const ir_expr *e) {
    while (e->kind == IR_E_CONVERT && (e->args[0]->type->kind == IR_T_U16 || e->args[0]->type->kind == IR_T_U32))
        e = e->args[0];
    return e;
}
/* the linear thread index, or (in 1-D groups) the thread's position in the grid, which is
 * the group's first position _g0 plus it: *grid_base is then "_g0", else stays NULL */
static bool is_thread_index(wide *w, const ir_expr *e, const char **grid_base) {
    e = strip_u32(e);
    /* `pos.x` of a position vector is its scalar form (in 1-D groups) */
    bool x_of_vector = e->kind == IR_E_SWIZZLE && e->swizzle_len == 1 && e->swizzle[0] == 0 && e->args[0]->kind == IR_E_VAR;
    if (x_of_vector) e = e->args[0];
    if (e->kind != IR_E_VAR || e->var->param_kind != IR_PARAM_ATTR || (e->var->type->kind == IR_T_VEC && !x_of_vector))
        return false;
    if (x_of_vector && e->var->attr == IR_ATTR_THREAD_INDEX_IN_THREADGROUP) return false;
    if (e->var->attr == IR_ATTR_THREAD_INDEX_IN_THREADGROUP) return true;
    if (e->var->attr == IR_ATTR_THREAD_POSITION_IN_THREADGROUP || e->var->attr == IR_ATTR_THREAD_POSITION_IN_GRID) {
        w->needs_one_d = true;
        if (e->var->attr == IR_ATTR_THREAD_POSITION_IN_GRID) *grid_base = "_g0";
        return true;
    }
    return false;
}

typedef struct stride_index {
    const ir_var *var;
    const ir_expr *start, *step; /* i starts as thread index + start (NULL: 0), steps by step */
    const char *grid_base;       /* "_g0" when it starts from the position in the grid, else NULL */
} stride_index;

/* the grid-stride index of a lock-step loop: `i = i + U` as its latch, i a u32 local that
 * starts as the thread index (plus a uniform value) and is assigned nowhere else */
static bool find_stride_index(wide *w, const ir_stmt *loop, stride_index *si) {
    const ir_stmt *latch = loop->latch;
    if (latch && latch->kind == IR_S_BLOCK && latch->stmt_count == 1) latch = latch->stmts[0];
    if (!latch || latch->kind != IR_S_ASSIGN || latch->place->kind != IR_E_VAR) return false;
    const ir_var *v = latch->place->var;
    const ir_expr *val = latch->value;
    if ((v->type->kind != IR_T_U32 && v->type->kind != IR_T_U16 && v->type->kind != IR_T_I32) || v->address_taken ||
        !w->em->inits[v->id])
        return false;
    /* a ushort counter steps in int: `c = ushort(int(c) + U)`, the same value mod 2^16; an
     * int one stepped by a uint in uint: `i = int(uint(i) + U)`, the same mod 2^32 */
    if ((v->type->kind == IR_T_U16 || v->type->kind == IR_T_I32) && val->kind == IR_E_CONVERT) val = val->args[0];
    if (val->kind != IR_E_BINARY || val->op != IR_OP_ADD || !ir_is_integer(val->type)) return false;
    const ir_expr *a = same_bits(widened(val->args[0])), *b = val->args[1];
    if (!(a->kind == IR_E_VAR && a->var == v)) {
        a = same_bits(widened(val->args[1]));
        b = val->args[0];
    }
    if (!(a->kind == IR_E_VAR && a->var == v) || !wide_uniform(w, b)) return false;
    if (assigns_var(loop->body, v)) return false;
    /* threads leave at different steps, so no single base gives every thread's final i */
    if (var_read_outside(w->em->f->body, v, loop)) return false;
    const ir_expr *init = w->em->inits[v->id];
    bool saved = w->needs_one_d;
    si->grid_base = NULL;
    if (is_thread_index(w, init, &si->grid_base)) {
        si->start = NULL;
    } else if (init->kind == IR_E_BINARY && init->op == IR_OP_ADD && wide_uniform(w, init->args[1]) &&
               is_thread_index(w, init->args[0], &si->grid_base)) {
        si->start = init->args[1];
    } else if (init->kind == IR_E_BINARY && init->op == IR_OP_ADD && wide_uniform(w, init->args[0]) &&
               is_thread_index(w, init->args[1], &si->grid_base)) {
        si->start = init->args[0];
    } else {
        w->needs_one_d = saved;
        return false;
    }
    si->var = v;
    si->step = b;
    return true;
}

static const char *uniform_value(wide *w, const ir_expr *e) {
    if (w->em->checked && reads_memory(e)) wfail(w); /* a load by the group, for no thread: unchecked */
    w->em->memos.count = 0;
    inline_loads(w, e);
    const char *r = wex(w, e, -1);
    w->em->memos.count = 0;
    return r;
}

/* ---- the next threadgroup's row ------------------------------------------------------
 * A row-wise kernel (one threadgroup per row: softmax, layer norm) reads its row from DRAM
 * in a first grid-stride pass and again, from the cache, in later ones; while those
 * compute (softmax's exp), this core's memory sits idle. exec.c hands a worker runs of
 * consecutive threadgroups, so the next row it reads is the next threadgroup's. A later
 * pass that stores nothing to device memory therefore prefetches that row, a line per 64
 * bytes beside each step, and the next first pass finds it in the cache (softmax 4096 x
 * 4096 on the 2-core bench machine: 8.2 -> 7.3 ms, bench/RESULTS.md). Passes that store
 * (the output row) and the first pass get none: prefetching there measured slower. A
 * prefetch never faults, so a wrong guess costs bandwidth only. */

EN_INTERNAL bool wide_same_value(const ir_expr *a, const ir_expr *b) {
    if (a->kind != b->kind || a->type != b->type || a->op != b->op || a->arg_count != b->arg_count) return false;
    switch (a->kind) {
    case IR_E_CONST: return a->c.u == b->c.u;
    case IR_E_VAR: return a->var == b->var;
    case IR_E_SWIZZLE:
        if (a->swizzle_len != b->swizzle_len || memcmp(a->swizzle, b->swizzle, (size_t)a->swizzle_len)) return false;
        break;
    case IR_E_FIELD:
        if (a->field != b->field) return false;
        break;
    case IR_E_DEREF:
    case IR_E_INDEX:
    case IR_E_ADDR:
    case IR_E_PTRCAST:
    case IR_E_PTR_OFFSET:
    case IR_E_CONVERT:
    case IR_E_UNARY:
    case IR_E_BINARY: break;
    default: return false;
    }
    for (int i = 0; i < a->arg_count; i++)
        if (!wide_same_value(a->args[i], b->args[i])) return false;
    return true;
}

static bool is_group_position(const ir_expr *e) {
    e = strip_u32(e);
    return e->kind == IR_E_VAR && e->var->param_kind == IR_PARAM_ATTR && e->var->type->kind != IR_T_VEC &&
           e->var->attr == IR_ATTR_THREADGROUP_POSITION_IN_GRID;
}

/* p = buffer + position * U (or U * position), p never reassigned, U the same value as
 * `limit`: the threadgroup at the next position reads p + U */
static bool row_pointer(wide *w, const ir_var *p, const ir_expr *limit) {
    const ir_expr *init = w->em->inits[p->id];
    if (p->is_assigned || p->address_taken || !is_uniform_var(w, p) || !init || init->kind != IR_E_PTR_OFFSET ||
        p->type->kind != IR_T_PTR || (p->type->space != IR_SPACE_DEVICE && p->type->space != IR_SPACE_CONSTANT))
        return false;
    const ir_expr *base = init->args[0], *off = strip_u32(init->args[1]);
    if (base->kind != IR_E_VAR || base->var->param_kind != IR_PARAM_BUFFER) return false;
    if (off->kind != IR_E_BINARY || off->op != IR_OP_MUL) return false;
    const ir_expr *a = off->args[0], *b = off->args[1];
    return (is_group_position(a) && wide_same_value(strip_u32(b), strip_u32(limit))) ||
           (is_group_position(b) && wide_same_value(strip_u32(a), strip_u32(limit)));
}

typedef struct row_load {
    const ir_var *row, *index;
} row_load;

/* row[index] */
static bool loads_row(const ir_expr *e, const void *ctx) {
    const row_load *r = ctx;
    return e->kind == IR_E_INDEX && e->args[0]->kind == IR_E_VAR && e->args[0]->var == r->row &&
           widened(e->args[1])->kind == IR_E_VAR && widened(e->args[1])->var == r->index;
}

/* a store to device memory, an atomic or a matrix operation (which may store) */
static bool stores_device(const ir_stmt *s) {
    if (s->kind == IR_S_ASSIGN) return cpu_place_space(s->place) == IR_SPACE_DEVICE;
    if (s->kind != IR_S_INTRINSIC) return false;
    ir_intrinsic_class c = ir_intrinsic_class_of(s->intrinsic);
    return c == IR_IC_ATOMIC || c == IR_IC_MATRIX;
}

/* does the loop read row p (a row pointer) at its index? */
static bool loop_reads_row(wide *w, const ir_stmt *loop, const ir_var *p, const ir_var *index, const ir_expr *limit) {
    row_load r = {p, index};
    return row_pointer(w, p, limit) && ir_stmt_any_expr(loop->body, loads_row, &r);
}

/* has an earlier lock-step loop read row p? */
static bool row_seen(wide *w, const ir_var *p) {
    for (int i = 0; i < w->rows_read.count; i++)
        if (w->rows_read.items[i] == p) return true;
    return false;
}

/* does the loop re-read a row (so next_row_prefetch fetches the next group's, where the
 * loop stores nothing to device memory)? */
static bool rows_reread(wide *w, const ir_stmt *loop, const ir_var *index, const ir_expr *limit) {
    for (int k = 0; k < w->em->f->locals.count; k++) {
        const ir_var *p = w->em->f->locals.items[k];
        if (loop_reads_row(w, loop, p, index, limit) && row_seen(w, p)) return true;
    }
    return false;
}

/* in a lock-step loop's every-thread path, before _ib<id> steps: prefetches for the rows
 * this loop re-reads (see above); then notes the rows it reads */
static void next_row_prefetch(wide *w, const ir_stmt *loop, const ir_var *index, const ir_expr *limit, wset set,
                              int id) {
    emitter *em = w->em;
    bool stores = ir_stmt_any(loop->body, stores_device);
    for (int k = 0; k < em->f->locals.count; k++) {
        const ir_var *p = em->f->locals.items[k];
        if (!loop_reads_row(w, loop, p, index, limit)) continue;
        if (!row_seen(w, p)) {
            EN_PUSH(&em->arena, w->rows_read, p);
            continue;
        }
        if (stores) continue;
        const char *row = cpu_info_of(em, p)->cname, *u = uniform_value(w, limit);
        uint32_t size = p->type->elem->size;
        cpu_line(em, "/* %s is in the cache (an earlier pass read it): fetch the next threadgroup's row */", p->name);
        OPEN("if ((uint64_t)(%s) * %uu <= (1u << 18)) { /* rows that fit in L2 */", u, size);
        prefetch_lines(em, cpu_S(em, "%s + (uint64_t)(%s) + _ib%d", row, u, id), set.lo ? set.lo : "0u", set.lo ? set.hi : "_n",
                       size);
        CLOSE();
    }
}

/* ---- the next threadgroup's share of a buffer --------------------------------------------
 * A kernel that loads buffer[gid] and then reduces what it loaded behind barriers (seed
 * 003's tree) waits on DRAM in its first statement and leaves the memory idle through the
 * tree. As for rows above, a worker's next threadgroup is the next position (exec.c), whose
 * threads load the _sx elements after this one's: the first barrier, at the kernel's top
 * level, prefetches them, a line per 64 bytes, for each buffer so loaded before it, where a
 * loop with barriers follows (a kernel with little work after the barrier gets none). Seed 003
 * (2^24 ints, groups of 256) on the 2-core machine: 55-70% of the OpenMP ceiling in 7 runs
 * against 46-69% without, alternating (bench/RESULTS.md, issue 15, fifteenth round). */

typedef struct grid_loads {
    wide *w;
    const ir_var *buffers[4];
    int count;
} grid_loads;

/* buffer[gid] (gid the thread's position in the grid, 1-D), buffer a device or constant
 * buffer parameter: noted; never true, so that every expression is visited */
static bool note_grid_load(const ir_expr *e, const void *ctx) {
    grid_loads *g = (grid_loads *)ctx;
    const char *grid_base = NULL;
    if (e->kind != IR_E_INDEX || e->args[0]->kind != IR_E_VAR) return false;
    const ir_var *b = e->args[0]->var;
    if (b->param_kind != IR_PARAM_BUFFER || b->type->kind != IR_T_PTR ||
        (b->type->space != IR_SPACE_DEVICE && b->type->space != IR_SPACE_CONSTANT) || !b->type->elem ||
        !b->type->elem->size)
        return false;
    const bool one_d = g->w->needs_one_d; /* (is_thread_index notes a use; this is none) */
    const bool gid = is_thread_index(g->w, widened(e->args[1]), &grid_base) && grid_base;
    g->w->needs_one_d = one_d;
    if (!gid) return false;
    for (int i = 0; i < g->count; i++)
        if (g->buffers[i] == b) return false;
    if (g->count < 4) g->buffers[g->count++] = b;
    return false;
}

/* at barrier s: once, where s stands in the kernel's body itself */
static void next_group_prefetch(wide *w, const ir_stmt *s) {
    emitter *em = w->em;
    const ir_stmt *body = em->f->body;
    if (w->next_group_fetched || !body || body->kind != IR_S_BLOCK) return;
    int at = 0;
    while (at < body->stmt_count && body->stmts[at] != s) at++;
    if (at == body->stmt_count) return;
    w->next_group_fetched = true;
    bool tree = false; /* work behind barriers to hide the fetch in: a loop of them after s */
    for (int i = at + 1; i < body->stmt_count && !tree; i++)
        tree = body->stmts[i]->kind == IR_S_LOOP && cpu_has_barrier(body->stmts[i]);
    if (!tree) return;
    grid_loads g = {.w = w};
    for (int i = 0; i < at; i++) (void)ir_stmt_any_expr(body->stmts[i], note_grid_load, &g);
    for (int i = 0; i < g.count; i++) {
        const char *name = cpu_info_of(em, g.buffers[i])->cname;
        uint32_t size = g.buffers[i]->type->elem->size;
        cpu_line(em, "/* the next threadgroup's %s[gid], fetched while this one works behind barriers */", g.buffers[i]->name);
        OPEN("if (_one_d && (uint64_t)_sx * %uu <= (1u << 18)) { /* gid is _g0 + _x in 1-D groups */", size);
        prefetch_lines(em, cpu_S(em, "%s + (uint64_t)_g0 + _sx", name), "0u", "_sx", size);
        CLOSE();
    }
}

/* ---- grid-stride loads that skip memory ------------------------------------------------
 * In a grid-stride loop over a whole grid (`for (i = gid; i < n; i += grid_size)`) each
 * threadgroup reads its threads' span, then jumps a grid on: with a group per worker, every
 * other 4 KiB of the array. The hardware prefetchers lose the stream at each jump (they work
 * within 4 KiB pages), so such a loop read 63% of the contiguous OpenMP sum on the 2-core
 * bench machine. In the every-thread path, each device load `p[i]` (p the same in every
 * thread) prefetches the span of this step's threads 8 steps ahead, when the step is longer
 * than the span (a step the length of the span reads on contiguously, which the hardware
 * follows: softmax's row passes). */
typedef struct strided_loads {
    wide *w;
    const ir_var *index;
    EN_VEC(const ir_expr *) bases;
} strided_loads;


/* an ir_stmt_any_expr visitor that collects: it never stops the walk */
static bool note_strided_load(const ir_expr *e, const void *ctx) {
    strided_loads *c = (strided_loads *)(uintptr_t)ctx;
    if (e->kind != IR_E_INDEX) return false;
    const ir_expr *p = e->args[0], *i = widened(e->args[1]);
    if (p->type->kind != IR_T_PTR || (p->type->space != IR_SPACE_DEVICE && p->type->space != IR_SPACE_CONSTANT)) return false;
    if (i->kind != IR_E_VAR || i->var != c->index || !wide_uniform(c->w, p)) return false;
    for (int k = 0; k < c->bases.count; k++)
        if (wide_same_value(c->bases.items[k], p)) return false;
    EN_PUSH(&c->w->em->arena, c->bases, p);
    return false;
}

static strided_loads strided_loads_of(wide *w, const ir_stmt *loop, const stride_index *si) {
    strided_loads c = {w, si->var, {0}};
    for (int k = 0; k < loop->body->stmt_count; k++) ir_stmt_any_expr(loop->body->stmts[k], note_strided_load, &c);
    return c;
}

/* the prefetches of threads [lo, hi) of the loads c, 8 steps on, where the step skips
 * memory (the C test `skips`) */
static void stride_prefetch(wide *w, const strided_loads *c, const stride_index *si, const char *lo, const char *hi,
                            const char *skips, int id) {
    emitter *em = w->em;
    OPEN("if (%s) { /* the step skips memory: prefetch 8 steps on */", skips);
    for (int k = 0; k < c->bases.count; k++) {
        const ir_expr *p = c->bases.items[k];
        uint32_t size = p->type->elem->size;
        cpu_line(em, "{ uintptr_t _pa = (uintptr_t)(%s) + (uint64_t)((int64_t)_ib%d + 8 * (int64_t)(%s)) * %uu;", uniform_value(w, p),
                 id, uniform_value(w, si->step), size);
        cpu_line(em, "  for (size_t _k = (size_t)(%s) * %uu; _k < (size_t)(%s) * %uu; _k += 64) __builtin_prefetch((const char *)(_pa + _k), 0, 2); }",
                 lo, size, hi, size);
    }
    CLOSE();
}

/* The every-thread step of a grid-stride loop whose loads skip memory, in chunks of 256
 * threads, each chunk's prefetches before its loads: prefetches for a whole 4 KiB span at
 * once wait on the core's few outstanding-miss slots (the reduction read ~7% less than the
 * region emitter's, which prefetches a SIMD group's 128 bytes at a time). Only for bodies of
 * per-thread statements, which run the same for any split of the threads, and loops over
 * the whole grid (from the position in the grid). */
static bool chunked_step(wide *w, const ir_stmt *loop, int first, const stride_index *si, wset set, int id) {
    emitter *em = w->em;
    const ir_stmt *b = loop->body;
    /* a grid-stride loop over the whole grid: one that starts from a position in the
     * threadgroup steps by about its threads (lsize) and reads on contiguously */
    if (!si->grid_base) return false;
    strided_loads c = strided_loads_of(w, loop, si);
    if (!c.bases.count) return false;
    for (int i = first; i < b->stmt_count; i++)
        if (!batchable(w, b->stmts[i])) return false;
    const char *lo = set.lo ? set.lo : "0u", *hi = set.lo ? set.hi : "_n";
    w->needs_one_d = true; /* thread ranges */
    cpu_line(em, "const bool _skips%d = (uint64_t)(%s) > (uint64_t)(%s) - %s;", id, uniform_value(w, si->step), hi, lo);
    OPEN("for (uint32_t _c%d = %s; _c%d < %s; _c%d += 256u) { /* 256 threads at a time */", id, lo, id, hi, id);
    cpu_line(em, "const uint32_t _ce%d = %s - _c%d > 256u ? _c%d + 256u : %s;", id, hi, id, id, hi);
    const char *clo = cpu_S(em, "_c%d", id), *chi = cpu_S(em, "_ce%d", id);
    stride_prefetch(w, &c, si, clo, chi, cpu_S(em, "_skips%d", id), id);
    for (int i = first; i < b->stmt_count; i++) group_stmt(w, b->stmts[i], (wset){clo, chi, NULL});
    flush_batch(w);
    CLOSE();
    return true;
}

/* ---- several steps a pass ----------------------------------------------------------------
 * One pass over the threads per step of a lock-step loop takes each thread's values from
 * their slots and puts them back at every step: `acc += in[i]` is a load and a store of acc
 * beside each load of in. While every thread stays in the loop for STEP_BLOCK more steps,
 * and the body stores nothing another thread could read (no device or threadgroup store, no
 * atomic) and has no loop inside, one pass runs STEP_BLOCK steps of each thread in turn
 * (thread_body's copies, the index _ib + s * step + l in copy s), the values in registers
 * across them. Each thread's steps keep their order; between threads, with no store another
 * could see, no order shows. The reduction's access order in plain C on the 2-core machine:
 * 68-84% of the OpenMP ceiling at a step a pass, 103-104% at four (bench/RESULTS.md, issue
 * 15, eighteenth round), and prefetching 8 steps on (chunked_step) cost 10 points there.
 * Only loops over the whole grid (from the position in the grid), whose steps skip memory:
 * a row's passes (softmax's, from the position in the group) step on contiguously, and
 * measured the same in cache and 2 points lower (within the noise) in the bench at 4. */
enum { STEP_BLOCK = 4 };

/* stores_device's, or a store to threadgroup memory: what another thread may read */
static bool stores_shared(const ir_stmt *s) {
    return stores_device(s) || (s->kind == IR_S_ASSIGN && cpu_place_space(s->place) != IR_SPACE_THREAD);
}

static bool is_loop(const ir_stmt *s) { return s->kind == IR_S_LOOP; }

static bool step_blockable(wide *w, const ir_stmt *loop, int first, const stride_index *si) {
    const ir_stmt *b = loop->body;
    if (!si->grid_base) return false;
    for (int i = first; i < b->stmt_count; i++)
        if (!batchable(w, b->stmts[i]) || ir_stmt_any(b->stmts[i], stores_shared) || ir_stmt_any(b->stmts[i], is_loop))
            return false;
    return true;
}

/* the every-thread path of lock-step loop `id` by STEP_BLOCK steps, tried before the one
 * of a step; `contiguous` is the index's C form at the first step, `last` the last thread's
 * offset and `u` the limit of `i < U` (unsigned) */
static void blocked_steps(wide *w, const ir_stmt *loop, int first, const stride_index *si, wset set, const char *contiguous,
                          const char *last, const ir_expr *limit, const char *u, int id) {
    emitter *em = w->em;
    const ir_stmt *b = loop->body;
    const char *step = uniform_value(w, si->step);
    const char *reach = cpu_S(em, "(uint64_t)_ib%d + %du * (uint64_t)(%s) + %s", id, STEP_BLOCK - 1, step, last);
    OPEN("if (_all%d && %s < (uint64_t)(%s) && %s <= UINT32_MAX) { /* %d steps a pass, the values in registers */", id, reach,
         u, reach, STEP_BLOCK);
    const char **forms = en_alloc(&em->arena, sizeof(char *) * STEP_BLOCK);
    forms[0] = contiguous;
    for (int s = 1; s < STEP_BLOCK; s++) forms[s] = cpu_S(em, "((uint64_t)_ib%d + %du * (uint64_t)(%s) + l)", id, s, step);
    wide_split outer = w->split; /* no runs of D threads here */
    w->split = (wide_split){0};
    w->step_index = si->var;
    w->step_forms = forms;
    w->step_copies = STEP_BLOCK;
    thread_loop(w, (wset){set.lo, set.hi, NULL}, (const ir_stmt *const *)&b->stmts[first], b->stmt_count - first);
    w->step_copies = 0;
    w->split = outer;
    /* the next group's rows, a step's span at a time; the one-step path notes the rows */
    int noted = w->rows_read.count;
    bool refetch = rows_reread(w, loop, si->var, limit);
    if (refetch) OPEN("for (int _sb%d = 0; _sb%d < %d; _sb%d++) {", id, id, STEP_BLOCK, id);
    next_row_prefetch(w, loop, si->var, limit, set, id);
    if (refetch) {
        cpu_line(em, "_ib%d += %s;", id, step);
        CLOSE();
    } else {
        cpu_line(em, "_ib%d += %du * (%s);", id, STEP_BLOCK, step);
    }
    w->rows_read.count = noted;
    cpu_line(em, "continue;");
    CLOSE();
}

/* a loop whose exit differs per thread, with no barrier: lock step over the threads */
static void lockstep_loop(wide *w, const ir_stmt *loop, wset set, const ir_expr *head, int first) {
    emitter *em = w->em;
    if (w->em->checked) {
        wfail(w);
        return;
    }
    const ir_stmt *b = loop->body;
    for (int i = first; i < b->stmt_count; i++) /* no other way out of the loop */
        if (!exits_inside(b->stmts[i], (const ir_stmt *[32]){0}, 0)) {
            wfail(w);
            return;
        }
    int id = cpu_fresh(em);
    stride_index si = {0};
    bool strided = find_stride_index(w, loop, &si);
    var_info *ivi = strided ? cpu_info_of(em, si.var) : NULL;
    var_info saved_i = ivi ? *ivi : (var_info){0};
    OPEN("{ /* the threads step through this loop together: %s */", cpu_source_note(em, loop->loc));
    cpu_line(em, "uint8_t _a%d[1024]; /* still in the loop */", id);
    /* the index wraps as its type: uint or ushort; an int index (ggml's `for (int i00 =
     * tpitg.x; ...)`) steps in 64 bits, so the C never overflows where Metal's int would */
    bool signed_index = strided && si.var->type->kind == IR_T_I32;
    const char *itype = strided && si.var->type->kind == IR_T_U16 ? "uint16_t" : signed_index ? "int32_t" : "uint32_t";
    const char *imax = strided && si.var->type->kind == IR_T_U16 ? "UINT16_MAX" : signed_index ? "INT32_MAX" : "UINT32_MAX";
    const char *wrapped = NULL, *contiguous = NULL; /* the index of thread l: exact, and where it cannot wrap */
    if (strided) {
        /* i = thread index + _ib, _ib the same for all: one base instead of a stored index */
        const char *start = si.start ? uniform_value(w, si.start) : "0u";
        if (si.grid_base) start = cpu_S(em, "(uint32_t)(%s + %s)", si.grid_base, start);
        if (signed_index) cpu_line(em, "int64_t _ib%d = (int32_t)(%s);", id, start);
        else cpu_line(em, "uint32_t _ib%d = %s;", id, start);
        ivi->kind = VK_WIDE_EXPR;
        wrapped = cpu_S(em, "((%s)(_ib%d + %s))", itype, id, signed_index ? "(int64_t)l" : "l");
        contiguous = signed_index ? cpu_S(em, "(_ib%d + (int64_t)l)", id) : cpu_S(em, "((uint64_t)_ib%d + l)", id);
        ivi->cname = wrapped;
    }
    /* the last thread's index stays in the index type (a signed one: nor below it) */
    const char *in_range = NULL;
    wset inner = {set.lo, set.hi, cpu_S(em, "_a%d", id)};
    wset outer_nomask = {set.lo, set.hi, NULL};
    open_threads(w, outer_nomask);
    cpu_line(em, "_a%d[l] = %s;", id, set.mask ? cpu_S(em, "%s[l]", set.mask) : "1");
    close_threads(w, outer_nomask);
    const char *count = set.mask ? NULL : set.lo ? cpu_S(em, "%s - %s", set.hi, set.lo) : "_n";
    const char *last = set.lo ? cpu_S(em, "((uint64_t)%s - 1u)", set.hi) : "((uint64_t)_n - 1u)";
    /* `i < U` with i = _ib + l: while every thread is in, one test of the last thread's
     * index replaces the per-thread tests (no wrap either: _ib + last < U) */
    const ir_expr *limit = NULL;
    if (strided && count && head->kind == IR_E_UNARY && head->op == IR_OP_NOT && head->args[0]->kind == IR_E_BINARY &&
        head->args[0]->op == IR_OP_LT && widened(head->args[0]->args[0])->kind == IR_E_VAR &&
        widened(head->args[0]->args[0])->var == si.var && wide_uniform(w, head->args[0]->args[1]))
        limit = head->args[0]->args[1];
    if (strided)
        in_range = signed_index ? cpu_S(em, "_ib%d + (int64_t)%s <= INT32_MAX && _ib%d >= INT32_MIN", id, last, id)
                                : cpu_S(em, "(uint64_t)_ib%d + %s <= %s", id, last, imax);
    if (limit) cpu_line(em, "bool _all%d = true; /* every thread still in the loop */", id);
    OPEN("for (;;) {");
    w->divergent++;
    const ir_stmt *was_at = w->divergent_at;
    w->divergent_at = loop;
    if (limit) {
        /* a signed limit compares as signed (`int(c) < 256`); the last index must not wrap */
        const char *u = uniform_value(w, limit);
        if (!signed_index && si.var->type->kind == IR_T_U32 && !ir_is_signed(limit->type) && step_blockable(w, loop, first, &si)) {
            ivi->cname = contiguous;
            blocked_steps(w, loop, first, &si, set, contiguous, last, limit, u, id);
        }
        if (ir_is_signed(limit->type))
            OPEN("if (_all%d && (int64_t)_ib%d + (int64_t)%s < (int64_t)(%s) && %s) {", id, id, last, u, in_range);
        else
            OPEN("if (_all%d && (uint64_t)_ib%d + %s < (uint64_t)(%s) && %s) {", id, id, last, u, in_range);
        ivi->cname = contiguous;
        wset full = {set.lo, set.hi, NULL};
        w->stride_key = ivi->cname;
        if (!chunked_step(w, loop, first, &si, set, id)) {
            wide_split outer = w->split; /* a lock-step loop inside has its own */
            w->split = (wide_split){0};
            if (!signed_index) split_lanes(w, loop, first, si.var, cpu_S(em, "_ib%d", id));
            for (int i = first; i < b->stmt_count; i++) group_stmt(w, b->stmts[i], full);
            flush_batch(w);
            w->split = outer;
        }
        w->stride_key = NULL;
        next_row_prefetch(w, loop, si.var, limit, set, id);
        cpu_line(em, "_ib%d += %s%s;", id, signed_index ? "(int32_t)" : "", uniform_value(w, si.step));
        cpu_line(em, "continue;");
        CLOSE();
        /* and while every thread was in, the first thread's index at the limit means that
         * every thread leaves now: no per-thread test (lanes leave from the last one down) */
        const char *lo = set.lo ? set.lo : "0u";
        if (ir_is_signed(limit->type))
            cpu_line(em, "if (_all%d && (int64_t)_ib%d + (int64_t)%s >= (int64_t)(%s) && %s) break; /* every thread leaves */",
                     id, id, lo, u, in_range);
        else
            cpu_line(em, "if (_all%d && (uint64_t)_ib%d + %s >= (uint64_t)(%s) && %s) break; /* every thread leaves */", id,
                     id, lo, u, in_range);
        ivi->cname = wrapped;
    }
    cpu_line(em, "uint32_t _in%d = 0;", id);
    open_threads(w, inner);
    em->memos.count = 0;
    inline_loads(w, head);
    const char *c = wex(w, head, -1);
    em->memos.count = 0;
    cpu_line(em, "_a%d[l] = !(%s);", id, c);
    close_threads(w, inner);
    open_threads(w, outer_nomask);
    cpu_line(em, "_in%d += _a%d[l];", id, id);
    close_threads(w, outer_nomask);
    cpu_line(em, "if (!_in%d) break;", id);
    if (limit) cpu_line(em, "_all%d = _in%d == %s;", id, id, count);
    if (count) {
        /* every thread still in: no mask, and a grid-stride index as base + l in 64 bits
         * where base + l cannot wrap (so the access is contiguous) */
        const char *nowrap = strided ? cpu_S(em, " && %s", in_range) : "";
        OPEN("if (_in%d == %s%s) {", id, count, nowrap);
        if (strided) ivi->cname = contiguous;
        wset full = {set.lo, set.hi, NULL};
        for (int i = first; i < b->stmt_count; i++) group_stmt(w, b->stmts[i], full);
        flush_batch(w);
        if (!strided) group_list(w, loop->latch, full);
        flush_batch(w);
        ELSE();
        if (strided) ivi->cname = wrapped;
    }
    for (int i = first; i < b->stmt_count; i++) group_stmt(w, b->stmts[i], inner);
    flush_batch(w);
    if (!strided) group_list(w, loop->latch, inner);
    flush_batch(w);
    if (count) CLOSE();
    w->divergent_at = was_at;
    w->divergent--;
    if (strided) cpu_line(em, "_ib%d += %s%s;", id, signed_index ? "(int32_t)" : "", uniform_value(w, si.step));
    CLOSE();
    if (strided) *ivi = saved_i;
    CLOSE();
}

/* ---- SIMD-group functions and divergent tests around them ---------------------------------
 * A SIMD-group function (simd_sum, simd_shuffle_down, simd_ballot, ...) reads other threads'
 * values, so it cannot run inside a loop over threads: its arguments are first stored for
 * every thread of the set (a loop over threads, into per-thread scratch of the context
 * block shared by all such calls), then each SIMD group (32 consecutive linear thread
 * indices, as Metal forms them) combines the lanes of the set with the region emitter's own
 * code (cpu_group_op_lanes), so both modes give the same values. A simdgroup_barrier is then
 * only a comment, as a threadgroup barrier is. */
static void simd_function(wide *w, const ir_stmt *s, wset set) {
    emitter *em = w->em;
    var_info *ri = s->result ? cpu_info_of(em, s->result) : NULL;
    if (s->arg_count > 4 || (ri && ri->kind != VK_CONTEXT) || w->em->checked) {
        wfail(w);
        return;
    }
    cpu_line(em, "/* %s: %s */", ir_intrinsic_name(s->intrinsic), cpu_source_note(em, s->loc));
    const char *args[4] = {0};
    if (s->arg_count) {
        open_threads(w, set);
        for (int k = 0; k < s->arg_count; k++) {
            const ir_type *t = s->args[k]->type;
            const char *ct = cpu_ctype(em, t);
            if (t->size > w->lane_arg_size[k]) w->lane_arg_size[k] = t->size;
            args[k] = cpu_S(em, "((%s *)_ctx->_wlane%d + _sgl)", ct, k);
            em->memos.count = 0;
            inline_loads(w, s->args[k]);
            const char *v = thread_value(w, t, s->args[k]);
            em->memos.count = 0;
            if (!v) {
                wfail(w);
                return;
            }
            cpu_line(em, "((%s *)_ctx->_wlane%d)[l] = %s;", ct, k, v);
        }
        close_threads(w, set);
    }
    if (w->sg_region) OPEN("{ /* the SIMD group _sg of the region */");
    else OPEN("for (uint32_t _sg = 0; _sg < _nsg; _sg++) {");
    cpu_line(em, "const size_t _sgl = (size_t)_sg * 32u; /* its first thread */ (void)_sgl;");
    if (set_is_all(set)) {
        cpu_line(em, "/* the whole group: every lane below _n */");
        cpu_line(em, "const uint32_t _lanes = _n - _sgl >= 32u ? ENK_FULL : (1u << (_n - _sgl)) - 1u;");
    } else {
        const char *in = set.lo ? cpu_S(em, "_l >= %s && _l < %s", set.lo, set.hi) : "1";
        if (set.mask) in = cpu_S(em, "%s && %s[_l]", in, set.mask);
        cpu_line(em, "uint32_t _lanes = 0; /* the lanes of the set */");
        cpu_line(em, "for (size_t _l = _sgl; _l < _sgl + 32u && _l < _n; _l++) if (%s) _lanes |= 1u << (_l - _sgl);", in);
        if (!w->sg_region) cpu_line(em, "if (!_lanes) continue;");
    }
    if (w->sg_region) OPEN("if (_lanes) {"); /* not `continue`: that would leave the SIMD group's run */
    cpu_group_op_lanes(em, s, 32, "_lanes", args, ri ? cpu_S(em, "%s[_sgl + l]", ri->cname) : NULL);
    if (w->sg_region) CLOSE();
    CLOSE();
}

/* `if (c)` with c different per thread around statements that cannot run inside a loop
 * over threads (SIMD-group functions, lock-step loops): which threads take each branch is
 * computed once, into byte masks, before either runs */
static void divergent_if(wide *w, const ir_stmt *s, wset set) {
    emitter *em = w->em;
    if (w->em->checked && reads_memory(s->cond)) { /* its loads would go unchecked */
        wfail(w);
        return;
    }
    if (w->em->checked && !s->else_s && !set.mask) { /* on the thread index: a narrower range */
        const char *lo = set.lo ? set.lo : "0u", *hi = set.lo ? set.hi : "_n", *new_lo = lo;
        cpu_line(em, "/* %s */", cpu_source_note(em, s->loc));
        const char *r = range_bound(w, s->cond, lo, hi, &new_lo);
        if (r) {
            w->divergent++;
            const ir_stmt *was_at = w->divergent_at;
            w->divergent_at = s;
            group_list(w, s->then_s, (wset){new_lo, r, NULL});
            flush_batch(w);
            w->divergent_at = was_at;
            w->divergent--;
            return;
        }
    }
    int id = cpu_fresh(em);
    OPEN("{ /* the threads part: %s */", cpu_source_note(em, s->loc));
    cpu_line(em, "uint8_t _then%d[1024], _else%d[1024];", id, id);
    /* and how many threads take each: a branch none takes is not run (its uniform
     * statements run once for the group) */
    cpu_line(em, "uint32_t _nthen%d = 0, _nelse%d = 0;", id, id);
    wset outer_nomask = {set.lo, set.hi, NULL};
    open_threads(w, outer_nomask);
    em->memos.count = 0;
    inline_loads(w, s->cond);
    const char *c = wex(w, s->cond, -1);
    em->memos.count = 0;
    if (set.mask) OPEN("if (%s[l]) {", set.mask);
    cpu_line(em, "_then%d[l] = (%s) != 0; _else%d[l] = !_then%d[l];", id, c, id, id);
    if (set.mask) {
        ELSE();
        cpu_line(em, "_then%d[l] = _else%d[l] = 0; /* not in the set */", id, id);
        CLOSE();
    }
    cpu_line(em, "_nthen%d += _then%d[l]; _nelse%d += _else%d[l];", id, id, id, id);
    close_threads(w, outer_nomask);
    w->divergent++;
    const ir_stmt *was_at = w->divergent_at;
    w->divergent_at = s;
    OPEN("if (_nthen%d) {", id);
    group_list(w, s->then_s, (wset){set.lo, set.hi, cpu_S(em, "_then%d", id)});
    flush_batch(w);
    CLOSE();
    if (s->else_s) {
        OPEN("if (_nelse%d) {", id);
        group_list(w, s->else_s, (wset){set.lo, set.hi, cpu_S(em, "_else%d", id)});
        flush_batch(w);
        CLOSE();
    }
    w->divergent_at = was_at;
    w->divergent--;
    CLOSE();
}

/* `for (...; ...; v += C)`: a uniform counter v that the latch alone assigns, stepped by a
 * constant C > 0 (a GEMM's `k0 += TILE`, whatever its bound): v, else NULL */
static const ir_var *stepped_counter(wide *w, const ir_stmt *loop, unsigned long long *step) {
    const ir_stmt *latch = loop->latch;
    if (latch && latch->kind == IR_S_BLOCK && latch->stmt_count == 1) latch = latch->stmts[0];
    const ir_var *v = ir_stepped_var(latch, step);
    if (!v || !is_uniform_var(w, v) || (v->type->kind != IR_T_U32 && v->type->kind != IR_T_I32)) return NULL;
    return wide_count_assigns(w->em->f->body, v) == 1 ? v : NULL;
}

/* a loop the same in every thread: plain C, once */
static void uniform_loop(wide *w, const ir_stmt *loop, wset set) {
    emitter *em = w->em;
    int id = loop_push(w, loop);
    OPEN("for (;;) { /* the same in every thread: %s */", cpu_source_note(em, loop->loc));
    w->uniform_loops++;
    wide_step outer = w->step;
    unsigned long long step;
    w->step.var = stepped_counter(w, loop, &step);
    if (w->step.var) /* the counter two steps on, in its type's wrapping arithmetic */
        w->step.ahead = cpu_S(em, "((%s)((uint32_t)%s + %lluu))", cpu_ctype(em, w->step.var->type),
                              cpu_info_of(em, w->step.var)->cname, 2 * step);
    group_list(w, loop->body, set);
    flush_batch(w);
    cpu_line(em, "_cont%d: ;", id);
    group_list(w, loop->latch, set);
    flush_batch(w);
    w->step = outer;
    w->uniform_loops--;
    CLOSE();
    cpu_line(em, "_brk%d: ;", id);
    loop_pop(w);
}

/* Its head test is the same in every thread. Any other break or continue aimed at it is
 * checked where it is emitted: under a divergent if it makes the kernel leave wide mode. */
static bool loop_uniform(wide *w, const ir_stmt *s) {
    int first;
    const ir_expr *head = wide_loop_head(s, &first);
    return !head || wide_uniform(w, head);
}

/* A statement whose threads meet their own accesses (its store may be where another
 * thread loads) runs as two loops over the threads, as the lanes of a SIMD group in lock
 * step do it: all the values (and the threads that run it), then all the stores. */
static void staged_stmt(wide *w, const ir_stmt *s, const ir_stmt *assign, wset set) {
    emitter *em = w->em;
    int id = cpu_fresh(em);
    OPEN("{ /* every thread's loads before any thread's store (lanes in lock step): %s */", cpu_source_note(em, s->loc));
    cpu_line(em, "_Alignas(64) %s _ls%d[%d];", cpu_ctype(em, assign->place->type), id, CPU_MAX_THREADS);
    w->staged = cpu_S(em, "_ls%d", id);
    for (int storing = 0; storing < 2; storing++) {
        w->storing = storing;
        w->batch_set = set;
        EN_PUSH(&em->arena, w->batch, s);
        flush_threads(w);
    }
    w->staged = NULL;
    w->storing = false;
    CLOSE();
}

/* ---- checked mode ------------------------------------------------------------------------
 * A statement runs as loops over its threads with the hook between them, as the lanes of a
 * SIMD group in lock step would: every thread's addresses (no address may load: its load
 * would go unchecked), then access_span for each load, which sets a flag per thread (0: out
 * of bounds, the load gives zero); a store's values, then its access_span (which compares
 * a racing store's value), then the stores of the threads it lets through. While every
 * flag is set the loops read memory directly; else they test the flags. The runtime sees
 * each SIMD group's access as the region code's hooks give it (one operation a SIMD group),
 * so its reports are theirs. */

typedef struct checked_access {
    const ir_expr *e;    /* the place loaded or stored, or an atomic's pointer */
    const char *site;
    int id;              /* _waN (addresses), _wkN (flags) */
    bool pointer;        /* e is the address itself (an atomic's), not a place */
} checked_access;
typedef EN_VEC(checked_access) checked_accesses;

/* the loads of e, innermost first (inline_loads' order), each with its site; false when
 * one is not checkable here (thread memory, an address that loads) */
static bool collect_loads(wide *w, const ir_expr *e, checked_accesses *acc) {
    if (!e) return true;
    emitter *em = w->em;
    if (e->kind == IR_E_ADDR && ir_is_place(e->args[0])) { /* an address: no load of the place */
        for (int i = 0; i < e->args[0]->arg_count; i++)
            if (!collect_loads(w, e->args[0]->args[i], acc)) return false;
        return true;
    }
    for (int i = 0; i < e->arg_count; i++)
        if (!collect_loads(w, e->args[i], acc)) return false;
    if (!is_load(e)) return true;
    for (int i = 0; i < e->arg_count; i++)
        if (reads_memory(e->args[i])) return false;
    const char *site = cpu_access_site(em, e, CPU_CHECK_LOAD, cpu_ctype(em, e->type));
    if (!site) return false;
    EN_PUSH(&em->arena, *acc, ((checked_access){e, site, cpu_fresh(em), false}));
    return true;
}

/* Access c is X[i], X the same in every thread, i = b + s * _x (wform_of): the C test, true
 * where the set's threads' addresses are consecutive (s is 1, and no thread's i wraps, so
 * i is b + _x exactly), to stand where the first thread's l, _x and _y do; else NULL */
static const char *consecutive_test(wide *w, wset set, const checked_access *c, const char *hi) {
    emitter *em = w->em;
    const ir_expr *e = c->e;
    if (c->pointer || w->sg_region || e->kind != IR_E_INDEX) return NULL;
    const ir_expr *x = e->args[0], *i = e->args[1];
    /* (a uniform load in checked mode would take the kernel out of wide mode: none here) */
    if (reads_memory(x) || reads_memory(i) || !wide_uniform(w, x)) return NULL;
    wform f = wform_of(w, i, -1, set.lo != NULL, 0);
    if (!f.ok || !f.s || !f.bmax || !f.smax) return NULL;
    const char *rows = set.lo ? "" : "_sy == 1u && "; /* by rows: l is _x in one row only */
    return cpu_S(em, "%s(uint32_t)(%s) == 1u && enk_sat_add(%s, enk_sat_mul(%s, (uint64_t)(%s) - 1u)) <= UINT32_MAX", rows,
                 f.s, f.bmax, f.smax, hi);
}

/* every thread's address of each access (the range's threads, set or not: no address
 * loads, and division by a value needs checked mode's own test, which takes the kernel out
 * of wide mode), then the hook; _wok: all of them may touch memory */
static void checked_hooks(wide *w, wset set, const checked_accesses *acc, const char *values, bool store) {
    emitter *em = w->em;
    if (!acc->count) return;
    for (int i = 0; i < acc->count; i++)
        cpu_line(em, "uintptr_t _wa%d[%d]; uint8_t _wk%d[%d];", acc->items[i].id, CPU_MAX_THREADS, acc->items[i].id,
                 CPU_MAX_THREADS);
    const char *lo = set.lo ? set.lo : "0u", *hi = set.lo ? set.hi : "_n";
    const char **address = en_alloc(&em->arena, sizeof(char *) * (size_t)acc->count);
    const char *known = ""; /* every access's consecutive_test, joined by && */
    for (int i = 0; i < acc->count && known; i++) {
        const char *test = consecutive_test(w, set, &acc->items[i], hi);
        known = test ? cpu_S(em, "%s%s(%s)", known, i ? " && " : "", test) : NULL;
    }
    int first_id = acc->items[0].id;
    for (int i = 0; i < acc->count; i++) {
        const ir_expr *e = acc->items[i].e;
        address[i] = acc->items[i].pointer ? wex(w, e, -1) : cpu_S(em, "&%s", wlvalue(w, e));
        cpu_line(em, "uintptr_t _wf%d = 0, _wc%d = 0; /* the first thread's address; 0: consecutive */", acc->items[i].id,
                 acc->items[i].id);
    }
    if (known) cpu_line(em, "bool _wd%d = false; /* consecutive, known from the index's form */", first_id);
    /* consecutive elements (a tree level, a tile row) let the hook test a SIMD group in
     * O(1), reading only the first thread's address. Where the index's form shows them
     * consecutive, that address is all that is taken; else each thread's is, and compared
     * with the first one's plus its distance in the same loop (the address arrays and their
     * test were half of a checked statement's cost in seed 003) */
    OPEN("if (%s < %s) { /* the first thread's addresses: open_threads' first thread */", lo, hi);
    if (!set.lo) {
        cpu_line(em, "const uint32_t _y = 0, _x = 0; const size_t l = 0; (void)_x; (void)_y; (void)l;");
    } else {
        cpu_line(em, "const size_t l = %s;", lo);
        name_range_thread(w);
    }
    for (int i = 0; i < acc->count; i++) cpu_line(em, "_wf%d = (uintptr_t)(%s);", acc->items[i].id, address[i]);
    if (known) cpu_line(em, "_wd%d = %s;", first_id, known);
    CLOSE();
    if (known) {
        OPEN("if (_wd%d) {", first_id);
        for (int i = 0; i < acc->count; i++) cpu_line(em, "_wa%d[%s] = _wf%d;", acc->items[i].id, lo, acc->items[i].id);
        ELSE();
    }
    wset all = {set.lo, set.hi, NULL};
    open_threads(w, all);
    for (int i = 0; i < acc->count; i++) {
        const checked_access *c = &acc->items[i];
        const ir_type *t = c->pointer ? c->e->type->elem : c->e->type;
        if (t && t->kind == IR_T_ATOMIC) t = t->elem;
        cpu_line(em, "_wa%d[l] = (uintptr_t)(%s);", c->id, address[i]);
        cpu_line(em, "_wc%d |= _wa%d[l] ^ (_wf%d + (l - %s) * sizeof(%s));", c->id, c->id, c->id, lo, cpu_ctype(em, t));
    }
    close_threads(w, all);
    if (known) CLOSE();
    for (int i = 0; i < acc->count; i++) {
        const checked_access *c = &acc->items[i];
        cpu_line(em, "%s &= _cg->api->access_span(_cg->state, %s, %s, %s, %s, _wa%d, _wc%d == 0, %s, _wk%d);",
                 store ? "_wos" : "_wok", c->site, lo, hi, set.mask ? set.mask : "NULL", c->id, c->id,
                 values ? values : "NULL", c->id);
    }
}

/* the statement's loop over the threads, twice: loads read directly (every flag set), and
 * loads that read only where their thread's flag is set */
static void checked_loops(wide *w, wset set, const ir_stmt *s, const checked_accesses *loads, const char *guard) {
    emitter *em = w->em;
    int versions = loads->count ? 2 : 1;
    for (int guarded = 0; guarded < versions; guarded++) {
        if (versions == 2 && !guarded) OPEN("if (_wok) { /* every load in bounds */");
        if (guarded) ELSE();
        w->chk_guarded = guarded;
        w->chk_flags.count = 0;
        for (int i = 0; i < loads->count; i++)
            EN_PUSH(&em->arena, w->chk_flags, ((memo_entry){loads->items[i].e, cpu_S(em, "_wk%d", loads->items[i].id)}));
        if (guard) { /* an atomic: only where its own flag is set */
            open_threads(w, set);
            OPEN("if (%s[l]) {", guard);
            thread_body(w, &s, 1);
            CLOSE();
            close_threads(w, set);
        } else {
            thread_loop(w, set, &s, 1); /* indices that cannot wrap in 64 bits: it vectorises */
        }
    }
    if (versions == 2) CLOSE();
    w->chk_guarded = false;
    w->chk_flags.count = 0;
}

static void checked_stmt(wide *w, const ir_stmt *s, wset set) {
    emitter *em = w->em;
    flush_batch(w);
    if (s->kind == IR_S_DECL && !s->value) return;
    checked_accesses loads = {0}, store = {0};
    bool ok = true;
    const ir_expr *place = s->kind == IR_S_ASSIGN ? s->place : NULL;
    if (s->kind == IR_S_INTRINSIC) { /* an atomic: its pointer is the access, its operands may load */
        for (int k = 1; k < s->arg_count && ok; k++) ok = collect_loads(w, s->args[k], &loads);
        const ir_type *at = s->args[0]->type->elem;
        const ir_type *t = at && at->kind == IR_T_ATOMIC ? at->elem : at;
        const char *site = !ok || reads_memory(s->args[0]) || !t ? NULL
                           : cpu_atomic_site(em, s->args[0], t,
                                             s->intrinsic == IR_I_ATOMIC_LOAD    ? CPU_CHECK_ATOMIC_LOAD
                                             : s->intrinsic == IR_I_ATOMIC_STORE ? CPU_CHECK_ATOMIC_STORE
                                                                                 : CPU_CHECK_ATOMIC_RMW);
        if (!site) ok = false;
        else EN_PUSH(&em->arena, store, ((checked_access){s->args[0], site, cpu_fresh(em), true}));
    } else {
        const ir_type *vt = s->value ? s->value->type : NULL;
        /* an array or struct copied whole: not taken */
        ok = !(vt && (vt->kind == IR_T_ARRAY || vt->kind == IR_T_STRUCT)) && collect_loads(w, s->value, &loads);
        if (ok && place && (place->kind != IR_E_VAR || cpu_needs_access(place))) { /* memory, or a thread's own */
            bool memory = ir_is_place(place) && place->kind != IR_E_SWIZZLE && cpu_needs_access(place);
            for (int i = 0; i < place->arg_count && ok; i++) ok = !reads_memory(place->args[i]);
            const char *site = ok && memory ? cpu_access_site(em, place, CPU_CHECK_STORE, cpu_ctype(em, place->type)) : NULL;
            if (!site || !ir_is_scalar(place->type)) ok = false; /* thread memory, a swizzle, an aggregate */
            else EN_PUSH(&em->arena, store, ((checked_access){place, site, cpu_fresh(em), false}));
        }
    }
    if (!ok) {
        wfail(w);
        return;
    }
    OPEN("{ /* checked (access_span): %s */", cpu_source_note(em, s->loc));
    cpu_line(em, "int _wok = 1, _wos = 1; (void)_wok; (void)_wos;");
    checked_hooks(w, set, &loads, NULL, false);
    if (s->kind == IR_S_INTRINSIC) {
        checked_hooks(w, set, &store, NULL, true);
        /* the loads' flags, then the atomic's own (a thread out of bounds does not run it) */
        checked_loops(w, set, s, &loads, cpu_S(em, "_wk%d", store.items[0].id));
    } else if (store.count) {
        int id = cpu_fresh(em);
        cpu_line(em, "_Alignas(64) %s _wv%d[%d]; /* every thread's value first: lanes in lock step */",
                 cpu_ctype(em, place->type), id, CPU_MAX_THREADS);
        w->staged = cpu_S(em, "_wv%d", id);
        w->storing = false;
        checked_loops(w, set, s, &loads, NULL);
        checked_hooks(w, set, &store, w->staged, true);
        w->storing = true;
        const char *flags = cpu_S(em, "_wk%d", store.items[0].id);
        OPEN("if (_wos) {");
        thread_loop(w, set, &s, 1);
        ELSE();
        w->chk_store_flags = flags;
        open_threads(w, set);
        thread_body(w, &s, 1);
        close_threads(w, set);
        w->chk_store_flags = NULL;
        CLOSE();
        w->staged = NULL;
        w->storing = false;
    } else {
        checked_loops(w, set, s, &loads, NULL);
    }
    CLOSE();
}

static void group_stmt(wide *w, const ir_stmt *s, wset set) {
    emitter *em = w->em;
    if (!s || w->failed) return;
    if (matrix_stmt(s)) { /* uniform over each SIMD group: so its threads all run it */
        if (s->kind == IR_S_DECL && !s->value) return; /* storage comes with the first use */
        if (w->divergent || !set_is_whole(w, set) || w->em->checked) {
            wfail(w);
            return;
        }
        flush_threads(w);
        EN_PUSH(&em->arena, w->matrix_batch, s);
        return;
    }
    if (sg_candidate(w, s, set)) {
        flush_batch(w);
        sg_region(w, s);
        return;
    }
    if (w->em->checked && checked_shape(w, s)) {
        checked_stmt(w, s, set);
        return;
    }
    const ir_stmt *staged =
        !w->em->checked && s->kind != IR_S_LOOP && per_thread_shape(w, s) ? wide_stageable(w, s) : NULL;
    if (staged && wide_needs_lock_step(w, NULL, 0, s)) {
        flush_batch(w);
        staged_stmt(w, s, staged, set);
        return;
    }
    if (!w->em->checked && batchable(w, s)) {
        flush_matrices(w);
        if (w->batch.count && (w->batch_set.lo != set.lo || w->batch_set.mask != set.mask)) flush_batch(w);
        if (w->batch.count && wide_needs_lock_step(w, w->batch.items, w->batch.count, s)) flush_batch(w);
        w->batch_set = set;
        EN_PUSH(&em->arena, w->batch, s);
        return;
    }
    flush_batch(w);
    switch (s->kind) {
    case IR_S_BLOCK: group_list(w, s, set); break;
    case IR_S_DECL:
    case IR_S_ASSIGN: {
        /* a uniform variable: once, by the group, where every thread runs the same code */
        if (s->kind == IR_S_ASSIGN && s->place->kind != IR_E_VAR) { /* memory: per thread or not at all */
            wfail(w);
            break;
        }
        const ir_var *v = s->kind == IR_S_DECL ? s->var : s->place->var;
        const ir_expr *value = s->value;
        /* under divergence: a variable no thread reads outside the divergent statement (a
         * counter of a loop inside it), whose value the threads that run it all give it; or
         * one the uniformity pass found the same in every thread there (the test around it
         * is then the same in every thread too, though wide mode sees a per-thread variable
         * in it: MLX's all_reduce tests `start_idx` before assigning it per thread), run
         * once when any thread takes the branch, as the region emitter does */
        bool local = w->divergent && w->divergent_at &&
                     (!var_read_outside(em->f->body, v, w->divergent_at) || (v->uniform && w->divergent_at->kind == IR_S_IF));
        /* a value wide mode sees as per thread (it reads a variable assigned per thread
         * elsewhere) that the uniformity pass found the same in every thread here: the first
         * thread of the set computes it, as the region emitter's first lane does */
        bool first_thread = value && v->uniform && !wide_uniform(w, value) && !w->per_sg;
        if (w->em->checked && (local || first_thread)) { /* the runtime would see one thread's accesses */
            wfail(w);
            break;
        }
        if ((w->divergent && !local) || (!set_is_whole(w, set) && !local) || !value ||
            (!wide_uniform_in(w, value, false) && !first_thread)) {
            if (s->kind == IR_S_DECL && !value && (!w->divergent || local)) break;
            wfail(w);
            break;
        }
        if (first_thread) {
            OPEN("{ /* the same in every thread (uniformity pass): thread l of the set computes it */");
            const char *lo = set.lo ? set.lo : "0u", *hi = set.lo ? set.hi : "_n";
            cpu_line(em, "size_t l = %s;", lo);
            if (set.mask) cpu_line(em, "while (l + 1 < %s && !%s[l]) l++;", hi, set.mask);
            cpu_line(em, "const uint32_t _x = (uint32_t)l %% _sx, _y = (uint32_t)l / _sx; (void)_x; (void)_y;");
        }
        const char *val = uniform_value(w, value);
        cpu_line(em, "%s = %s; /* %s */", cpu_var_lvalue(em, v), cpu_to_storage(em, v->type, val),
                 cpu_source_note(em, s->loc));
        if (first_thread) CLOSE();
        break;
    }
    case IR_S_IF: {
        if (!wide_uniform(w, s->cond)) {
            divergent_if(w, s, set);
            break;
        }
        const char *c = uniform_value(w, s->cond);
        OPEN("if (%s) { /* the same in every thread: %s */", c, cpu_source_note(em, s->loc));
        group_list(w, s->then_s, set);
        flush_batch(w);
        if (s->else_s) {
            ELSE();
            group_list(w, s->else_s, set);
            flush_batch(w);
        }
        CLOSE();
        break;
    }
    case IR_S_LOOP: {
        int first;
        const ir_expr *head = wide_loop_head(s, &first);
        const ir_stmt *loops[32];
        if (loop_uniform(w, s) && !w->per_sg && !w->divergent && set_is_all(set) && has_matrix_stmt(s) &&
            matrix_only(w, s) && exits_inside(s, loops, 0))
            matrix_loop(w, s, set);
        else if (w->per_sg && block_products(w, s)) { /* emitted as a block of products */ }
        else if (loop_uniform(w, s)) uniform_loop(w, s, set);
        else if (head && !cpu_has_barrier(s)) lockstep_loop(w, s, set, head, first);
        else wfail(w);
        break;
    }
    case IR_S_BREAK:
    case IR_S_CONTINUE:
        if (w->divergent && !exit_together(w, s)) { /* a thread leaving a lock-step loop on its own */
            wfail(w);
            break;
        }
        cpu_line(em, "goto _%s%d;", s->kind == IR_S_BREAK ? "brk" : "cont", loop_id(w, s->target));
        break;
    case IR_S_INTRINSIC:
        if (s->intrinsic == IR_I_BARRIER_THREADGROUP) {
            if (w->divergent || !set_is_all(set)) {
                wfail(w);
                break;
            }
            cpu_line(em, "/* %s: every thread has run the loops above */", cpu_source_note(em, s->loc));
            if (!w->em->checked) next_group_prefetch(w, s);
            if (w->em->checked) /* all arrive (wide mode takes no divergent barrier): a new epoch */
                cpu_line(em, "_cg->api->barrier(_cg->state, %s, _wall, _chk_ret, _nsg);",
                         cpu_site_ref(em, s->loc, CPU_CHECK_BARRIER, 0, -1, NULL, "threadgroup_barrier"));
            break;
        }
        if (s->intrinsic == IR_I_BARRIER_SIMDGROUP) {
            cpu_line(em, "/* %s: every thread of the set has run the loops above */", cpu_source_note(em, s->loc));
            if (w->em->checked) {
                if (w->divergent || !set_is_all(set)) {
                    wfail(w);
                    break;
                }
                cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _cg->api->simd_barrier(_cg->state, %s, _sg, _wall[_sg], 0);",
                         cpu_site_ref(em, s->loc, CPU_CHECK_SIMD_BARRIER, 0, -1, NULL, "simdgroup_barrier"));
            }
            break;
        }
        if (ir_intrinsic_class_of(s->intrinsic) == IR_IC_SIMD) {
            simd_function(w, s, set);
            break;
        }
        wfail(w);
        break;
    default: wfail(w); break;
    }
}

/* ---- variables ----------------------------------------------------------------------- */
/* an expression that can stand for a never-assigned local at each of its uses: positions,
 * parameters, constants and other such locals, no loads (their memory may change) */
static bool inlinable(wide *w, const ir_expr *e) {
    if (!e) return true;
    switch (e->kind) {
    case IR_E_CONST: return true;
    case IR_E_VAR: {
        const ir_var *v = e->var;
        var_info *vi = cpu_info_of(w->em, v);
        if (v->storage == IR_VAR_LOCAL && v->param_kind == IR_PARAM_NONE) return vi->kind == VK_WIDE_EXPR;
        return (vi->kind == VK_UNIFORM || vi->kind == VK_WIDE_ATTR) && !v->is_assigned;
    }
    case IR_E_UNARY: case IR_E_BINARY: case IR_E_CONVERT: case IR_E_SELECT: case IR_E_SWIZZLE:
    case IR_E_PTR_OFFSET: case IR_E_PTRCAST:
        if (e->kind == IR_E_BINARY && (e->op == IR_OP_DIV || e->op == IR_OP_REM)) return false;
        for (int i = 0; i < e->arg_count; i++)
            if (!inlinable(w, e->args[i])) return false;
        return true;
    default: return false;
    }
}

static bool wide_param(const ir_var *v) {
    if (v->param_kind != IR_PARAM_ATTR) return true;
    switch (v->attr) {
    case IR_ATTR_THREAD_INDEX_IN_QUADGROUP:
    case IR_ATTR_QUADGROUP_INDEX_IN_THREADGROUP:
        return false;
    default: return true;
    }
}

static void classify(wide *w, const ir_func *f) {
    emitter *em = w->em;
    for (int k = 0; k < f->param_count; k++) {
        const ir_var *v = f->params[k];
        if (!wide_param(v)) {
            wfail(w);
            return;
        }
        var_info *vi = cpu_info_of(em, v);
        if (vi->kind == VK_LANE_ATTR) vi->kind = VK_WIDE_ATTR;
        if (vi->kind == VK_CONTEXT) { /* assigned (MLX's `in += row * size`): each thread's copy is in */
            const ir_type *t = v->type;
            if (v->address_taken || !(ir_is_scalar(t) || t->kind == IR_T_VEC || t->kind == IR_T_PTR)) {
                wfail(w);
                return;
            }
            /* the same in every thread: one C scalar, from thread 0's copy (cpu_wide_body) */
            if (v->uniform && (t->kind != IR_T_PTR || t->space != IR_SPACE_THREAD)) vi->kind = VK_SCALAR;
            vi->cname = cpu_S(em, "w_%s", vi->cname);
        }
    }
    for (int k = 0; k < f->locals.count; k++) { /* in declaration order: inits see earlier ones */
        const ir_var *v = f->locals.items[k];
        var_info *vi = cpu_info_of(em, v);
        if (vi->kind == VK_UNUSED) continue;
        const ir_type *t = v->type;
        if (is_matrix_type(t)) { /* per SIMD group, from its first use (matrix_var) */
            if (v->address_taken) {
                wfail(w);
                return;
            }
            vi->kind = VK_UNUSED; /* no per-thread storage */
            continue;
        }
        bool scalar_like = ir_is_scalar(t) || t->kind == IR_T_VEC || t->kind == IR_T_PTR;
        if (!scalar_like && t->kind != IR_T_ARRAY && t->kind != IR_T_STRUCT) {
            wfail(w);
            return;
        }
        const char *name = cpu_S(em, "w_%s", vi->cname);
        if (v->uniform && !v->address_taken && scalar_like && (t->kind != IR_T_PTR || t->space != IR_SPACE_THREAD)) {
            vi->kind = VK_SCALAR;
            vi->cname = name;
            continue;
        }
        const ir_expr *init = em->inits[v->id];
        if (!v->is_assigned && !v->address_taken && init && (ir_is_scalar(t) || t->kind == IR_T_PTR) && inlinable(w, init)) {
            vi->kind = VK_WIDE_EXPR;
            vi->cname = NULL; /* cpu_var_lvalue computes it at each use */
            continue;
        }
        /* a per-thread variable whose address is taken has its own storage per thread too,
         * w_x[l], so `&x` is &w_x[l] for thread l */
        vi->kind = VK_CONTEXT;
        vi->cname = name;
        en_buf_printf(w->fields, "    %s %s[%d]; /* wide mode */\n", cpu_ctype(em, t), name, CPU_MAX_THREADS);
    }
}

/* a quad function or a return: wide mode takes neither */
static bool not_taken_stmt(const ir_stmt *s) {
    switch (s->kind) {
    case IR_S_INTRINSIC: return ir_intrinsic_class_of(s->intrinsic) == IR_IC_QUAD;
    case IR_S_RETURN: return true;
    default: return false;
    }
}

static bool atomic_stmt(const ir_stmt *s) {
    return s->kind == IR_S_INTRINSIC && ir_intrinsic_class_of(s->intrinsic) == IR_IC_ATOMIC;
}

static bool has_atomic(const ir_stmt *s) { return ir_stmt_any(s, atomic_stmt); }

EN_INTERNAL bool cpu_wide_body(emitter *em, const ir_func *f, en_buf *fields) {
    if (!cpu_has_barrier(f->body) || ir_stmt_any(f->body, not_taken_stmt)) return false;
    /* wide mode changes the classification: keep the region emitter's to restore */
    var_info *saved = en_alloc(&em->arena, sizeof(var_info) * (size_t)em->var_count);
    memcpy(saved, em->vars, sizeof(var_info) * (size_t)em->var_count);
    wide ws = {0}, *w = &ws;
    w->em = em;
    w->has_atomics = has_atomic(f->body);
    en_buf own_fields = {0}, body = {0};
    w->fields = &own_fields;
    classify(w, f);
    en_buf *out = em->out;
    int indent = em->indent;
    int counter = em->counter;
    int loops = em->loops.count;
    if (!w->failed) {
        em->out = &body;
        em->indent = indent + 1;
        em->wide = true;
        if (w->em->checked) { /* wide mode's barriers: every thread arrives */
            cpu_line(em, "uint32_t _wall[32]; /* checked: the threads of each SIMD group */");
            cpu_line(em, "for (uint32_t _sg = 0; _sg < _nsg; _sg++) _wall[_sg] = _n - _sg * 32u >= 32u ? ENK_FULL : (1u << (_n - _sg * 32u)) - 1u;");
        }
        for (int k = 0; k < f->param_count; k++) { /* assigned parameters: their copies per thread */
            const ir_var *v = f->params[k];
            var_info *vi = cpu_info_of(em, v), *was = &saved[v->id];
            if (was->kind != VK_CONTEXT) continue;
            if (vi->kind == VK_SCALAR)
                cpu_line(em, "%s %s = _ctx->%s[0]; /* the same in every thread */", cpu_ctype(em, v->type), vi->cname, was->cname);
            else
                cpu_line(em, "%s *__restrict %s = _ctx->%s;", cpu_ctype(em, v->type), vi->cname, was->cname);
        }
        for (int k = 0; k < f->locals.count; k++) {
            const ir_var *v = f->locals.items[k];
            var_info *vi = cpu_info_of(em, v);
            if (vi->kind == VK_SCALAR) cpu_line(em, "%s %s; /* the same in every thread */", cpu_ctype(em, v->type), vi->cname);
            else if (vi->kind == VK_CONTEXT)
                /* restrict: the context block is reached through these pointers only */
                cpu_line(em, "%s *__restrict %s = _ctx->%s;", cpu_ctype(em, v->type), vi->cname, vi->cname);
        }
        group_list(w, f->body, ALL);
        flush_batch(w);
        cpu_line(em, "return;");
        em->wide = false;
    }
    em->out = out;
    em->indent = indent;
    memcpy(em->vars, saved, sizeof(var_info) * (size_t)em->var_count);
    em->memos.count = 0;
    em->loops.count = loops;
    bool ok = !w->failed && !em->failed && !body.out_of_memory;
    if (ok) {
        cpu_line(em, "/* wide mode (emit_wide.c): the whole threadgroup as one gang; threadgroup-uniform");
        cpu_line(em, " * control flow runs once, each per-thread statement is a loop over the threads */");
        OPEN("if (g->size[2] == 1%s) {", w->needs_one_d ? " && _one_d" : "");
        cpu_line(em, "const uint32_t _sx = g->size[0], _sy = g->size[1]; (void)_sx; (void)_sy;");
        /* the group's first position in the grid, in locals: with -fno-strict-aliasing a
         * store through any pointer could change g->position, so gcc would reload it in
         * every loop over the threads and not vectorise */
        cpu_line(em, "const uint32_t _g0 = g->position[0] * g->group_size[0], _g1 = g->position[1] * g->group_size[1];");
        cpu_line(em, "(void)_g0; (void)_g1;");
        if (w->hoisted_decls.data) { /* at the wide block's indent */
            const char *p = w->hoisted_decls.data;
            while (*p) {
                const char *nl = strchr(p, '\n');
                cpu_line(em, "%.*s", (int)(nl - p), p);
                p = nl + 1;
            }
        }
        en_buf_puts(em->out, body.data);
        CLOSE();
        if (own_fields.data) en_buf_puts(fields, own_fields.data);
        for (int k = 0; k < 4; k++) /* simd_function's arguments, per thread */
            if (w->lane_arg_size[k])
                en_buf_printf(fields, "    _Alignas(64) unsigned char _wlane%d[%d * %u]; /* wide mode: SIMD-function arguments */\n", k,
                              CPU_MAX_THREADS, w->lane_arg_size[k]);
    } else {
        em->counter = counter;
    }
    en_buf_free(&own_fields);
    en_buf_free(&body);
    en_buf_free(&w->hoisted_decls);
    return ok;
}
