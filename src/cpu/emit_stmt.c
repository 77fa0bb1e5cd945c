/* emit_stmt.c — statements of one gang (a SIMD group of 32 lanes) inside a region.
 *
 * Needs: a region opened by emit_region.c (`_sg`, the mask variable em->mask, the
 * region's per-lane storage declared) and statements free of threadgroup barriers.
 * Guarantees: gang_stmt() runs a statement for the lanes in the mask and narrows the mask as
 * control flow does: an if runs each arm under mask & cond, a loop runs until no lane
 * remains in it, break, continue and return remove lanes. Assignments take a plain vector
 * loop under a full mask; streaming loops take gang_loop's per-gang fast loop; SIMD-group
 * and quad-group functions, atomics and simdgroup_matrix operations are emitted here. */
#include "emit.h"

/* ---- statements in gang mode --------------------------------------------------------- */
EN_INTERNAL void cpu_gang_list(emitter *em, stmt_list list) {
    for (int i = 0; i < list.count; i++) {
        int run_end = cpu_outline_run(em, list, i); /* never past a break, continue or return */
        if (run_end > i) {
            i = run_end - 1;
            continue;
        }
        const ir_stmt *s = cpu_list_at(list, i);
        cpu_gang_stmt(em, s);
        /* the rest of the block is unreachable for every lane */
        if (s->kind == IR_S_BREAK || s->kind == IR_S_CONTINUE || s->kind == IR_S_RETURN) break;
    }
}

static ir_expr var_expr(const ir_var *v) {
    return (ir_expr){.kind = IR_E_VAR, .type = v->type, .loc = v->loc, .var = (ir_var *)v};
}

/* is the variable under this place kept as one value per gang? */
static bool root_is_scalar(emitter *em, const ir_expr *place) {
    while (place->kind == IR_E_FIELD || place->kind == IR_E_SWIZZLE ||
           (place->kind == IR_E_INDEX && place->args[0]->type->kind != IR_T_PTR))
        place = place->args[0];
    if (place->kind != IR_E_VAR) return false;
    var_kind k = cpu_info_of(em, place->var)->kind;
    return k == VK_SCALAR || k == VK_SCALAR_SG;
}

/* place = value under the current mask */
static void emit_assign(emitter *em, const ir_expr *place, const ir_expr *value) {
    const ir_type *t = place->type;
    if (place->kind == IR_E_SWIZZLE && place->args[0]->type->kind == IR_T_VEC) {
        const ir_expr *base = place->args[0];
        const ir_type *et = base->type->elem;
        const char *vt = cpu_materialize(em, value);
        for (int c = 0; c < place->swizzle_len; c++) {
            const char *vc = t->kind == IR_T_VEC ? cpu_S(em, "%s[l].v[%d]", vt, c) : cpu_S(em, "%s[l]", vt);
            if (cpu_needs_access(base)) {
                const char *addr = cpu_S(em, "&%s.v[%d]", cpu_lvalue(em, base), place->swizzle[c]);
                const char *tmp = cpu_S(em, "_t%d", cpu_fresh(em));
                cpu_line(em, "%s %s[32];", cpu_ctype(em, et), tmp);
                cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = %s;", tmp, vc);
                cpu_emit_access(em, place, et, addr, true, tmp);
            } else {
                const char *lv = cpu_S(em, "%s.v[%d]", cpu_lvalue(em, base), place->swizzle[c]);
                cpu_line(em, "for (int l = 0; l < 32; l++) %s = ENK_ON(%s, l) ? %s : %s;", lv, em->mask, vc, lv);
            }
        }
        return;
    }
    if (cpu_needs_access(place) && t->kind == IR_T_VEC && t->count == 3 && !t->packed) {
        /* a float3 in memory has a fourth, padding lane that a store must not touch */
        const char *vt = cpu_materialize(em, value);
        const char *base = cpu_lvalue(em, place);
        for (int c = 0; c < 3; c++) {
            const char *tmp = cpu_S(em, "_t%d", cpu_fresh(em));
            cpu_line(em, "%s %s[32];", cpu_ctype(em, t->elem), tmp);
            cpu_line(em, "for (int l = 0; l < 32; l++) %s[l] = %s[l].v[%d];", tmp, vt, c);
            cpu_emit_access(em, place, t->elem, cpu_S(em, "&%s.v[%d]", base, c), true, tmp);
        }
        return;
    }
    if (cpu_needs_access(place)) {
        const char *vt = cpu_materialize(em, value);
        const char *addr = cpu_S(em, "&%s", cpu_lvalue(em, place));
        cpu_emit_access(em, place, t, addr, true, vt);
        return;
    }
    if ((ir_is_scalar(t) || t->kind == IR_T_PTR) && root_is_scalar(em, place)) {
        /* one value for the whole gang: taken from the first active lane, once (a lane
         * loop would apply `x = x + 1` once per lane) */
        const char *v = cpu_to_storage(em, t, cpu_ex(em, value, -1));
        const char *lv = cpu_lvalue(em, place);
        cpu_line(em, "if (%s) { int l = enk_first_lane(%s); %s = %s; }", em->mask, em->mask, lv, v);
        return;
    }
    if (ir_is_scalar(t) || t->kind == IR_T_PTR) {
        const char *v = cpu_to_storage(em, t, cpu_ex(em, value, -1));
        const char *lv = cpu_lvalue(em, place);
        /* every lane on (the common case): a plain vector loop, no per-lane mask test */
        cpu_line(em, "if (%s == ENK_FULL) for (int l = 0; l < 32; l++) %s = %s;", em->mask, lv, v);
        cpu_line(em, "else for (int l = 0; l < 32; l++) %s = ENK_ON(%s, l) ? %s : %s;", lv, em->mask, v, lv);
        return;
    }
    const char *vt = cpu_materialize(em, value);
    const char *lv = cpu_lvalue(em, place);
    if (t->kind == IR_T_VEC) { /* by component: a float3's padding lane keeps its bytes */
        for (uint32_t c = 0; c < t->count; c++)
            cpu_line(em, "for (int l = 0; l < 32; l++) %s.v[%u] = ENK_ON(%s, l) ? %s[l].v[%u] : %s.v[%u];", lv, c,
                 em->mask, vt, c, lv, c);
        return;
    }
    cpu_line(em, "for (int l = 0; l < 32; l++) if (ENK_ON(%s, l)) %s = %s[l];", em->mask, lv, vt);
}

static loop_entry *find_loop(emitter *em, const ir_stmt *target) {
    for (int i = em->loops.count - 1; i >= 0; i--)
        if (em->loops.items[i].loop == target) return &em->loops.items[i];
    return NULL;
}

static void gang_if(emitter *em, const ir_stmt *s) {
    int id = cpu_fresh(em);
    OPEN("{ /* if: %s */", cpu_source_note(em, s->loc));
    const char *c = cpu_ex(em, s->cond, -1);
    cpu_line(em, "uint32_t _c%d = 0;", id);
    if (cpu_lane_invariant(em, s->cond)) /* the same in every lane: one test, no ballot */
        cpu_line(em, "if (%s) { int l = enk_first_lane(%s); (void)l; _c%d = (%s) ? ENK_FULL : 0u; }", em->mask, em->mask, id, c);
    else
        cpu_line(em, "for (int l = 0; l < 32; l++) _c%d |= (uint32_t)(%s) << l;", id, c);
    cpu_line(em, "uint32_t _m%dt = %s & _c%d, _m%de = %s & ~_c%d;", id, em->mask, id, id, em->mask, id);
    const char *outer = em->mask;
    em->memos.count = 0;
    OPEN("if (_m%dt) {", id);
    em->mask = cpu_S(em, "_m%dt", id);
    cpu_gang_list(em, cpu_list_of(s->then_s));
    CLOSE();
    if (s->else_s) {
        OPEN("if (_m%de) {", id);
        em->mask = cpu_S(em, "_m%de", id);
        cpu_gang_list(em, cpu_list_of(s->else_s));
        CLOSE();
    }
    em->mask = outer;
    cpu_line(em, "%s = _m%dt | _m%de;", outer, id, id);
    CLOSE();
}

/* does this one statement write v? */
static bool writes_here(const ir_stmt *s, const void *v) {
    switch (s->kind) {
    case IR_S_DECL: return s->var == v;
    case IR_S_ASSIGN: {
        const ir_expr *p = s->place;
        while (p->kind == IR_E_FIELD || p->kind == IR_E_SWIZZLE || p->kind == IR_E_INDEX) p = p->args[0];
        return p->kind != IR_E_VAR || p->var == v; /* a write through a pointer may reach v */
    }
    case IR_S_INTRINSIC: case IR_S_CALL: return s->result == v;
    default: return false;
    }
}

/* does this statement (list) write v? */
static bool writes_var(const ir_stmt *s, const ir_var *v) { return ir_stmt_any_in(s, writes_here, v); }

/* a lane-invariant value that ex() writes as a plain scalar (no gang temporaries) */
static bool plain_uniform(emitter *em, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_CONST: case IR_E_VAR: case IR_E_DEREF: case IR_E_FIELD: case IR_E_INDEX:
    case IR_E_BINARY: case IR_E_UNARY: case IR_E_CONVERT: case IR_E_SWIZZLE:
        for (int i = 0; i < e->arg_count; i++)
            if (!plain_uniform(em, e->args[i])) return false;
        return cpu_lane_invariant(em, e);
    default: return false;
    }
}

/* A streaming loop: `for (i = ...; i < n; i += step)` over a 32-bit per-lane integer i,
 * the body starting with `if (!(i < n)) break;` and not writing i, the latch `i = i + step`
 * with n and step the same in every lane. Returns the index variable (NULL: not one) and
 * sets *limit to n. */
EN_INTERNAL const ir_var *cpu_streaming_loop(emitter *em, const ir_stmt *s, const ir_expr **limit, const ir_expr **step) {
    if (!em->fast_paths || !s->latch) return NULL;
    stmt_list body = cpu_list_of(s->body), latch = cpu_list_of(s->latch);
    if (body.count < 2 || latch.count != 1) return NULL;
    const ir_stmt *test = cpu_list_at(body, 0), *next = cpu_list_at(latch, 0);
    if (test->kind != IR_S_IF || test->else_s || !test->then_s) return NULL;
    stmt_list then = cpu_list_of(test->then_s);
    if (then.count != 1 || cpu_list_at(then, 0)->kind != IR_S_BREAK || cpu_list_at(then, 0)->target != s) return NULL;
    const ir_expr *c = test->cond;
    if (c->kind != IR_E_UNARY || c->op != IR_OP_NOT) return NULL;
    c = c->args[0];
    if (c->kind != IR_E_BINARY || c->op != IR_OP_LT || c->args[0]->kind != IR_E_VAR) return NULL;
    const ir_var *v = c->args[0]->var;
    var_kind k = cpu_info_of(em, v)->kind;
    if ((k != VK_GANG && k != VK_CONTEXT) || v->address_taken || !ir_is_integer(v->type) || v->type->size != 4)
        return NULL;
    if (!plain_uniform(em, c->args[1])) return NULL;
    /* the latch: i = i + step */
    if (next->kind != IR_S_ASSIGN || next->place->kind != IR_E_VAR || next->place->var != v) return NULL;
    const ir_expr *add = next->value;
    if (add->kind != IR_E_BINARY || add->op != IR_OP_ADD) return NULL;
    const ir_expr *other = add->args[0]->kind == IR_E_VAR && add->args[0]->var == v ? add->args[1]
                           : add->args[1]->kind == IR_E_VAR && add->args[1]->var == v ? add->args[0] : NULL;
    if (!other || !plain_uniform(em, other)) return NULL;
    for (int i = 1; i < body.count; i++)
        if (writes_var(cpu_list_at(body, i), v)) return NULL;
    *limit = c->args[1];
    *step = other;
    return v;
}

/* The two tests of a streaming loop's fast path, shared by gang_loop and the interleaved
 * phase (emit_region.c). Entry: the 32 lanes of index array `lanes` (C type T) hold
 * lanes[0] + lane. Staying: from `base`, all 32 lanes are below the limit `n` without
 * wrapping, so the loop's own test holds in every lane. */
const char *cpu_stream_entry_test(emitter *em, const char *lanes, const char *T) {
    return cpu_S(em, "enk_halves_consecutive_u32((const uint32_t *)%s) && %s[16] == (%s)(%s[0] + 16u)", lanes, lanes,
                 T, lanes);
}
const char *cpu_stream_in_range(emitter *em, const ir_var *index, const char *base, const char *n) {
    const char *T = cpu_scalar_ctype(index->type->kind), *max = ir_is_signed(index->type) ? "INT32_MAX" : "UINT32_MAX";
    return cpu_S(em, "%s <= (%s)(%s - 31) && (%s)(%s + 31) < %s", base, T, max, T, base, n);
}

static void gang_loop(emitter *em, const ir_stmt *s) {
    int id = cpu_fresh(em);
    OPEN("{ /* loop: %s */", cpu_source_note(em, s->loc));
    cpu_line(em, "uint32_t _brk%d = 0, _cont%d, _m%d = %s;", id, id, id, em->mask);
    const char *outer = em->mask;
    em->mask = cpu_S(em, "_m%d", id);
    EN_PUSH(&em->arena, em->loops, ((loop_entry){.loop = s, .id = id}));
    const ir_expr *limit = NULL, *step = NULL;
    const ir_var *index = cpu_streaming_loop(em, s, &limit, &step);
    if (index) {
        /* While every lane runs and i is i[0] + lane, one test per gang replaces the ballot
         * and accesses through i need no run-time check; the general loop below takes
         * over at the tail or when the mask narrows. */
        const char *iv = cpu_info_of(em, index)->cname, *T = cpu_scalar_ctype(index->type->kind);
        const char *saved_var = (const char *)em->stream_base;
        const ir_var *saved = em->stream_var;
        OPEN("if (_m%d == ENK_FULL && %s) {", id, cpu_stream_entry_test(em, iv, T));
        cpu_line(em, "/* streaming: %s is %s[0] + lane while every lane is in the loop */", index->name, index->name);
        cpu_line(em, "%s _ib%d = %s[0]; /* kept in a register, stepped with %s */", T, id, iv, index->name);
        OPEN("for (;;) {");
        em->memos.count = 0;
        const char *n = cpu_ex(em, limit, -1);
        cpu_line(em, "if (!(%s)) break; /* a lane at the end: the tail */",
                 cpu_stream_in_range(em, index, cpu_S(em, "_ib%d", id), n));
        cpu_line(em, "_cont%d = 0;", id);
        em->stream_var = index;
        em->stream_base = cpu_S(em, "_ib%d", id);
        stmt_list body = cpu_list_of(s->body);
        body.count--;
        if (body.items) body.items++;
        em->memos.count = 0;
        cpu_gang_list(em, body);
        em->stream_var = saved;
        em->stream_base = saved_var;
        cpu_line(em, "_m%d |= _cont%d;", id, id);
        em->memos.count = 0;
        cpu_gang_list(em, cpu_list_of(s->latch));
        em->memos.count = 0;
        cpu_line(em, "_ib%d = (%s)(_ib%d + (%s)%s);", id, T, id, T, cpu_ex(em, step, -1));
        cpu_line(em, "if (_m%d != ENK_FULL) break; /* lanes left: the general loop goes on */", id);
        CLOSE();
        CLOSE();
    }
    OPEN("while (_m%d) {", id);
    cpu_line(em, "_cont%d = 0;", id);
    em->memos.count = 0;
    cpu_gang_list(em, cpu_list_of(s->body));
    cpu_line(em, "_m%d |= _cont%d;", id, id);
    if (s->latch) {
        em->memos.count = 0;
        cpu_gang_list(em, cpu_list_of(s->latch));
    }
    CLOSE();
    em->loops.count--;
    em->mask = outer;
    cpu_line(em, "%s = _brk%d;", outer, id);
    CLOSE();
}

/* ---- SIMD-group and quad-group functions -------------------------------------------- */
static const char *identity_of(emitter *em, ir_intrinsic i, const ir_type *t) {
    bool f = ir_is_float(t);
    switch (i) {
    case IR_I_SIMD_PRODUCT: case IR_I_QUAD_PRODUCT:
    case IR_I_SIMD_PREFIX_INCLUSIVE_PRODUCT: case IR_I_QUAD_PREFIX_INCLUSIVE_PRODUCT:
    case IR_I_SIMD_PREFIX_EXCLUSIVE_PRODUCT: case IR_I_QUAD_PREFIX_EXCLUSIVE_PRODUCT:
        return f ? "1.0f" : "1";
    case IR_I_SIMD_MIN: case IR_I_QUAD_MIN:
        return f ? "INFINITY" : cpu_S(em, "(%s)%s", cpu_scalar_ctype(t->kind), ir_is_signed(t) ? cpu_S(em, "INT%d_MAX", cpu_int_bits(t)) : cpu_S(em, "UINT%d_MAX", cpu_int_bits(t)));
    case IR_I_SIMD_MAX: case IR_I_QUAD_MAX:
        return f ? "(-INFINITY)" : (ir_is_signed(t) ? cpu_S(em, "(%s)INT%d_MIN", cpu_scalar_ctype(t->kind), cpu_int_bits(t)) : "0");
    case IR_I_SIMD_AND: case IR_I_QUAD_AND:
        return t->kind == IR_T_BOOL ? "true" : cpu_S(em, "(%s)~(%s)0", cpu_scalar_ctype(t->kind), cpu_wide_unsigned(t));
    default: return f ? "0.0f" : "0";
    }
}

static const char *combine(emitter *em, ir_intrinsic i, const ir_type *t, const char *acc, const char *x) {
    switch (i) {
    case IR_I_SIMD_SUM: case IR_I_QUAD_SUM:
    case IR_I_SIMD_PREFIX_INCLUSIVE_SUM: case IR_I_QUAD_PREFIX_INCLUSIVE_SUM:
    case IR_I_SIMD_PREFIX_EXCLUSIVE_SUM: case IR_I_QUAD_PREFIX_EXCLUSIVE_SUM:
        return ir_is_float(t) ? cpu_S(em, "%s + %s", acc, x) : cpu_binary_expr(em, IR_OP_ADD, t, acc, x);
    case IR_I_SIMD_PRODUCT: case IR_I_QUAD_PRODUCT:
    case IR_I_SIMD_PREFIX_INCLUSIVE_PRODUCT: case IR_I_QUAD_PREFIX_INCLUSIVE_PRODUCT:
    case IR_I_SIMD_PREFIX_EXCLUSIVE_PRODUCT: case IR_I_QUAD_PREFIX_EXCLUSIVE_PRODUCT:
        return ir_is_float(t) ? cpu_S(em, "%s * %s", acc, x) : cpu_binary_expr(em, IR_OP_MUL, t, acc, x);
    case IR_I_SIMD_MIN: case IR_I_QUAD_MIN:
        return ir_is_float(t) ? cpu_S(em, "fminf(%s, %s)", acc, x) : cpu_S(em, "enk_min_%s(%s, %s)", cpu_suffix_of(t), acc, x);
    case IR_I_SIMD_MAX: case IR_I_QUAD_MAX:
        return ir_is_float(t) ? cpu_S(em, "fmaxf(%s, %s)", acc, x) : cpu_S(em, "enk_max_%s(%s, %s)", cpu_suffix_of(t), acc, x);
    case IR_I_SIMD_AND: case IR_I_QUAD_AND: return cpu_S(em, "(%s)(%s & %s)", cpu_scalar_ctype(t->kind), acc, x);
    case IR_I_SIMD_OR: case IR_I_QUAD_OR: return cpu_S(em, "(%s)(%s | %s)", cpu_scalar_ctype(t->kind), acc, x);
    default: return cpu_S(em, "(%s)(%s ^ %s)", cpu_scalar_ctype(t->kind), acc, x);
    }
}

/* intrinsic kinds shared by the simd_ and quad_ families */
typedef enum group_op {
    G_REDUCE, G_PREFIX_INCL, G_PREFIX_EXCL, G_SHUFFLE, G_UP, G_DOWN, G_XOR, G_ROT_UP, G_ROT_DOWN,
    G_FILL_UP, G_FILL_DOWN, G_BROADCAST_FIRST, G_BALLOT, G_ALL, G_ANY, G_IS_FIRST, G_ACTIVE
} group_op;

static group_op group_op_of(ir_intrinsic i) {
    switch (i) {
    case IR_I_SIMD_PREFIX_INCLUSIVE_SUM: case IR_I_SIMD_PREFIX_INCLUSIVE_PRODUCT:
    case IR_I_QUAD_PREFIX_INCLUSIVE_SUM: case IR_I_QUAD_PREFIX_INCLUSIVE_PRODUCT: return G_PREFIX_INCL;
    case IR_I_SIMD_PREFIX_EXCLUSIVE_SUM: case IR_I_SIMD_PREFIX_EXCLUSIVE_PRODUCT:
    case IR_I_QUAD_PREFIX_EXCLUSIVE_SUM: case IR_I_QUAD_PREFIX_EXCLUSIVE_PRODUCT: return G_PREFIX_EXCL;
    case IR_I_SIMD_SHUFFLE: case IR_I_SIMD_BROADCAST: case IR_I_QUAD_SHUFFLE: case IR_I_QUAD_BROADCAST: return G_SHUFFLE;
    case IR_I_SIMD_SHUFFLE_UP: case IR_I_QUAD_SHUFFLE_UP: return G_UP;
    case IR_I_SIMD_SHUFFLE_DOWN: case IR_I_QUAD_SHUFFLE_DOWN: return G_DOWN;
    case IR_I_SIMD_SHUFFLE_XOR: case IR_I_QUAD_SHUFFLE_XOR: return G_XOR;
    case IR_I_SIMD_SHUFFLE_ROTATE_UP: case IR_I_QUAD_SHUFFLE_ROTATE_UP: return G_ROT_UP;
    case IR_I_SIMD_SHUFFLE_ROTATE_DOWN: case IR_I_QUAD_SHUFFLE_ROTATE_DOWN: return G_ROT_DOWN;
    case IR_I_SIMD_SHUFFLE_AND_FILL_UP: case IR_I_QUAD_SHUFFLE_AND_FILL_UP: return G_FILL_UP;
    case IR_I_SIMD_SHUFFLE_AND_FILL_DOWN: case IR_I_QUAD_SHUFFLE_AND_FILL_DOWN: return G_FILL_DOWN;
    case IR_I_SIMD_BROADCAST_FIRST: case IR_I_QUAD_BROADCAST_FIRST: return G_BROADCAST_FIRST;
    case IR_I_SIMD_BALLOT: case IR_I_QUAD_BALLOT: return G_BALLOT;
    case IR_I_SIMD_ALL: case IR_I_QUAD_ALL: return G_ALL;
    case IR_I_SIMD_ANY: case IR_I_QUAD_ANY: return G_ANY;
    case IR_I_SIMD_IS_FIRST: case IR_I_QUAD_IS_FIRST: return G_IS_FIRST;
    case IR_I_SIMD_ACTIVE_THREADS_MASK: case IR_I_QUAD_ACTIVE_THREADS_MASK: return G_ACTIVE;
    default: return G_REDUCE;
    }
}

/* Over the active lanes of each segment of `width` lanes (32: the SIMD group, 4: quads).
 * Arguments are first copied to temporaries, so a result may overwrite its own source. */
static void emit_group_op(emitter *em, const ir_stmt *s, int width) {
    const char *res = s->result ? cpu_var_lvalue(em, s->result) : NULL;
    const char *args[4] = {0};
    for (int k = 0; k < s->arg_count && k < 4; k++) args[k] = cpu_materialize(em, s->args[k]);
    OPEN("if (%s) { /* %s: %s */", em->mask, ir_intrinsic_name(s->intrinsic), cpu_source_note(em, s->loc));
    cpu_group_op_lanes(em, s, width, em->mask, args, res);
    CLOSE();
}

/* The lanes of a SIMD-group or quad function: for each segment of `width` of the 32 lanes
 * l, over the lanes of mask M; args[k][l] is argument k of lane l, res (with l) the
 * result's lvalue. The region emitter's SIMD groups and wide mode's share it, so both
 * give the same values (reductions in lane order). */
EN_INTERNAL void cpu_group_op_lanes(emitter *em, const ir_stmt *s, int width, const char *M, const char *const *args,
                                    const char *res) {
    group_op op = group_op_of(s->intrinsic);
    const ir_type *rt = s->result ? s->result->type : NULL;
    const char *segmask = width == 32 ? "0xffffffffu" : "0xfu";
    OPEN("for (int _q = 0; _q < 32; _q += %d) {", width);
    cpu_line(em, "uint32_t _sm = (%s >> _q) & %s; /* active lanes of this segment */", M, segmask);
    cpu_line(em, "if (!_sm) continue;");
    switch (op) {
    case G_REDUCE:
    case G_PREFIX_INCL:
    case G_PREFIX_EXCL: {
        const ir_type *t = s->args[0]->type, *et = ir_scalar_of(t);
        int n = t->kind == IR_T_VEC ? (int)t->count : 1;
        for (int c = 0; c < n; c++) {
            const char *sel = t->kind == IR_T_VEC ? cpu_S(em, ".v[%d]", c) : "";
            const char *x = cpu_from_storage(em, et, cpu_S(em, "%s[l]%s", args[0], sel));
            OPEN("{");
            cpu_line(em, "%s _r = %s;", cpu_compute_ctype(et), identity_of(em, s->intrinsic, et));
            const char *comb = combine(em, s->intrinsic, et, "_r", "_x");
            const char *target = res ? cpu_S(em, "%s%s", res, sel) : NULL;
            if (op == G_REDUCE) {
                cpu_line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) { %s _x = %s; _r = %s; }", width,
                     M, cpu_compute_ctype(et), x, comb);
                if (target)
                    cpu_line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) %s = %s;", width, M,
                         target, cpu_to_storage(em, et, cpu_rounded(em, et, "_r")));
            } else {
                OPEN("for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) {", width, M);
                cpu_line(em, "%s _x = %s;", cpu_compute_ctype(et), x);
                if (op == G_PREFIX_INCL) cpu_line(em, "_r = %s;", comb);
                if (target) cpu_line(em, "%s = %s;", target, cpu_to_storage(em, et, cpu_rounded(em, et, "_r")));
                if (op == G_PREFIX_EXCL) cpu_line(em, "_r = %s;", comb);
                CLOSE();
            }
            CLOSE();
        }
        break;
    }
    case G_SHUFFLE: case G_UP: case G_DOWN: case G_XOR: case G_ROT_UP: case G_ROT_DOWN:
    case G_FILL_UP: case G_FILL_DOWN: {
        bool fill = op == G_FILL_UP || op == G_FILL_DOWN;
        const char *amount = fill ? args[2] : args[1];
        OPEN("for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) {", width, M);
        cpu_line(em, "int _i = l - _q; /* lane within the segment */");
        cpu_line(em, "uint32_t _k = (uint32_t)%s[l];", amount);
        switch (op) {
        case G_SHUFFLE: cpu_line(em, "int _src = _q + (int)(_k & %du);", width - 1); break;
        case G_UP: cpu_line(em, "int _src = _k <= (uint32_t)_i ? l - (int)_k : l; /* out of range: own value */"); break;
        case G_DOWN: cpu_line(em, "int _src = (uint32_t)_i + _k < %du ? l + (int)_k : l;", width); break;
        case G_XOR: cpu_line(em, "int _src = _q + (int)(((uint32_t)_i ^ _k) & %du);", width - 1); break;
        case G_ROT_UP: cpu_line(em, "int _src = _q + (int)(((uint32_t)_i - _k) & %du);", width - 1); break;
        case G_ROT_DOWN: cpu_line(em, "int _src = _q + (int)(((uint32_t)_i + _k) & %du);", width - 1); break;
        default: {
            /* segments of `modulo` lanes; lanes whose source runs off the segment take
             * `filling` from the other end of it */
            cpu_line(em, "uint32_t _mod = %s;", s->arg_count > 3 ? cpu_S(em, "(uint32_t)%s[l]", args[3]) : cpu_S(em, "%du", width));
            cpu_line(em, "if (_mod == 0 || _mod > %du) _mod = %du;", width, width);
            cpu_line(em, "int _p = (int)((uint32_t)_i %% _mod), _sb = l - _p;");
            if (op == G_FILL_UP) {
                cpu_line(em, "bool _own = (uint32_t)_p >= _k;");
                cpu_line(em, "int _src = _own ? l - (int)_k : _sb + (int)((uint32_t)_p + _mod - _k) %% (int)_mod;");
            } else {
                cpu_line(em, "bool _own = (uint32_t)_p + _k < _mod;");
                cpu_line(em, "int _src = _own ? l + (int)_k : _sb + (int)(((uint32_t)_p + _k - _mod) %% _mod);");
            }
            cpu_line(em, "_src &= 31;");
            if (res) cpu_line(em, "%s = _own ? %s[_src] : %s[_src];", res, args[0], args[1]);
            break;
        }
        }
        if (em->checked) { /* reading a lane that does not run this call is undefined */
            const char *site = cpu_site_ref(em, s->loc, CPU_CHECK_SHUFFLE, 0, -1, NULL, ir_intrinsic_name(s->intrinsic));
            const char *range = op == G_SHUFFLE ? cpu_S(em, "_k >= %du ? (int64_t)_k : ", width)
                                : op == G_XOR ? cpu_S(em, "((uint32_t)_i ^ _k) >= %du ? (int64_t)((uint32_t)_i ^ _k) : ", width)
                                              : NULL;
            if (range) {
                cpu_line(em, "int64_t _far = %s-1;", range);
                cpu_line(em, "if (_far >= 0) _cg->api->lane(_cg->state, %s, _sg, l, _far, %d);", site, CPU_CHECK_LANE_OUT_OF_RANGE);
                cpu_line(em, "else if (!ENK_ON(%s, _src & 31)) _cg->api->lane(_cg->state, %s, _sg, l, _src & 31, %d);", M, site,
                     CPU_CHECK_LANE_INACTIVE);
            } else {
                cpu_line(em, "if (!ENK_ON(%s, _src & 31)) _cg->api->lane(_cg->state, %s, _sg, l, _src & 31, %d);", M, site,
                     CPU_CHECK_LANE_INACTIVE);
            }
        }
        if (!fill && res) cpu_line(em, "%s = %s[_src & 31];", res, args[0]);
        CLOSE();
        break;
    }
    case G_BROADCAST_FIRST:
        if (res) cpu_line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) %s = %s[_q + __builtin_ctz(_sm)];",
                      width, M, res, args[0]);
        break;
    case G_IS_FIRST:
        if (res) cpu_line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) %s = (l == _q + __builtin_ctz(_sm));",
                      width, M, res);
        break;
    case G_BALLOT: case G_ALL: case G_ANY: case G_ACTIVE: {
        if (op == G_ACTIVE) cpu_line(em, "uint64_t _v = _sm;");
        else {
            cpu_line(em, "uint64_t _v = 0;");
            cpu_line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l) && %s[l]) _v |= 1ull << (l - _q);",
                 width, M, args[0]);
        }
        const char *val = op == G_ALL ? "(_v == _sm)" : op == G_ANY ? "(_v != 0)" : "_v";
        if (res) cpu_line(em, "for (int l = _q; l < _q + %d; l++) if (ENK_ON(%s, l)) %s = (%s)%s;", width, M,
                      res, cpu_ctype(em, rt), val);
        break;
    }
    }
    CLOSE();
}

/* ---- atomics ------------------------------------------------------------------------ */
static void emit_atomic(emitter *em, const ir_stmt *s) {
    const ir_type *at = s->args[0]->type->elem; /* the atomic type */
    const ir_type *t = at && at->kind == IR_T_ATOMIC ? at->elem : at;
    const char *ct = cpu_ctype(em, t);
    const char *vals[3] = {0};
    for (int k = 1; k < s->arg_count && k < 3; k++) vals[k] = cpu_materialize(em, s->args[k]);
    const char *res = s->result ? cpu_var_lvalue(em, s->result) : NULL;
    const char *ptr = cpu_ex(em, s->args[0], -1);
    OPEN("{ /* %s: %s */", ir_intrinsic_name(s->intrinsic), cpu_source_note(em, s->loc));
    int id = cpu_fresh(em);
    cpu_line(em, "uintptr_t _a%d[32];", id);
    cpu_line(em, "for (int l = 0; l < 32; l++) _a%d[l] = (uintptr_t)(%s);", id, ptr);
    const char *lanes = cpu_access_lanes(em, s->args[0], t, cpu_S(em, "_a%d", id),
                                     s->intrinsic == IR_I_ATOMIC_LOAD    ? ACCESS_ATOMIC_LOAD
                                     : s->intrinsic == IR_I_ATOMIC_STORE ? ACCESS_ATOMIC_STORE
                                                                         : ACCESS_ATOMIC);
    OPEN("for (int l = 0; l < 32; l++) if (ENK_ON(%s, l)) { /* lanes in order */", lanes);
    cpu_line(em, "%s *_p = (%s *)_a%d[l];", ct, ct, id);
    const char *v = vals[1] ? cpu_S(em, "%s[l]", vals[1]) : "0";
    const char *r = NULL;
    switch (s->intrinsic) {
    case IR_I_ATOMIC_LOAD:
        cpu_line(em, "%s _r; __atomic_load(_p, &_r, __ATOMIC_RELAXED);", ct);
        r = "_r";
        break;
    case IR_I_ATOMIC_STORE:
        cpu_line(em, "%s _v = %s; __atomic_store(_p, &_v, __ATOMIC_RELAXED);", ct, v);
        break;
    case IR_I_ATOMIC_EXCHANGE:
        cpu_line(em, "%s _v = %s, _r; __atomic_exchange(_p, &_v, &_r, __ATOMIC_RELAXED);", ct, v);
        r = "_r";
        break;
    case IR_I_ATOMIC_COMPARE_EXCHANGE_WEAK:
        cpu_line(em, "%s _v = %s[l];", ct, vals[2] ? vals[2] : "_missing");
        cpu_line(em, "bool _r = __atomic_compare_exchange(_p, (%s *)%s, &_v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);",
             ct, v);
        r = "_r";
        break;
    case IR_I_ATOMIC_FETCH_ADD:
    case IR_I_ATOMIC_FETCH_SUB:
        cpu_atomic_add_line(em, s, t, v);
        r = "_r";
        break;
    case IR_I_ATOMIC_FETCH_MIN:
    case IR_I_ATOMIC_FETCH_MAX:
        cpu_line(em, "%s _r = enk_atomic_%s_%s(_p, %s);", ct, s->intrinsic == IR_I_ATOMIC_FETCH_MIN ? "min" : "max",
             cpu_suffix_of(t), v);
        r = "_r";
        break;
    default: {
        const char *name = s->intrinsic == IR_I_ATOMIC_FETCH_AND ? "and"
                           : s->intrinsic == IR_I_ATOMIC_FETCH_OR ? "or" : "xor";
        cpu_line(em, "%s _r = __atomic_fetch_%s(_p, %s, __ATOMIC_RELAXED);", ct, name, v);
        r = "_r";
        break;
    }
    }
    if (res && r) cpu_line(em, "%s = (%s)%s;", res, cpu_ctype(em, s->result->type), r);
    CLOSE();
    CLOSE();
}

/* ---- simdgroup_matrix: uniform over the SIMD group, 64 elements spread over the lanes -- */
static const char *gather_matrix(emitter *em, const ir_expr *m) {
    const ir_type *et = m->type->elem;
    const char *name = cpu_S(em, "_mx%d", cpu_fresh(em));
    const char *lv = ir_is_place(m) ? cpu_lvalue(em, m) : cpu_S(em, "%s[l]", cpu_materialize(em, m));
    cpu_line(em, "float %s[64];", name);
    /* unrolled, each lane's two elements land at constant offsets (no index arithmetic) */
    cpu_line(em, "_Pragma(\"GCC unroll 32\") for (int l = 0; l < 32; l++) { %s[enk_mat_first(l)] = %s; %s[enk_mat_first(l) + 1] = %s; }", name,
         cpu_from_storage(em, et, cpu_S(em, "%s.e[0]", lv)), name, cpu_from_storage(em, et, cpu_S(em, "%s.e[1]", lv)));
    return name;
}

static void scatter_matrix(emitter *em, const ir_var *v, const char *from) {
    if (!v) return;
    const ir_type *et = v->type->elem;
    const char *lv = cpu_var_lvalue(em, v);
    cpu_line(em, "_Pragma(\"GCC unroll 32\") for (int l = 0; l < 32; l++) { %s.e[0] = %s; %s.e[1] = %s; }", lv,
         cpu_to_storage(em, et, cpu_S(em, "%s[enk_mat_first(l)]", from)), lv,
         cpu_to_storage(em, et, cpu_S(em, "%s[enk_mat_first(l) + 1]", from)));
}

/* the uniform arguments (pointer, elements per row, origin, transpose) of load/store, read
 * from the first active lane */
static void matrix_addressing(emitter *em, const ir_stmt *s, int first) {
    const ir_expr *ptr = s->args[first];
    const char *p = cpu_ex(em, ptr, -1);
    const char *epr = s->arg_count > first + 1 ? cpu_ex(em, s->args[first + 1], -1) : "8";
    const ir_expr *origin = s->arg_count > first + 2 ? s->args[first + 2] : NULL;
    const char *ox = origin ? (origin->type->kind == IR_T_VEC ? cpu_ex(em, origin, 0) : cpu_ex(em, origin, -1)) : "0";
    const char *oy = origin ? (origin->type->kind == IR_T_VEC ? cpu_ex(em, origin, 1) : "0") : "0";
    const char *tr = s->arg_count > first + 3 ? cpu_ex(em, s->args[first + 3], -1) : "false";
    cpu_line(em, "int l = enk_first_lane(%s);", em->mask);
    cpu_line(em, "%s _p = %s;", cpu_ctype(em, ptr->type), p);
    cpu_line(em, "uint64_t _epr = (uint64_t)(%s), _ox = (uint64_t)(%s), _oy = (uint64_t)(%s);", epr, ox, oy);
    cpu_line(em, "bool _tr = %s;", tr);
}

/* checked mode: the 64 element addresses of a simdgroup_load/store, each reported for the
 * lane that holds it (enk_mat_lane: the layout gather_matrix uses), through the access
 * hook; `_mok[slot]` then has a bit per lane whose element of that slot may be touched.
 * False when unchecked or thread memory. */
static bool matrix_check(emitter *em, const ir_stmt *s, int first, int op) {
    const ir_expr *ptr = s->args[first];
    if (!em->checked || ptr->type->kind != IR_T_PTR || ptr->type->space == IR_SPACE_THREAD) return false;
    const char *site = cpu_site_ref(em, s->loc, op, (int)ptr->type->space, cpu_pointer_object(em, ptr),
                                  cpu_S(em, "sizeof(%s)", cpu_ctype(em, ptr->type->elem)), cpu_root_name(ptr));
    cpu_line(em, "uintptr_t _ma[2][32]; uint32_t _mok[2];");
    cpu_line(em, "for (int _e = 0; _e < 64; _e++) { int r = _e / 8, c = _e %% 8;");
    cpu_line(em, "    _ma[_e & 1][enk_mat_lane(_e)] = (uintptr_t)(_tr ? &_p[(_oy + c) * _epr + _ox + r] : &_p[(_oy + r) * _epr + _ox + c]); }");
    cpu_line(em, "for (int _h = 0; _h < 2; _h++) _mok[_h] = _cg->api->access(_cg->state, %s, _sg, ENK_FULL, _ma[_h], NULL);", site);
    return true;
}

static void emit_matrix(emitter *em, const ir_stmt *s) {
    OPEN("if (%s) { /* %s: %s */", em->mask, ir_intrinsic_name(s->intrinsic), cpu_source_note(em, s->loc));
    switch (s->intrinsic) {
    case IR_I_MATRIX_FILL: {
        cpu_line(em, "float _mf[64];");
        OPEN("{");
        cpu_line(em, "int l = enk_first_lane(%s);", em->mask);
        cpu_line(em, "float _v = (float)(%s);", cpu_ex(em, s->args[0], -1));
        cpu_line(em, "for (int e = 0; e < 64; e++) _mf[e] = _v;");
        CLOSE();
        scatter_matrix(em, s->result, "_mf");
        break;
    }
    case IR_I_MATRIX_LOAD: {
        const ir_type *et = s->args[0]->type->elem;
        cpu_line(em, "float _ml[64];");
        OPEN("{");
        matrix_addressing(em, s, 0);
        if (matrix_check(em, s, 0, CPU_CHECK_LOAD)) {
            cpu_line(em, "for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++)");
            cpu_line(em, "    _ml[r * 8 + c] = _mok[c & 1] >> enk_mat_lane(r * 8 + c) & 1u ? %s : 0.0f;",
                 cpu_from_storage(em, et, "(_tr ? _p[(_oy + c) * _epr + _ox + r] : _p[(_oy + r) * _epr + _ox + c])"));
        } else {
            cpu_line(em, "for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++)");
            cpu_line(em, "    _ml[r * 8 + c] = %s;",
                 cpu_from_storage(em, et, "(_tr ? _p[(_oy + c) * _epr + _ox + r] : _p[(_oy + r) * _epr + _ox + c])"));
        }
        CLOSE();
        scatter_matrix(em, s->result, "_ml");
        break;
    }
    case IR_I_MATRIX_STORE: {
        const ir_type *et = s->args[1]->type->elem;
        const char *mx = gather_matrix(em, s->args[0]);
        OPEN("{");
        matrix_addressing(em, s, 1);
        if (matrix_check(em, s, 1, CPU_CHECK_STORE))
            cpu_line(em, "for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++) if (_mok[c & 1] >> enk_mat_lane(r * 8 + c) & 1u)");
        else
            cpu_line(em, "for (int r = 0; r < 8; r++) for (int c = 0; c < 8; c++)");
        cpu_line(em, "    *(_tr ? &_p[(_oy + c) * _epr + _ox + r] : &_p[(_oy + r) * _epr + _ox + c]) = %s;",
             cpu_to_storage(em, et, cpu_S(em, "%s[r * 8 + c]", mx)));
        CLOSE();
        break;
    }
    case IR_I_MATRIX_MULTIPLY:
    case IR_I_MATRIX_MULTIPLY_ACCUMULATE: {
        const char *a = gather_matrix(em, s->args[0]);
        const char *b = gather_matrix(em, s->args[1]);
        const char *c = s->intrinsic == IR_I_MATRIX_MULTIPLY_ACCUMULATE && s->arg_count > 2
                            ? gather_matrix(em, s->args[2]) : "NULL";
        cpu_line(em, "float _md[64];");
        cpu_line(em, "enk_mat_mul(_md, %s, %s, %s);", a, b, c);
        scatter_matrix(em, s->result, "_md");
        break;
    }
    default: break;
    }
    CLOSE();
}

/* atomic_thread_fence. A threadgroup runs on one host thread (its SIMD groups one after
 * another, their lanes in lockstep), so a fence whose scope ends at the threadgroup orders
 * nothing the host thread does not already order: it only keeps the C compiler from moving
 * accesses across it (a signal fence). Device and system scope reach threadgroups on other
 * host threads, and host code: a thread fence. The memory order maps onto C11's one for one
 * (IR_ORDER_* is C's order); relaxed fences nothing. In checked mode a fence beyond the
 * threadgroup also calls the fence hook: a release fence before an atomic write that
 * another threadgroup's atomic read and acquire fence see orders the accesses before it
 * (check_rt.c), as C++'s fence rules, which Metal's follow, say. */
static void emit_fence(emitter *em, const ir_stmt *s) {
    static const char *const orders[] = {"__ATOMIC_RELAXED", "__ATOMIC_CONSUME", "__ATOMIC_ACQUIRE",
                                         "__ATOMIC_RELEASE", "__ATOMIC_ACQ_REL", "__ATOMIC_SEQ_CST"};
    uint64_t order = s->args[1]->c.u, scope = s->args[2]->c.u;
    const char *note = cpu_source_note(em, s->loc);
    if (order == IR_ORDER_RELAXED || order >= EN_COUNT(orders)) {
        cpu_line(em, "/* atomic_thread_fence, relaxed: no effect (%s) */", note);
        return;
    }
    bool beyond_group = scope == IR_SCOPE_DEVICE || scope == IR_SCOPE_SYSTEM;
    cpu_line(em, "__atomic_%s_fence(%s); /* atomic_thread_fence (%s) */", beyond_group ? "thread" : "signal",
             orders[order], note);
    if (em->checked && beyond_group)
        cpu_line(em, "_cg->api->fence(_cg->state, %s, _sg, %s, %d, %d);",
                 cpu_site_ref(em, s->loc, CPU_CHECK_FENCE, 0, -1, NULL, "atomic_thread_fence"), em->mask, (int)order,
                 (int)scope);
}

EN_INTERNAL void cpu_gang_stmt(emitter *em, const ir_stmt *s) {
    if (em->failed) return;
    em->memos.count = 0;
    if (cpu_outline_stmt(em, s)) return; /* a large statement: a function of its own */
    switch (s->kind) {
    case IR_S_BLOCK:
        OPEN("{");
        cpu_gang_list(em, cpu_list_of((ir_stmt *)s));
        CLOSE();
        break;
    case IR_S_DECL:
        if (s->value) {
            ir_expr place = var_expr(s->var);
            cpu_line(em, "/* %s */", cpu_source_note(em, s->loc));
            OPEN("{");
            emit_assign(em, &place, s->value);
            CLOSE();
        }
        break;
    case IR_S_ASSIGN:
        cpu_line(em, "/* %s */", cpu_source_note(em, s->loc));
        OPEN("{");
        emit_assign(em, s->place, s->value);
        CLOSE();
        break;
    case IR_S_IF: gang_if(em, s); break;
    case IR_S_LOOP: gang_loop(em, s); break;
    case IR_S_BREAK:
    case IR_S_CONTINUE: {
        loop_entry *le = find_loop(em, s->target);
        if (!le) {
            cpu_fail(em, s->loc, "break/continue outside its loop");
            break;
        }
        const char *set = cpu_S(em, "_%s%d%s", s->kind == IR_S_BREAK ? "brk" : "cont", le->id,
                            le->tg_level ? "[_sg]" : "");
        cpu_line(em, "%s |= %s; %s = 0; /* %s */", set, em->mask, em->mask, s->kind == IR_S_BREAK ? "break" : "continue");
        break;
    }
    case IR_S_RETURN:
        if (em->checked) cpu_line(em, "_chk_ret[_sg] |= %s; /* returned threads are exempt from barriers */", em->mask);
        cpu_line(em, "%s = 0; /* return: these threads are done (%s) */", em->mask, cpu_source_note(em, s->loc));
        break;
    case IR_S_INTRINSIC:
        switch (ir_intrinsic_class_of(s->intrinsic)) {
        case IR_IC_SIMD: emit_group_op(em, s, 32); break;
        case IR_IC_QUAD: emit_group_op(em, s, 4); break;
        case IR_IC_ATOMIC: emit_atomic(em, s); break;
        case IR_IC_MATRIX: emit_matrix(em, s); break;
        case IR_IC_FENCE: emit_fence(em, s); break;
        case IR_IC_BARRIER:
            cpu_line(em, "/* simdgroup_barrier: the gang runs in lockstep (%s) */", cpu_source_note(em, s->loc));
            if (em->checked)
                cpu_line(em, "_cg->api->simd_barrier(_cg->state, %s, _sg, %s, _chk_ret[_sg]);",
                     cpu_site_ref(em, s->loc, CPU_CHECK_SIMD_BARRIER, 0, -1, NULL, "simdgroup_barrier"), em->mask);
            break;
        default: cpu_fail(em, s->loc, "intrinsic statement %s", ir_intrinsic_name(s->intrinsic));
        }
        break;
    case IR_S_CALL: cpu_fail(em, s->loc, "a call statement survived inlining"); break;
    }
}
