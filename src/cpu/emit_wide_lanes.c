/* emit_wide_lanes.c — wide mode: which per-thread statements may share a loop over the threads.
 *
 * Needs: a `wide` in the middle of cpu_wide_body (its emitter's variables classified for
 *   wide mode, em->inits filled).
 * Guarantees: wide_needs_lock_step() says true whenever running s in the same loop over the
 *   threads as the statements before it (or s's own loads and store in one loop) could let
 *   a lane of a SIMD group see threadgroup memory (or device memory, loads against
 *   stores, below) in another state than lock step gives;
 *   false only where it proves otherwise (below). wide_stageable() names the store of a
 *   statement that two loops can run. Both only read the IR; what they set is
 *   w->needs_one_d, when a proof rests on the thread's x position.
 *
 * Why. A loop over the threads runs its statements whole for thread l, then thread l + 1.
 * In Metal the lanes of a SIMD group run in lock step, statement by statement (as the
 * region emitter runs them): every lane's loads of a statement come before any lane's
 * stores of it, and a statement's stores before a later statement's loads. ggml's flash
 * attention reads ss[0] and ss[1] in every lane, then lane 0 writes them; a shift
 * `if (lane > 0) t[lid] = t[lid - 1];` reads the slot its neighbour writes. So two accesses
 * to threadgroup memory, one of them a store, share a loop over the threads only when no
 * two threads of a SIMD group can meet at one address through them in an order lock step
 * would not give (mem_access_add): each thread's two addresses are the same (the same
 * place, its variables unchanged in between); or each thread has a place of its own in
 * both: a block (`tgp[lid * N + i]`, i counting 0..N-1), a residue (the lane plus
 * multiples of 32, from one start), a column in rows (`so4[j*PV4 + i]`, i from the lane in
 * steps of 32 below the row's width, any row j the same in the SIMD group); or a load at
 * thread l + d, d >= 0, comes before the store at thread l (a tree's `tg[lid] +=
 * tg[lid + s]`: increasing l loads first).
 * Stores of one address by all the threads of a SIMD group may meet each other (lock step
 * leaves the winner open too). Threadgroup memory is told apart by object: `threadgroup`
 * variables and [[threadgroup(n)]] buffers, where a pointer shows which one it is in.
 * Device memory is told apart by the [[buffer(n)]] a pointer was made from, where the
 * kernel shows it, and loads against stores only: buffers bound to two parameters are taken
 * not to overlap, and two stores from two lanes meet only where the lanes' output regions
 * overlap (per-thread output pointers, MLX's `out += ... + lid * N_READS`, would otherwise
 * make every store loop lock step). A statement that meets itself (`t[lid] =
 * t[lid - 1]`) runs as two loops: the values, then the stores (emit_wide.c, staged_stmt).
 *
 * Not seen: device memory through pointers whose buffer the kernel does not show, and two
 * stores there; index forms other than those above are taken to meet (the statements then
 * get loops of their own: slower, correct). */
#include "emit_wide.h"

typedef struct mem_access {
    uint32_t bits;         /* mem_bits of the place */
    const ir_var *buffer;  /* device memory: the [[buffer(n)]] it lies in (NULL: not known) */
    const ir_expr *place;  /* the place; NULL for a store to one address in a SIMD group */
    bool store;
    /* a block of its own per thread: index = block * thread + r, 0 <= r < block, where the
     * thread's index (`thread`, an attribute of it) differs in every lane of a SIMD group */
    long long block;
    const ir_expr *thread;
    const ir_expr *at[4];  /* and the terms the same in the SIMD group, where its blocks start */
    int at_count;
    /* or every index it takes is the thread's lane plus a multiple of 32 plus `at` (ggml's
     * `for (short i = tiisg; i < SH; i += NW) ss[j*SH + i] = ...`): lanes never meet */
    bool residue;
    long long rows, column; /* or rows of this width, a column per lane from `column` on (lane_rows) */
    bool one_d;            /* the thread's x position: so only in 1-D groups */
} mem_access;

enum { MEM_ACCESSES = 256, MEM_ASSIGNED = 64, MEM_COUNTERS = 8 };
typedef struct mem_use {
    uint32_t loads;         /* what it reads (or names a place in): mem_bits */
    uint32_t shared_stores; /* where the threads of a SIMD group store alike */
    mem_access acc[MEM_ACCESSES]; /* the accesses the rules look at, in order */
    int count;
    const ir_var *assigned[MEM_ASSIGNED]; /* variables assigned so far */
    int assigned_count;
    struct { const ir_var *var; long long lo, hi; } counters[MEM_COUNTERS]; /* of loops around */
    int counter_count;
    /* counters of loops around that are the lane + 32 k, at most hi (-1: not known) */
    struct { const ir_var *var; long long hi; } by_lane[MEM_COUNTERS];
    int by_lane_count;
    bool full;              /* a list ran out: every later access conflicts */
} mem_use;

/* a mem_use with nothing walked yet. Its lists are read only up to their counts, so their
 * ~30 KB are left as they are: zeroing them (`= {0}`) at each of the dozens of calls a
 * kernel makes was 5% of the instructions of a compile-cache hit. */
static void mem_use_clear(mem_use *u) {
    u->loads = u->shared_stores = 0;
    u->count = u->assigned_count = u->counter_count = u->by_lane_count = 0;
    u->full = false;
}

/* does s give pointer v a value other than `v + n` (MLX's `As += partition` keeps v in
 * the object it points into)? */
static bool moves_elsewhere(const ir_stmt *s, const void *ctx) {
    const ir_var *v = ctx;
    if ((s->kind == IR_S_INTRINSIC || s->kind == IR_S_CALL) && s->result == v) return true;
    if (s->kind != IR_S_ASSIGN || s->place->kind != IR_E_VAR || s->place->var != v) return false;
    const ir_expr *x = s->value;
    return !(x->kind == IR_E_PTR_OFFSET && x->args[0]->kind == IR_E_VAR && x->args[0]->var == v);
}

/* the object a pointer points into, when the kernel shows it: a `threadgroup` variable, a
 * [[threadgroup(n)]] or a [[buffer(n)]] parameter; else NULL */
static const ir_var *pointee(const emitter *em, const ir_expr *p, int depth) {
    if (!p || depth > 16) return NULL;
    switch (p->kind) {
    case IR_E_PTRCAST:
    case IR_E_PTR_OFFSET: return pointee(em, p->args[0], depth + 1);
    case IR_E_ADDR: {
        const ir_expr *q = p->args[0];
        while (q->kind == IR_E_FIELD || q->kind == IR_E_SWIZZLE || (q->kind == IR_E_INDEX && q->args[0]->type->kind != IR_T_PTR))
            q = q->args[0];
        if (q->kind == IR_E_VAR) return q->var->storage == IR_VAR_THREADGROUP ? q->var : NULL;
        return q->kind == IR_E_INDEX || q->kind == IR_E_DEREF ? pointee(em, q->args[0], depth + 1) : NULL;
    }
    case IR_E_VAR: {
        const ir_var *v = p->var;
        if (v->storage != IR_VAR_LOCAL || v->address_taken) return NULL;
        if (v->is_assigned && ir_stmt_any_in(em->f->body, moves_elsewhere, v)) return NULL;
        if (v->param_kind == IR_PARAM_THREADGROUP || v->param_kind == IR_PARAM_BUFFER) return v;
        if (v->param_kind != IR_PARAM_NONE || v->id >= em->var_count) return NULL;
        return pointee(em, em->inits[v->id], depth + 1);
    }
    default: return NULL;
    }
}

/* the memory place e names, as bits: one per address space, threadgroup objects apart
 * (bit 8 + id % 24; a pointer whose object is not known has them all); 0 for a thread's
 * own variables */
static uint32_t mem_bits(const emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_VAR:
        if (e->var->storage == IR_VAR_THREADGROUP) return 1u << (8 + e->var->id % 24);
        return 0;
    case IR_E_DEREF:
    case IR_E_INDEX:
        if (e->args[0]->type->kind == IR_T_PTR) {
            const ir_type *pt = e->args[0]->type;
            if (pt->space != IR_SPACE_THREADGROUP) return 1u << pt->space;
            const ir_var *root = pointee(em, e->args[0], 0);
            return root ? 1u << (8 + root->id % 24) : 0xffffff00u | 1u << pt->space;
        }
        return mem_bits(em, e->args[0]);
    case IR_E_FIELD:
    case IR_E_SWIZZLE: return mem_bits(em, e->args[0]);
    default: return 0;
    }
}
/* a pointer into threadgroup memory may point into any threadgroup object: the bits of
 * the threadgroup space and of every object meet it */
static bool mem_meet(uint32_t a, uint32_t b) {
    const uint32_t tg_ptr = 1u << IR_SPACE_THREADGROUP;
    if ((a & tg_ptr) && (b & 0xffffff00u)) return true;
    if ((b & tg_ptr) && (a & 0xffffff00u)) return true;
    return (a & b & 0xffu & ~(1u << IR_SPACE_CONSTANT)) != 0 || (a & b & 0xffffff00u) != 0;
}

static uint32_t expr_mem_reads(const emitter *em, const ir_expr *e) {
    if (!e) return 0;
    uint32_t bits = ir_is_place(e) && cpu_needs_access(e) ? mem_bits(em, e) : 0;
    for (int i = 0; i < e->arg_count; i++) bits |= expr_mem_reads(em, e->args[i]);
    return bits;
}

/* threadgroup memory: its space and every threadgroup object */
#define TG_MEM_BITS (0xffffff00u | 1u << IR_SPACE_THREADGROUP)

/* may two accesses touch one address: threadgroup objects as mem_meet says, device memory
 * in one buffer */
static bool access_meet(const mem_access *a, const mem_access *b) {
    if ((a->bits | b->bits) & TG_MEM_BITS) return mem_meet(a->bits, b->bits);
    return a->buffer && a->buffer == b->buffer;
}

/* is e's value where it was: none of its variables assigned in the statements walked so
 * far (between two accesses, or before: either way counts) */
static bool unchanged(const mem_use *u, const ir_expr *e) {
    for (int i = 0; i < u->assigned_count; i++)
        if (wide_expr_reads(e, u->assigned[i])) return false;
    return true;
}

/* the same address in every thread at both accesses: the same place, unchanged */
static bool same_address(const mem_use *u, const ir_expr *a, const ir_expr *b) {
    return a && b && wide_same_value(a, b) && unchanged(u, a);
}

/* An index as core + offset: the offset a uniform value added (sign 1) or taken away
 * (sign -1), or none (NULL, 0). */
typedef struct lane_index {
    const ir_expr *core, *off;
    int sign;
} lane_index;

static bool unsigned_int(const ir_type *t) {
    return t->kind == IR_T_U8 || t->kind == IR_T_U16 || t->kind == IR_T_U32 || t->kind == IR_T_U64;
}

static int int_bits(const ir_type *t) {
    switch (t->kind) {
    case IR_T_I8: case IR_T_U8: return 8;
    case IR_T_I16: case IR_T_U16: return 16;
    case IR_T_I32: case IR_T_U32: return 32;
    case IR_T_I64: case IR_T_U64: return 64;
    default: return 0;
    }
}

/* is e an integer constant? its value into *v */
static bool int_const(const ir_expr *e, long long *v) {
    if (e->kind != IR_E_CONST || !ir_is_integer(e->type)) return false;
    *v = unsigned_int(e->type) ? (long long)e->c.u : e->c.i;
    return true;
}

/* t as x * k (or x << s, k = 2^s) with k an integer constant: k and *x; else 0 */
static long long scaled(const ir_expr *t, const ir_expr **x) {
    long long v;
    if (t->kind != IR_E_BINARY || !ir_is_integer(t->type)) return 0;
    if (t->op == IR_OP_SHL && int_const(t->args[1], &v)) return *x = t->args[0], v >= 0 && v < 32 ? 1ll << v : 0;
    if (t->op != IR_OP_MUL) return 0;
    if (int_const(t->args[1], &v)) return *x = t->args[0], v;
    if (int_const(t->args[0], &v)) return *x = t->args[1], v;
    return 0;
}

static lane_index split_index(wide *w, const ir_expr *e) {
    if (e->kind == IR_E_BINARY && (e->op == IR_OP_ADD || e->op == IR_OP_SUB) && ir_is_integer(e->type)) {
        if (wide_uniform(w, e->args[1]) && !wide_uniform(w, e->args[0]))
            return (lane_index){e->args[0], e->args[1], e->op == IR_OP_ADD ? 1 : -1};
        if (e->op == IR_OP_ADD && wide_uniform(w, e->args[0]) && !wide_uniform(w, e->args[1]))
            return (lane_index){e->args[1], e->args[0], 1};
    }
    return (lane_index){e, NULL, 0};
}

/* an offset known to be >= 0: unsigned (an index past 2^32 is out of bounds anyway), or a
 * constant */
static bool nonnegative(const ir_expr *off) {
    long long v;
    return unsigned_int(off->type) || (int_const(off, &v) && v >= 0);
}

static const ir_expr *lane_distinct(wide *w, const ir_expr *e, bool increasing, bool *one_d, int depth);

/* An earlier load and a later store of one array at per-thread indices core + c_load and
 * core + c_store: thread l loads what thread l + (c_load - c_store) stores. When that
 * thread comes no earlier (c_load >= c_store: a tree's `tg[lid] += tg[lid + s]`), loops
 * over the threads in increasing order load before the store, as lock step does; a
 * vectorised loop too (its loads of a vector come before its stores). A store followed
 * by a load of another thread's address is not taken: it would rest on the order of the
 * iterations, which ivdep lets gcc change. */
static bool load_before_store(wide *w, const mem_use *u, const mem_access *load, const mem_access *store) {
    const ir_expr *p = load->place, *q = store->place;
    if (!p || !q || p->kind != IR_E_INDEX || q->kind != IR_E_INDEX || !wide_same_value(p->args[0], q->args[0]) ||
        !unchanged(u, p) || !unchanged(u, q))
        return false;
    lane_index a = split_index(w, p->args[1]), b = split_index(w, q->args[1]);
    bool one_d = false;
    if (!wide_same_value(a.core, b.core) || !lane_distinct(w, a.core, true, &one_d, 0)) return false;
    w->needs_one_d |= one_d;
    if (!b.off) return !a.off || (a.sign > 0 && nonnegative(a.off)); /* c_load >= 0 */
    if (!a.off) return b.sign < 0 && nonnegative(b.off);              /* 0 >= c_store */
    return (a.sign > 0 && b.sign < 0 && nonnegative(a.off) && nonnegative(b.off)) ||
           (a.sign == b.sign && wide_same_value(a.off, b.off));
}

/* the attribute behind e when it differs in every lane of a SIMD group (through integer
 * conversions and locals set once): the thread's index in the group or in its SIMD group,
 * or (1-D groups: *one_d) its x position in the group or grid; else NULL. Those are
 * consecutive in a SIMD group, so distinct modulo any integer type's range, and loops over
 * the threads run them in increasing order: `increasing` wants that order kept, so only
 * widening conversions. */
static const ir_expr *lane_distinct(wide *w, const ir_expr *e, bool increasing, bool *one_d, int depth) {
    emitter *em = w->em;
    if (depth > 8) return NULL;
    if (e->kind == IR_E_CONVERT && ir_is_integer(e->type) && ir_is_integer(e->args[0]->type))
        return !increasing || (unsigned_int(e->args[0]->type) && int_bits(e->args[0]->type) <= int_bits(e->type))
                   ? lane_distinct(w, e->args[0], increasing, one_d, depth + 1)
                   : NULL;
    int comp = 0;
    const ir_expr *v = e;
    if (v->kind == IR_E_SWIZZLE && v->swizzle_len == 1) comp = v->swizzle[0], v = v->args[0];
    if (v->kind != IR_E_VAR) return NULL;
    var_info *vi = cpu_info_of(em, v->var);
    if (vi->kind == VK_WIDE_EXPR && !vi->cname && comp == 0 && v == e)
        return lane_distinct(w, em->inits[v->var->id], increasing, one_d, depth + 1);
    if (vi->kind != VK_WIDE_ATTR) return NULL;
    switch (v->var->attr) {
    case IR_ATTR_THREAD_INDEX_IN_THREADGROUP:
    case IR_ATTR_THREAD_INDEX_IN_SIMDGROUP: return e;
    case IR_ATTR_THREAD_POSITION_IN_THREADGROUP:
    case IR_ATTR_THREAD_POSITION_IN_GRID:
        if (comp != 0) return NULL;
        *one_d = true; /* x differs along a row, not from row to row */
        return e;
    default: return NULL;
    }
}

/* the additive terms of an index (through integer conversions and locals set once) */
static int index_terms(wide *w, const ir_expr *e, const ir_expr **terms, int count, int max, int depth) {
    emitter *em = w->em;
    if (count < 0 || depth > 8) return -1;
    /* a conversion that keeps every value the index can take: widening, or between 32 and
     * 64 bits (an index past 2^31 is out of bounds either way) */
    if (e->kind == IR_E_CONVERT && ir_is_integer(e->type) && ir_is_integer(e->args[0]->type) &&
        (int_bits(e->args[0]->type) < int_bits(e->type) || (int_bits(e->args[0]->type) >= 32 && int_bits(e->type) >= 32)))
        return index_terms(w, e->args[0], terms, count, max, depth + 1);
    if (e->kind == IR_E_BINARY && e->op == IR_OP_ADD && ir_is_integer(e->type)) {
        count = index_terms(w, e->args[0], terms, count, max, depth + 1);
        return index_terms(w, e->args[1], terms, count, max, depth + 1);
    }
    if (e->kind == IR_E_VAR && e->var->storage == IR_VAR_LOCAL && e->var->param_kind == IR_PARAM_NONE &&
        !e->var->is_assigned && !e->var->address_taken && e->var->id < em->var_count && em->inits[e->var->id] &&
        ir_is_integer(e->type))
        return index_terms(w, em->inits[e->var->id], terms, count, max, depth + 1);
    if (count == max) return -1;
    terms[count] = e;
    return count + 1;
}

/* Is e, as an integer, the thread's lane plus a multiple of 32 plus terms the same in the
 * SIMD group, wherever it is computed? *lanes counts the terms that carry the lane (one is
 * wanted): the thread's index in the group or in its SIMD group, its x position in a 1-D
 * group (*one_d), a by_lane counter; the terms the same in the SIMD group go to a->at (with
 * a NULL, none may be). Conversions between integer types keep the lane (their moduli are
 * multiples of 32). */
static bool lane_residue(wide *w, const mem_use *u, const ir_expr *e, mem_access *a, int *lanes, bool *one_d, int depth) {
    emitter *em = w->em;
    if (depth > 12 || !ir_is_integer(e->type)) return false;
    long long v;
    const ir_expr *x;
    if (int_const(e, &v)) return v % 32 == 0;
    if ((v = scaled(e, &x)) && v % 32 == 0) return true; /* by a multiple of 32: no lane left */
    if (a && wide_uniform_in(w, e, true)) { /* a start: the same for both accesses, or they may meet */
        if (a->at_count == 4) return false;
        a->at[a->at_count++] = e;
        return true;
    }
    switch (e->kind) {
    case IR_E_CONVERT: return ir_is_integer(e->args[0]->type) && lane_residue(w, u, e->args[0], a, lanes, one_d, depth + 1);
    case IR_E_BINARY:
        if (e->op == IR_OP_ADD)
            return lane_residue(w, u, e->args[0], a, lanes, one_d, depth + 1) &&
                   lane_residue(w, u, e->args[1], a, lanes, one_d, depth + 1);
        return false;
    case IR_E_SWIZZLE:
    case IR_E_VAR: {
        bool x_only = false;
        const ir_expr *d = lane_distinct(w, e, false, &x_only, 0);
        if (d) {
            const ir_expr *v = d->kind == IR_E_SWIZZLE ? d->args[0] : d;
            if (v->var->attr == IR_ATTR_THREAD_POSITION_IN_GRID) return false; /* groups need not be 32 wide */
            *one_d |= x_only;
            (*lanes)++;
            return true;
        }
        if (e->kind != IR_E_VAR) return false;
        for (int k = 0; k < u->by_lane_count; k++)
            if (u->by_lane[k].var == e->var) {
                (*lanes)++;
                return true;
            }
        const ir_var *v = e->var;
        if (v->storage != IR_VAR_LOCAL || v->param_kind != IR_PARAM_NONE || v->is_assigned || v->address_taken ||
            v->id >= em->var_count || !em->inits[v->id])
            return false;
        return lane_residue(w, u, em->inits[v->id], a, lanes, one_d, depth + 1);
    }
    default: return false;
    }
}

/* a loop whose counter starts at the thread's lane (plus a multiple of 32) and steps by a
 * constant multiple of 32, assigned nowhere else: the counter, else NULL; *hi the most it
 * is in the body when it starts at the lane and the loop runs while it is below a constant
 * (-1 otherwise) */
static const ir_var *by_lane_counter(wide *w, const mem_use *u, const ir_stmt *loop, long long *hi) {
    emitter *em = w->em;
    const ir_stmt *latch = loop->latch;
    if (latch && latch->kind == IR_S_BLOCK && latch->stmt_count == 1) latch = latch->stmts[0];
    if (!latch || latch->kind != IR_S_ASSIGN || latch->place->kind != IR_E_VAR) return NULL;
    const ir_var *v = latch->place->var;
    if (!ir_is_integer(v->type) || v->address_taken || v->id >= em->var_count || !em->inits[v->id] ||
        wide_count_assigns(em->f->body, v) != 1)
        return NULL;
    const ir_expr *x = latch->value;
    while (x->kind == IR_E_CONVERT && ir_is_integer(x->args[0]->type)) x = x->args[0];
    if (x->kind != IR_E_BINARY || x->op != IR_OP_ADD) return NULL;
    const ir_expr *a = x->args[0];
    while (a->kind == IR_E_CONVERT && ir_is_integer(a->args[0]->type)) a = a->args[0];
    long long step, k;
    if (a->kind != IR_E_VAR || a->var != v || !int_const(x->args[1], &step)) return NULL;
    int lanes = 0;
    bool one_d = false;
    if (step == 0 || step % 32 || !lane_residue(w, u, em->inits[v->id], NULL, &lanes, &one_d, 0) || lanes != 1 || one_d) return NULL;
    *hi = -1;
    const ir_expr *init = em->inits[v->id];
    while (init->kind == IR_E_CONVERT) init = init->args[0];
    int first;
    const ir_expr *head = wide_loop_head(loop, &first); /* `!(v < K)` */
    if (init->kind == IR_E_VAR && init->var->param_kind == IR_PARAM_ATTR && init->var->attr == IR_ATTR_THREAD_INDEX_IN_SIMDGROUP &&
        head && head->kind == IR_E_UNARY && head->op == IR_OP_NOT && head->args[0]->kind == IR_E_BINARY &&
        head->args[0]->op == IR_OP_LT && int_const(head->args[0]->args[1], &k)) {
        const ir_expr *l = head->args[0]->args[0];
        while (l->kind == IR_E_CONVERT && ir_is_integer(l->args[0]->type) && int_bits(l->args[0]->type) <= int_bits(l->type))
            l = l->args[0];
        if (l->kind == IR_E_VAR && l->var == v) *hi = k - 1;
    }
    return v;
}

/* Do index's values fall in rows of their own: index = x * width + c + i, x the same in
 * the SIMD group (any row), c >= 0 a constant, i a by_lane counter (the lane plus multiples
 * of 32) or the lane itself, c + i < width? Two such accesses of one array, width and c
 * never meet from two lanes, whatever their rows: same address, same row and column, so the
 * same lane (ggml's `so4[j*PV4 + i]` in `for (short i = tiisg; i < DV4; i += NW)`, j = jj*NSG +
 * sgitg). The width, else 0. */
static long long lane_rows(wide *w, const mem_use *u, const ir_expr *index, long long *column) {
    const ir_expr *terms[8];
    int n = index_terms(w, index, terms, 0, 8, 0);
    long long width = 0, c = 0, span = 0;
    for (int i = 0; i < n; i++) {
        const ir_expr *t = terms[i], *x;
        long long v;
        if (int_const(t, &v)) {
            c += v;
            continue;
        }
        if ((v = scaled(t, &x))) { /* x * width */
            if (v < 0 || (width && v != width) || !wide_uniform_in(w, x, true)) return 0;
            width = v;
            continue;
        }
        long long hi = -1;
        if (t->kind == IR_E_VAR && t->var->param_kind == IR_PARAM_ATTR && t->var->attr == IR_ATTR_THREAD_INDEX_IN_SIMDGROUP)
            hi = 31;
        for (int k = 0; k < u->by_lane_count && t->kind == IR_E_VAR; k++)
            if (u->by_lane[k].var == t->var) hi = u->by_lane[k].hi;
        if (hi < 0 || span) return 0;
        span = hi + 1;
    }
    *column = c;
    return n > 0 && width && span && c >= 0 && c + span <= width ? width : 0;
}

/* Does index give each thread of a SIMD group a block of its own: at + block * t + r, with
 * at the same in the SIMD group, t from lane_distinct and r, the sum of the other terms
 * (constants, counters of the loops around with their ranges), in [0, block)? The block
 * (0: no); the thread's attribute and the terms of at into a. */
static long long own_block(wide *w, const mem_use *u, const ir_expr *index, mem_access *a) {
    const ir_expr *terms[8];
    int n = index_terms(w, index, terms, 0, 8, 0);
    long long block = 0, lo = 0, hi = 0;
    for (int i = 0; i < n; i++) {
        const ir_expr *t = terms[i];
        long long c;
        if (int_const(t, &c)) {
            lo += c, hi += c;
            continue;
        }
        if (t->kind == IR_E_VAR) {
            int k = u->counter_count - 1;
            while (k >= 0 && u->counters[k].var != t->var) k--;
            if (k >= 0) {
                lo += u->counters[k].lo, hi += u->counters[k].hi;
                continue;
            }
        }
        const ir_expr *x = t;
        long long scale = scaled(t, &x);
        if (!scale) scale = 1, x = t;
        const ir_expr *d = scale > 0 && !block ? lane_distinct(w, x, false, &a->one_d, 0) : NULL;
        if (d) {
            block = scale, a->thread = d;
        } else if (wide_uniform_in(w, t, true) && a->at_count < 4) {
            a->at[a->at_count++] = t;
        } else {
            return 0;
        }
    }
    return n > 0 && block > 0 && lo >= 0 && hi < block ? block : 0;
}

/* do two accesses start from the same place (their terms the same in the SIMD group,
 * unchanged)? */
static bool same_start(const mem_use *u, const mem_access *a, const mem_access *b) {
    if (a->at_count != b->at_count) return false;
    for (int i = 0; i < a->at_count; i++)
        if (!wide_same_value(a->at[i], b->at[i]) || !unchanged(u, a->at[i])) return false;
    return true;
}

/* do two accesses give each lane of a SIMD group a place of its own: rows of one width; or
 * the same block (block size and thread attribute), or both residues of the lane, from the
 * same start? */
static bool lanes_apart(const mem_use *u, const mem_access *a, const mem_access *b) {
    const ir_expr *base = a->place ? a->place->args[0] : NULL;
    /* one array (a pointer the same in the SIMD group may have moved in between) */
    if (!base || !b->place || !wide_same_value(base, b->place->args[0]) || !unchanged(u, base)) return false;
    if (a->rows && a->rows == b->rows && a->column == b->column) return true;
    bool blocks = a->block && a->block == b->block && wide_same_value(a->thread, b->thread);
    return (blocks || (a->residue && b->residue)) && same_start(u, a, b);
}

/* one more access, after those of u: *conflict when it and an earlier one, a store among
 * them, may touch one address from different threads of a SIMD group in an order lock step
 * would not */
static void mem_access_add(wide *w, mem_use *u, mem_access a, bool *conflict) {
    if (u->full) {
        *conflict = true;
        return;
    }
    for (int i = 0; i < u->count; i++) {
        const mem_access *b = &u->acc[i];
        if (!(a.store || b->store) || !access_meet(&a, b) || same_address(u, a.place, b->place)) continue;
        /* two stores to device memory meet from two lanes of a SIMD group only where the lanes'
         * output regions overlap, which no kernel does on purpose; per-thread output pointers
         * (MLX's `out += ... + lid * N_READS`) would make every such store loop lock step */
        if (a.buffer && a.store && b->store) continue;
        if (!a.place && !b->place) continue; /* stores of one address by all: any may win */
        if (lanes_apart(u, &a, b)) {
            if (a.one_d || b->one_d) w->needs_one_d = true;
            continue;
        }
        if (a.store && !b->store && load_before_store(w, u, b, &a)) continue;
        *conflict = true;
    }
    if (u->count == MEM_ACCESSES) u->full = true;
    else u->acc[u->count++] = a;
}

/* an access to threadgroup memory at place (NULL: one address in a SIMD group) */
static mem_access access_of(wide *w, const mem_use *u, const ir_expr *place, bool store, bool shared) {
    mem_access a = {.bits = mem_bits(w->em, place), .place = shared ? NULL : place, .store = store};
    const ir_expr *q = place;
    while (q->kind == IR_E_FIELD || q->kind == IR_E_SWIZZLE || (q->kind == IR_E_INDEX && q->args[0]->type->kind != IR_T_PTR))
        q = q->args[0];
    if ((q->kind == IR_E_INDEX || q->kind == IR_E_DEREF) && q->args[0]->type->space == IR_SPACE_DEVICE)
        a.buffer = pointee(w->em, q->args[0], 0);
    /* blocks are told apart within one array: a `threadgroup` array, or a pointer into
     * threadgroup or device memory the kernel never changes or that is the same in the
     * SIMD group (MLX's `out += gid * axis_size`; lanes_apart checks it is not assigned
     * between the two accesses) */
    const ir_expr *base = place->kind == IR_E_INDEX ? place->args[0] : NULL;
    if (!shared && base && base->kind == IR_E_VAR &&
        (base->var->storage == IR_VAR_THREADGROUP || /* an array: its elements are what is assigned */
         (!base->var->address_taken && (!base->var->is_assigned || wide_uniform_in(w, base, true)) &&
          pointee(w->em, base, 0))))
    {
        a.block = own_block(w, u, place->args[1], &a);
        int lanes = 0;
        bool one_d = false;
        if (!a.block) {
            a.at_count = 0;
            a.residue = lane_residue(w, u, place->args[1], &a, &lanes, &one_d, 0) && lanes == 1;
            a.one_d = a.residue && one_d;
        }
        a.rows = lane_rows(w, u, place->args[1], &a.column);
    }
    return a;
}

static void mem_assigned(mem_use *u, const ir_var *v) {
    if (!v) return;
    if (u->assigned_count == MEM_ASSIGNED) u->full = true;
    else u->assigned[u->assigned_count++] = v;
}

static void mem_loads(wide *w, mem_use *u, const ir_expr *e, uint32_t *bits, bool *conflict);

/* the loads that find where place e is (its indices, its pointer), not e's own */
static void mem_address_loads(wide *w, mem_use *u, const ir_expr *e, uint32_t *bits, bool *conflict) {
    switch (e->kind) {
    case IR_E_INDEX:
    case IR_E_FIELD:
    case IR_E_SWIZZLE:
        if (e->args[0]->type->kind != IR_T_PTR && ir_is_place(e->args[0]))
            mem_address_loads(w, u, e->args[0], bits, conflict);
        else
            mem_loads(w, u, e->args[0], bits, conflict);
        if (e->kind == IR_E_INDEX) mem_loads(w, u, e->args[1], bits, conflict);
        return;
    case IR_E_DEREF: mem_loads(w, u, e->args[0], bits, conflict); return;
    default: return;
    }
}

/* the loads of e: bits into *bits, each into u (checked against the stores before) */
static void mem_loads(wide *w, mem_use *u, const ir_expr *e, uint32_t *bits, bool *conflict) {
    if (!e) return;
    if (e->kind == IR_E_ADDR && ir_is_place(e->args[0])) { /* an address: no load of the place */
        mem_address_loads(w, u, e->args[0], bits, conflict);
        return;
    }
    if (!ir_is_place(e)) {
        for (int i = 0; i < e->arg_count; i++) mem_loads(w, u, e->args[i], bits, conflict);
        return;
    }
    if (cpu_needs_access(e)) {
        mem_access a = access_of(w, u, e, false, false);
        *bits |= a.bits;
        if ((a.bits & TG_MEM_BITS) || a.buffer) mem_access_add(w, u, a, conflict);
    }
    mem_address_loads(w, u, e, bits, conflict);
}

/* the memory the address of place e reads: its bits */
static uint32_t address_mem_reads(wide *w, const ir_expr *e) {
    mem_use u;
    mem_use_clear(&u);
    uint32_t bits = 0;
    bool conflict = false;
    mem_address_loads(w, &u, e, &bits, &conflict);
    return bits;
}

/* the variable an assignment to place writes (its root), else NULL (memory) */
static const ir_var *place_var(const ir_expr *p) {
    while (p->kind == IR_E_INDEX || p->kind == IR_E_FIELD || p->kind == IR_E_SWIZZLE) {
        if (p->kind == IR_E_INDEX && p->args[0]->type->kind == IR_T_PTR) return NULL;
        p = p->args[0];
    }
    return p->kind == IR_E_VAR && p->var->storage == IR_VAR_LOCAL ? p->var : NULL;
}

/* s's memory uses, in order; *conflict when one of them must wait for all the lanes */
static void mem_uses(wide *w, const ir_stmt *s, mem_use *u, bool *conflict) {
    if (!s) return;
    switch (s->kind) {
    case IR_S_BLOCK:
        for (int i = 0; i < s->stmt_count; i++) mem_uses(w, s->stmts[i], u, conflict);
        return;
    case IR_S_IF: {
        uint32_t loads = 0;
        mem_loads(w, u, s->cond, &loads, conflict);
        if (mem_meet(loads, u->shared_stores)) *conflict = true;
        u->loads |= loads;
        mem_uses(w, s->then_s, u, conflict);
        mem_uses(w, s->else_s, u, conflict);
        return;
    }
    case IR_S_LOOP: { /* its end meets its start again: twice round */
        long long from, to, step;
        const ir_var *counter = wide_counted_loop(w, s, &from, &to, &step);
        bool pushed = counter && u->counter_count < MEM_COUNTERS;
        if (pushed) { /* its body sees it in [from, to - 1] */
            u->counters[u->counter_count].var = counter;
            u->counters[u->counter_count].lo = from;
            u->counters[u->counter_count++].hi = to - 1;
        }
        long long hi;
        const ir_var *lane_counter = by_lane_counter(w, u, s, &hi);
        bool by_lane = lane_counter && u->by_lane_count < MEM_COUNTERS;
        if (by_lane) {
            u->by_lane[u->by_lane_count].var = lane_counter;
            u->by_lane[u->by_lane_count++].hi = hi;
        }
        for (int round = 0; round < 2; round++) {
            mem_uses(w, s->body, u, conflict);
            mem_uses(w, s->latch, u, conflict);
            if (mem_meet(u->loads, u->shared_stores)) *conflict = true;
        }
        if (pushed) u->counter_count--;
        if (by_lane) u->by_lane_count--;
        return;
    }
    case IR_S_DECL:
    case IR_S_ASSIGN: {
        uint32_t loads = 0, shared = 0;
        mem_loads(w, u, s->value, &loads, conflict);
        const ir_expr *p = s->kind == IR_S_ASSIGN ? s->place : NULL;
        if (p) mem_address_loads(w, u, p, &loads, conflict);
        if (p && p->kind != IR_E_VAR && cpu_needs_access(p)) {
            bool one_address = wide_uniform_in(w, p, true); /* in a SIMD group */
            mem_access a = access_of(w, u, p, true, one_address);
            if (one_address) shared = a.bits;
            else loads |= a.bits; /* a per-thread store reads as a use */
            if ((a.bits & TG_MEM_BITS) || a.buffer) mem_access_add(w, u, a, conflict);
        }
        if (mem_meet(shared, u->loads) || mem_meet(loads, u->shared_stores)) *conflict = true;
        u->loads |= loads;
        u->shared_stores |= shared;
        mem_assigned(u, s->kind == IR_S_DECL ? s->var : p ? place_var(p) : NULL);
        return;
    }
    default: {
        uint32_t loads = 0;
        for (int i = 0; i < s->arg_count; i++) mem_loads(w, u, s->args[i], &loads, conflict);
        if (mem_meet(loads, u->shared_stores)) *conflict = true;
        u->loads |= loads;
        mem_assigned(u, s->result);
        return;
    }
    }
}

EN_INTERNAL bool wide_needs_lock_step(wide *w, const ir_stmt *const *before, int count, const ir_stmt *s) {
    mem_use u;
    mem_use_clear(&u);
    bool conflict = false;
    for (int i = 0; i < count; i++) mem_uses(w, before[i], &u, &conflict);
    conflict = false; /* those already share a loop */
    mem_uses(w, s, &u, &conflict);
    return conflict;
}

/* The one assignment of a statement that meets itself, when two loops over the threads
 * can run it: a store of a scalar, pointer or vector to memory, alone or under ifs with no
 * else, whose tests and address read none of the memory it stores to (so the second loop
 * finds the same threads and addresses as the first); else NULL. */
EN_INTERNAL const ir_stmt *wide_stageable(wide *w, const ir_stmt *s) {
    while (s && s->kind == IR_S_BLOCK && s->stmt_count == 1) s = s->stmts[0];
    if (!s) return NULL;
    if (s->kind == IR_S_IF && !s->else_s) {
        const ir_stmt *a = wide_stageable(w, s->then_s);
        return a && !mem_meet(expr_mem_reads(w->em, s->cond), mem_bits(w->em, a->place)) ? a : NULL;
    }
    if (s->kind != IR_S_ASSIGN || s->place->kind == IR_E_VAR || !cpu_needs_access(s->place)) return NULL;
    const ir_type *t = s->place->type;
    if (!ir_is_scalar(t) && t->kind != IR_T_PTR && t->kind != IR_T_VEC) return NULL;
    return mem_meet(address_mem_reads(w, s->place), mem_bits(w->em, s->place)) ? NULL : s;
}
