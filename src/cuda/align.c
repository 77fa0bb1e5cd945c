/* align.c — what a kernel's code guarantees about the alignment of its pointers.
 *
 * A simdgroup_load or simdgroup_store moves each lane's two neighbouring elements with one
 * access when they are aligned as a pair, and a whole 8x8 tile of 16-bit elements with one
 * ldmatrix when its rows start on 16 bytes (prelude.cuh). Checking that at run time costs
 * GEMM loops more than the loads themselves, so emit.c asks here first: the largest power
 * of two (at most EN_ALIGN_MAX bytes) that every value of an expression is a multiple of.
 *
 * Needs: an inlined kernel. [[threadgroup(n)]] memory starts on 16 bytes (driver.c rounds the
 *        offsets); so do threadgroup variables when the caller says so (emit.c declares
 *        static __shared__ variables __align__(16)), else they have their type's alignment.
 * Gives: en_cuda_align_of_* answers that hold for every thread and every execution. An
 *        integer variable's factor is the greatest fixpoint over all its definitions (its
 *        initialiser and every assignment to the whole variable; anything else — a partial
 *        assignment, an intrinsic's result, a taken address, a parameter — makes it 1), so a
 *        loop counter `k = 0; k += 8` is a multiple of 8. Device pointers are 1: a binding
 *        may start anywhere in its buffer. */
#include <string.h>

#include "internal.h"

#define EN_ALIGN_MAX 16u

static uint32_t lowest_bit(uint64_t v) {
    if (v == 0) return EN_ALIGN_MAX;
    uint32_t f = 1;
    while (!(v & 1u) && f < EN_ALIGN_MAX) { v >>= 1; f <<= 1; }
    return f;
}
static uint32_t min_u(uint32_t a, uint32_t b) { return a < b ? a : b; }
static uint32_t mul_factor(uint32_t a, uint64_t b) {
    uint64_t p = (uint64_t)a * lowest_bit(b);
    return p > EN_ALIGN_MAX ? EN_ALIGN_MAX : (uint32_t)p;
}

/* the factor of the variable (by id) as the fixpoint iteration has it now */
static uint32_t var_factor(const en_align *al, const ir_var *v) {
    if (v->storage != IR_VAR_LOCAL || v->id < 0 || v->id >= al->var_count) return 1;
    return al->factor[v->id];
}

static uint32_t place_align(const en_align *al, const ir_expr *p);

uint32_t en_cuda_align_of_int(const en_align *al, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_CONST: return ir_is_integer(e->type) ? lowest_bit(e->c.u) : 1;
    case IR_E_VAR: return ir_is_integer(e->type) ? var_factor(al, e->var) : 1;
    case IR_E_CONVERT: /* between integers the low bits stay */
        return ir_is_integer(e->type) && ir_is_integer(e->args[0]->type) ? en_cuda_align_of_int(al, e->args[0]) : 1;
    case IR_E_UNARY: return e->op == IR_OP_NEG ? en_cuda_align_of_int(al, e->args[0]) : 1;
    case IR_E_SELECT: return min_u(en_cuda_align_of_int(al, e->args[1]), en_cuda_align_of_int(al, e->args[2]));
    case IR_E_BINARY: {
        if (!ir_is_integer(e->type)) return 1;
        uint32_t a = en_cuda_align_of_int(al, e->args[0]), b = en_cuda_align_of_int(al, e->args[1]);
        switch (e->op) {
        case IR_OP_ADD: case IR_OP_SUB: return min_u(a, b);
        case IR_OP_MUL: return mul_factor(a, b);
        case IR_OP_AND: return a > b ? a : b; /* a bit clear in either is clear in the result */
        case IR_OP_SHL:
            if (e->args[1]->kind == IR_E_CONST && e->args[1]->c.u < 8) return mul_factor(a, 1ull << e->args[1]->c.u);
            return a;
        default: return 1;
        }
    }
    default: return 1;
    }
}

/* a pointer value: the alignment of the address it holds */
uint32_t en_cuda_align_of_ptr(const en_align *al, const ir_expr *e) {
    switch (e->kind) {
    case IR_E_ADDR: return place_align(al, e->args[0]);
    case IR_E_PTRCAST: return en_cuda_align_of_ptr(al, e->args[0]);
    case IR_E_PTR_OFFSET:
        return min_u(en_cuda_align_of_ptr(al, e->args[0]),
                     mul_factor(en_cuda_align_of_int(al, e->args[1]), e->type->elem->size));
    case IR_E_VAR:
        if (e->var->param_kind == IR_PARAM_THREADGROUP) return EN_ALIGN_MAX;
        return var_factor(al, e->var);
    default: return 1;
    }
}

static uint32_t place_align(const en_align *al, const ir_expr *p) {
    switch (p->kind) {
    case IR_E_VAR:
        if (p->var->storage == IR_VAR_THREADGROUP && al->threadgroup_vars_16) return EN_ALIGN_MAX;
        return p->type->align ? min_u(lowest_bit(p->type->align), EN_ALIGN_MAX) : 1;
    case IR_E_INDEX: {
        const ir_type *bt = p->args[0]->type;
        uint32_t step = mul_factor(en_cuda_align_of_int(al, p->args[1]), p->type->size);
        if (bt->kind == IR_T_ARRAY) return min_u(place_align(al, p->args[0]), step);
        if (bt->kind == IR_T_PTR) return min_u(en_cuda_align_of_ptr(al, p->args[0]), step);
        return 1;
    }
    case IR_E_FIELD: {
        const ir_type *st = p->args[0]->type;
        return min_u(place_align(al, p->args[0]), lowest_bit(st->fields[p->field].offset));
    }
    case IR_E_DEREF: return en_cuda_align_of_ptr(al, p->args[0]);
    default: return 1;
    }
}

/* ---- the fixpoint over the kernel's variables ----------------------------------------------- */
typedef struct defs {
    en_align *al;
    bool changed;
} defs;

static void lower(defs *d, const ir_var *v, uint32_t f) {
    if (!v || v->storage != IR_VAR_LOCAL || v->id < 0 || v->id >= d->al->var_count) return;
    if (f < d->al->factor[v->id]) {
        d->al->factor[v->id] = f;
        d->changed = true;
    }
}

static uint32_t value_factor(const en_align *al, const ir_type *t, const ir_expr *value) {
    if (t->kind == IR_T_PTR) return en_cuda_align_of_ptr(al, value);
    if (ir_is_integer(t)) return en_cuda_align_of_int(al, value);
    return 1;
}

/* the root variable of a place, when the place is part of it rather than all of it */
static const ir_var *partly(const ir_expr *p) {
    while (p && (p->kind == IR_E_INDEX || p->kind == IR_E_FIELD || p->kind == IR_E_SWIZZLE) &&
           p->args[0]->type->kind != IR_T_PTR)
        p = p->args[0];
    return p && p->kind == IR_E_VAR ? p->var : NULL;
}

/* what one statement defines lowers its variable's factor (ir_stmt_each visits the
 * statements nested in it) */
static void lower_defined(const ir_stmt *s, void *defs_ctx) {
    defs *d = defs_ctx;
    switch (s->kind) {
    case IR_S_DECL:
        if (s->value) lower(d, s->var, value_factor(d->al, s->var->type, s->value));
        break;
    case IR_S_ASSIGN:
        if (s->place->kind == IR_E_VAR) lower(d, s->place->var, value_factor(d->al, s->place->type, s->value));
        else lower(d, partly(s->place), 1);
        break;
    case IR_S_INTRINSIC: case IR_S_CALL: lower(d, s->result, 1); break;
    default: break;
    }
}

void en_cuda_align_init(en_align *al, const ir_func *f, bool threadgroup_vars_16, en_arena *arena) {
    al->var_count = f->next_var_id;
    al->threadgroup_vars_16 = threadgroup_vars_16;
    al->factor = en_alloc(arena, sizeof(uint32_t) * (size_t)(al->var_count + 1));
    for (int i = 0; i < al->var_count; i++) al->factor[i] = EN_ALIGN_MAX;
    /* what nothing in the body defines: parameters (device pointers may start anywhere),
     * attributes, and variables whose address is taken (written through pointers) */
    defs d = {.al = al};
    for (int i = 0; i < f->param_count; i++)
        if (f->params[i]->param_kind != IR_PARAM_THREADGROUP) lower(&d, f->params[i], 1);
    for (int i = 0; i < f->locals.count; i++)
        if (f->locals.items[i]->address_taken) lower(&d, f->locals.items[i], 1);
    do {
        d.changed = false;
        ir_stmt_each(f->body, lower_defined, &d);
    } while (d.changed);
}
